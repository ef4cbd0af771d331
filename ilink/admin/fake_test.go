package admin

import (
	"net"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// fakeServer is a minimal iLink peer for client-side tests of calls whose
// engine side is somebody else's (the group coordinator) or hard to
// provoke: it answers HELLO and hands every other request to handle.
type fakeServer struct {
	t      testing.TB
	ln     net.Listener
	qmgr   string
	handle func(r fakeReq) (wire.Message, uint16, *wire.ErrorBody)

	accepted atomic.Int32
	open     atomic.Int32
	mu       sync.Mutex
	reqs     []fakeReq
}

type fakeReq struct {
	conn int
	mode wire.SessionMode
	qmgr string // the HELLO's expected queue manager
	code wire.Code
	body []byte
}

func newFake(t testing.TB, qmgr string, handle func(fakeReq) (wire.Message, uint16, *wire.ErrorBody)) *fakeServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeServer{t: t, ln: ln, qmgr: qmgr, handle: handle}
	t.Cleanup(func() { ln.Close() })
	go f.accept()
	return f
}

func (f *fakeServer) addr() string { return f.ln.Addr().String() }

func (f *fakeServer) requests() []fakeReq {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeReq(nil), f.reqs...)
}

func (f *fakeServer) accept() {
	for {
		nc, err := f.ln.Accept()
		if err != nil {
			return
		}
		id := int(f.accepted.Add(1))
		f.open.Add(1)
		go f.serve(id, nc)
	}
}

func (f *fakeServer) serve(id int, nc net.Conn) {
	defer f.open.Add(-1)
	defer nc.Close()
	fr := wire.NewFrameReader(nc, wire.HardMaxFrame)
	var mode wire.SessionMode
	var qmgr string
	for {
		h, body, err := fr.Next()
		if err != nil {
			return
		}
		var resp wire.Message
		var report uint16
		var eb *wire.ErrorBody
		if h.Code == wire.CodeHello {
			var hr wire.HelloRequest
			if wire.Decode(body, &hr) != nil {
				return
			}
			mode, qmgr = hr.Mode, hr.QueueManager
			resp = &wire.HelloReply{NodeID: 1, QueueManager: f.qmgr, Cluster: "CF", EngineVersion: "fake",
				Nodes: []wire.NodeInfo{{ID: 1, Addr: "127.0.0.1:1", Admin: f.addr(), Leader: true, Up: true}}}
		} else {
			r := fakeReq{conn: id, mode: mode, qmgr: qmgr, code: h.Code, body: append([]byte(nil), body...)}
			f.mu.Lock()
			f.reqs = append(f.reqs, r)
			f.mu.Unlock()
			resp, report, eb = f.handle(r)
		}
		rh := wire.Header{Flags: wire.FlagResponse, Code: h.Code, Corr: h.Corr}
		var enc func(*wire.Writer)
		switch {
		case eb != nil:
			rh.Flags |= wire.FlagError
			rh.Status = report
			enc = eb.Encode
		case resp != nil:
			enc = resp.Encode
		}
		if _, err := nc.Write(wire.AppendFrame(nil, rh, enc)); err != nil {
			return
		}
	}
}

// groupFakes starts an admin fake and a data fake; the admin one names
// the data one as the queue manager's data address (QMGR LIST).
func groupFakes(t *testing.T, data func(fakeReq) (wire.Message, uint16, *wire.ErrorBody)) (adm, dat *fakeServer, q *Qmgr) {
	dat = newFake(t, "QMF", data)
	adm = newFake(t, "QMF", func(r fakeReq) (wire.Message, uint16, *wire.ErrorBody) {
		switch r.code {
		case wire.CodeQmgrList:
			return &wire.QmgrListReply{Qmgrs: []wire.QmgrEntry{{Name: "QMF", Running: true, DataAddr: dat.addr(), Clustered: true, Cluster: "CF"}}}, 0, nil
		case wire.CodeSubscriptionList:
			var req wire.SubscriptionListRequest
			_ = wire.Decode(r.body, &req)
			if req.Topic == "NONE" {
				return &wire.TextReply{Text: ""}, 0, nil
			}
			return &wire.TextReply{Text: "billing|Stable|0|51|4|members=2\nbilling|Stable|1|-1|-1|members=2"}, 0, nil
		}
		return nil, 0, &wire.ErrorBody{Name: wire.ErrInvalidReqCode}
	})
	s, err := Connect(testCtx(t), adm.addr(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return adm, dat, s.AccessAdminQmgr("")
}

func TestGroupCallsOverShortDataConnections(t *testing.T) {
	t.Parallel()
	var seeks []wire.SeekGroupRequest
	var mu sync.Mutex
	_, dat, q := groupFakes(t, func(r fakeReq) (wire.Message, uint16, *wire.ErrorBody) {
		switch r.code {
		case wire.CodeGroupList:
			return &wire.GroupListReply{Groups: []wire.GroupEntry{{Name: "billing", State: "Stable", Members: 2, Durable: true, Generation: 3,
				Offsets: []wire.GroupTopicOffsets{{Topic: "T", Partitions: []wire.GroupPartitionOffsets{{Partition: 0, Committed: 5, LogStart: 2, End: 9}, {Partition: 1, Committed: -1, LogStart: 1, End: 3}}}}}}}, 0, nil
		case wire.CodeDescribeGroup:
			var req wire.GroupRequest
			_ = wire.Decode(r.body, &req)
			if req.Group != "billing" {
				return &wire.GroupDescriptionReply{Name: req.Group, State: "Dead"}, 0, nil
			}
			return &wire.GroupDescriptionReply{Name: "billing", State: "Stable", Generation: 3, Coordinator: 2, Durable: true,
				Members: []wire.GroupMemberEntry{{MemberID: "m1", ClientName: "svc", Host: "h1", LastSeenMs: 1000,
					Assignment: []wire.TopicPartitions{{Topic: "T", Partitions: []int32{0, 1}}}}},
				Offsets: []wire.GroupOffsetEntry{{Topic: "T", Partition: 0, Committed: 5, LogStart: 2, EndOffset: 9, MemberID: "m1"},
					{Topic: "T", Partition: 1, Committed: -1, LogStart: 1, EndOffset: 3, MemberID: "m1"}}}, 0, nil
		case wire.CodeSeekGroup:
			var req wire.SeekGroupRequest
			_ = wire.Decode(r.body, &req)
			mu.Lock()
			seeks = append(seeks, req)
			mu.Unlock()
			if !req.DryRun && req.Group == "busy" {
				return nil, 0, &wire.ErrorBody{Name: wire.ErrGroupNotEmpty, Tail: "1 active members"}
			}
			return &wire.SeekGroupReply{Changes: []wire.OffsetChangeEntry{{Topic: "T", Partition: 0, Old: 5, New: 0, LogStart: 0, End: 9}}}, 0, nil
		case wire.CodeAdminDeleteGroup:
			return nil, 0, &wire.ErrorBody{Name: wire.ErrGroupNotEmpty, Tail: "2 active members"}
		}
		return nil, 0, &wire.ErrorBody{Name: wire.ErrInvalidReqCode}
	})
	ctx := testCtx(t)
	gs := must[[]GroupInfo](t)(q.GroupList(ctx))
	if len(gs) != 1 || !reflect.DeepEqual(gs[0], GroupInfo{Name: "billing", State: GroupStable, Members: 2, Topics: []string{"T"}, Durable: true, Generation: 3,
		Partitions: []PartitionOffsets{{"T", 0, 5, 2, 9}, {"T", 1, -1, 1, 3}}}) || gs[0].Lag() != (LagTotal{Records: 4 + 2, Partitions: 2, NoCommit: 1}) {
		t.Fatalf("GroupList %+v", gs)
	}
	d := must[GroupDescription](t)(q.DescribeGroup(ctx, "billing"))
	if d.State != GroupStable || d.Coordinator != 2 || len(d.Members) != 1 || d.Members[0].Host != "h1" ||
		d.Members[0].Assignment[0].Partitions[1] != 1 || !d.Members[0].LastSeen.Equal(time.UnixMilli(1000)) ||
		len(d.Offsets) != 2 || d.Offsets[1].Committed != -1 || d.Offsets[1].Lag() != (PartLag{Records: 2, NoCommit: true}) {
		t.Fatalf("DescribeGroup %+v", d)
	}
	if d := must[GroupDescription](t)(q.DescribeGroup(ctx, "nobody")); d.State != GroupDead || d.Name != "nobody" {
		t.Fatalf("unknown group: %+v", d)
	}
	ch := must[[]OffsetChange](t)(q.PlanSeekGroup(ctx, "busy", "T", SeekTarget{Earliest: true}))
	if len(ch) != 1 || ch[0] != (OffsetChange{Topic: "T", Partition: 0, Old: 5, New: 0, LogStart: 0, End: 9}) {
		t.Fatalf("plan %+v", ch)
	}
	wantErr(t, errOf(q.SeekGroup(ctx, "busy", "T", SeekTarget{Latest: true})), wire.ErrGroupNotEmpty, "1 active members")
	must[[]OffsetChange](t)(q.SeekGroup(ctx, "billing", "", SeekTarget{Offset: 42}))
	at := time.UnixMilli(1700000000123)
	must[[]OffsetChange](t)(q.SeekGroupToTime(ctx, "billing", "T", at))
	wantErr(t, q.DeleteGroup(ctx, "billing"), wire.ErrGroupNotEmpty, "2 active members")

	want := []wire.SeekGroupRequest{
		{Group: "busy", Topic: "T", Mode: wire.SeekToEarliest, DryRun: true},
		{Group: "busy", Topic: "T", Mode: wire.SeekToLatest},
		{Group: "billing", Mode: wire.SeekToOffset, Offset: 42},
		{Group: "billing", Topic: "T", Mode: wire.SeekToTime, TimeMs: 1700000000123},
	}
	mu.Lock()
	if len(seeks) != len(want) {
		t.Fatalf("seeks %+v", seeks)
	}
	for i := range want {
		if !reflect.DeepEqual(seeks[i], want[i]) {
			t.Fatalf("seek %d sent %+v, want %+v", i, seeks[i], want[i])
		}
	}
	mu.Unlock()

	// Bad targets fail locally, before any connection.
	before := dat.accepted.Load()
	for _, bad := range []SeekTarget{{Earliest: true, Latest: true}, {Offset: -1}, {Latest: true, Time: at}} {
		_, err := q.PlanSeekGroup(ctx, "billing", "", bad)
		if !ilink.IsConfigError(err) {
			t.Fatalf("target %+v: %v", bad, err)
		}
	}
	_, err := q.SeekGroupToTime(ctx, "billing", "", time.Time{})
	if !ilink.IsConfigError(err) {
		t.Fatalf("zero time: %v", err)
	}
	if dat.accepted.Load() != before {
		t.Fatal("a refused target opened a connection")
	}

	// spec: A-10 — one short data connection per group call, in consumer
	// mode for this queue manager, closed afterwards.
	reqs := dat.requests()
	if len(reqs) != 8 || int(dat.accepted.Load()) != 8 {
		t.Fatalf("%d requests over %d connections, want 8 over 8", len(reqs), dat.accepted.Load())
	}
	seen := map[int]bool{}
	for _, r := range reqs {
		if seen[r.conn] || r.mode != wire.ModeConsumer || r.qmgr != "QMF" {
			t.Fatalf("request %v on connection %d in mode %d for %q", r.code, r.conn, r.mode, r.qmgr)
		}
		seen[r.conn] = true
	}
	ilinktest.WaitFor(t, waitTimeout, "the short connections to close", func() bool { return dat.open.Load() == 0 })
}

func TestGroupCallRetriesLoading(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	_, dat, q := groupFakes(t, func(r fakeReq) (wire.Message, uint16, *wire.ErrorBody) {
		switch n.Add(1) {
		case 1:
			return nil, wire.ReportLoading, &wire.ErrorBody{Name: wire.ErrLoading}
		case 2:
			return nil, wire.ReportNotCoordinator, &wire.ErrorBody{Name: wire.ErrNotCoordinator, Tail: "this node follows"}
		}
		return &wire.GroupDescriptionReply{Name: "g", State: "Empty"}, 0, nil
	})
	start := time.Now()
	d := must[GroupDescription](t)(q.DescribeGroup(testCtx(t), "g"))
	if d.State != GroupEmpty || n.Load() != 3 || dat.accepted.Load() != 1 {
		t.Fatalf("state %s after %d tries on %d connections", d.State, n.Load(), dat.accepted.Load())
	}
	if el := time.Since(start); el < 300*time.Millisecond { // 100 ms then 200 ms
		t.Fatalf("retried after %v, want the 100 ms doubling backoff", el)
	}
}

func TestSubscriptionListOverAdmin(t *testing.T) {
	t.Parallel()
	adm, dat, q := groupFakes(t, nil)
	ctx := testCtx(t)
	text := must[string](t)(q.SubscriptionListText(ctx, "T"))
	if text != "billing|Stable|0|51|4|members=2\nbilling|Stable|1|-1|-1|members=2" {
		t.Fatalf("text %q", text)
	}
	lines := must[[]SubscriptionLine](t)(q.SubscriptionList(ctx, "T"))
	if len(lines) != 2 || lines[1].Commit != -1 || lines[1].Lag != -1 || lines[0].Members != 2 {
		t.Fatalf("lines %+v", lines)
	}
	lines = must[[]SubscriptionLine](t)(q.SubscriptionList(ctx, "NONE"))
	if lines == nil || len(lines) != 0 {
		t.Fatalf("no group: %#v", lines)
	}
	if dat.accepted.Load() != 0 || len(adm.requests()) != 3 {
		t.Fatalf("subscription list went to the data port (%d) or not to admin (%d)", dat.accepted.Load(), len(adm.requests()))
	}
	for _, r := range adm.requests() {
		var req wire.SubscriptionListRequest
		if wire.Decode(r.body, &req) != nil || req.Qmgr != "QMF" || r.mode != wire.ModeAdmin {
			t.Fatalf("request %+v", r)
		}
	}
}
