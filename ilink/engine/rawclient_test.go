package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"testing"
	"time"

	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// The tests talk to the engine over real loopback TCP with this tiny raw
// client: a frame writer and a wire.FrameReader, nothing from package ilink.

const ioTimeout = 5 * time.Second

type rawClient struct {
	t    testing.TB
	nc   net.Conn
	fr   *wire.FrameReader
	corr uint32
	// report is the REPORT code (header status) of the last error reply.
	report uint16
}

type frame struct {
	hdr  wire.Header
	body []byte
}

func dialRaw(t testing.TB, addr string) *rawClient {
	t.Helper()
	nc := dialTest(t, addr)
	return &rawClient{t: t, nc: nc, fr: wire.NewFrameReader(nc, wire.HardMaxFrame)}
}

func (c *rawClient) close() { c.nc.Close() }

func dialTimeout(addr string) (net.Conn, error) { return net.DialTimeout("tcp", addr, time.Second) }

// send writes one request frame and returns its correlation id.
func (c *rawClient) send(code wire.Code, timeoutMs uint32, m wire.Message) uint32 {
	return c.sendFlags(code, 0, timeoutMs, m)
}

func (c *rawClient) sendFlags(code wire.Code, flags wire.Flags, timeoutMs uint32, m wire.Message) uint32 {
	c.t.Helper()
	c.corr++
	h := wire.Header{Flags: flags, Code: code, Corr: c.corr, TimeoutMs: timeoutMs}
	var enc func(*wire.Writer)
	if m != nil {
		enc = m.Encode
	}
	c.writeRaw(wire.AppendFrame(nil, h, enc))
	return c.corr
}

func (c *rawClient) writeRaw(b []byte) {
	c.t.Helper()
	c.nc.SetWriteDeadline(time.Now().Add(ioTimeout))
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// next reads one frame (body copied).
func (c *rawClient) next() (frame, error) {
	c.nc.SetReadDeadline(time.Now().Add(ioTimeout))
	h, body, err := c.fr.Next()
	if err != nil {
		return frame{}, err
	}
	return frame{h, append([]byte{}, body...)}, nil
}

// read reads the reply to corr and decodes it into resp (nil = ignore the
// body). It returns the error body of an error reply.
func (c *rawClient) read(corr uint32, resp wire.Message) *wire.ErrorBody {
	c.t.Helper()
	f, err := c.next()
	if err != nil {
		c.t.Fatalf("read reply to corr %d: %v", corr, err)
	}
	return c.check(f, corr, resp)
}

func (c *rawClient) check(f frame, corr uint32, resp wire.Message) *wire.ErrorBody {
	c.t.Helper()
	if !f.hdr.IsResponse() {
		c.t.Fatalf("frame for corr %d is not a response (flags %b)", f.hdr.Corr, f.hdr.Flags)
	}
	if f.hdr.Corr != corr {
		c.t.Fatalf("reply corr %d (%v), want %d", f.hdr.Corr, f.hdr.Code, corr)
	}
	if f.hdr.IsError() {
		c.report = f.hdr.Status
		var eb wire.ErrorBody
		if err := wire.Decode(f.body, &eb); err != nil {
			c.t.Fatalf("decode error body: %v", err)
		}
		return &eb
	}
	if resp != nil {
		if err := wire.Decode(f.body, resp); err != nil {
			c.t.Fatalf("decode %T: %v", resp, err)
		}
	}
	return nil
}

// call sends one request and reads its reply.
func (c *rawClient) call(code wire.Code, timeoutMs uint32, req, resp wire.Message) *wire.ErrorBody {
	c.t.Helper()
	return c.read(c.send(code, timeoutMs, req), resp)
}

// mustCall is call that fails the test on an error reply.
func (c *rawClient) mustCall(code wire.Code, timeoutMs uint32, req, resp wire.Message) {
	c.t.Helper()
	if eb := c.call(code, timeoutMs, req, resp); eb != nil {
		c.t.Fatalf("%v: unexpected error %s (%s)", code, eb.Name, eb.Tail)
	}
}

func (c *rawClient) hello(mode wire.SessionMode) (*wire.HelloReply, *wire.ErrorBody) {
	c.t.Helper()
	var rep wire.HelloReply
	eb := c.call(wire.CodeHello, 0, &wire.HelloRequest{ClientName: "rawtest", ClientVersion: "0", Mode: mode, ConsumerProtocol: wire.ConsumerProtocolV2}, &rep)
	if eb != nil {
		return nil, eb
	}
	return &rep, nil
}

// expectClosed asserts that the engine closes the connection without
// sending a single byte.
func (c *rawClient) expectClosed() {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(ioTimeout))
	var b [1]byte
	n, err := c.nc.Read(b[:])
	if n != 0 || err == nil {
		c.t.Fatalf("expected the connection closed without a reply, read %d bytes (err %v)", n, err)
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		c.t.Fatalf("connection still open after %v", ioTimeout)
	}
	if !errors.Is(err, io.EOF) && !isReset(err) {
		c.t.Fatalf("expected EOF, got %v", err)
	}
}

func isReset(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe)
}

// ---- engine helpers ----

func startEngine(t testing.TB, cfg Config) *Engine {
	t.Helper()
	if cfg.ElectionDelay == 0 {
		cfg.ElectionDelay = 200 * time.Millisecond
	}
	if cfg.Logf == nil {
		cfg.Logf = t.Logf
	}
	e, err := Start(cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// session dials addr and opens a session in mode, failing on refusal.
func openSession(t testing.TB, addr string, mode wire.SessionMode) *rawClient {
	t.Helper()
	c := dialRaw(t, addr)
	if _, eb := c.hello(mode); eb != nil {
		t.Fatalf("HELLO %s on %s refused: %s (%s)", modeName(mode), addr, eb.Name, eb.Tail)
	}
	return c
}

func leaderAddr(t testing.TB, e *Engine) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	l, err := e.WaitLeader(ctx)
	if err != nil {
		t.Fatalf("WaitLeader: %v", err)
	}
	return e.DataAddrs()[l-1]
}

func msgID(n int) []byte {
	id := make([]byte, wire.MsgIDLen)
	copy(id, "msg-")
	binary.BigEndian.PutUint64(id[8:], uint64(n))
	return id
}

func (c *rawClient) put(q string, n int, payload string) *wire.PutReply {
	c.t.Helper()
	var rep wire.PutReply
	c.mustCall(wire.CodePut, 0, &wire.PutRequest{Queue: q, MsgID: msgID(n), Payload: []byte(payload)}, &rep)
	return &rep
}

// get returns the next message, or nil on MIMQE_NO_MSG.
func (c *rawClient) get(q string, wait time.Duration) *wire.GetReply {
	c.t.Helper()
	var rep wire.GetReply
	eb := c.call(wire.CodeGet, uint32(wait/time.Millisecond), &wire.GetRequest{Queue: q}, &rep)
	if eb != nil {
		if eb.Name == wire.ErrNoMessage {
			return nil
		}
		c.t.Fatalf("GET %s: %s (%s)", q, eb.Name, eb.Tail)
	}
	return &rep
}

func (c *rawClient) commit() {
	c.t.Helper()
	c.mustCall(wire.CodeCommit, 0, &wire.Empty{}, nil)
}

func (c *rawClient) rollback() {
	c.t.Helper()
	c.mustCall(wire.CodeRollback, 0, &wire.Empty{}, nil)
}

// drain gets every message with no wait and returns the payloads.
func (c *rawClient) drain(q string) []string {
	c.t.Helper()
	var out []string
	for {
		m := c.get(q, 0)
		if m == nil {
			return out
		}
		out = append(out, string(m.Payload))
	}
}

func mustCreate(t testing.TB, e *Engine, q string) {
	t.Helper()
	if err := e.CreateQueue(q); err != nil {
		t.Fatal(err)
	}
}

func depth(t testing.TB, e *Engine, q string) int {
	t.Helper()
	d, err := e.QueueDepth(q)
	if err != nil {
		t.Fatalf("QueueDepth(%s): %v", q, err)
	}
	return d
}

// eventually waits up to ioTimeout for cond (ilinktest.Poll). A timeout
// also prints every goroutine's stack: it shows where the engine hangs.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !ilinktest.Poll(ioTimeout, cond) {
		buf := make([]byte, 1<<20)
		t.Fatalf("timed out after %v waiting for %s; goroutines:\n%s", ioTimeout, what, buf[:runtime.Stack(buf, true)])
	}
}

// partWaiters is how many waiters (acks=all produces, long-poll fetches)
// wait on partition part of topic.
func partWaiters(e *Engine, topic string, part int) int {
	t := e.topics.lookup(topic)
	if t == nil {
		return 0
	}
	p := t.partitions()[part]
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.waiters)
}

// electionsPending is how many partition elections are scheduled and
// have not run yet.
func electionsPending(e *Engine) int {
	ts := e.topics
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.timers)
}

func errText(eb *wire.ErrorBody) string {
	if eb == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%s (%s) hint %q", eb.Name, eb.Tail, eb.Hint)
}

// tryCall is call without test failures on I/O errors, for clients that
// live through failovers.
func (c *rawClient) tryCall(code wire.Code, timeoutMs uint32, req, resp wire.Message) (*wire.ErrorBody, error) {
	c.corr++
	h := wire.Header{Code: code, Corr: c.corr, TimeoutMs: timeoutMs}
	c.nc.SetWriteDeadline(time.Now().Add(ioTimeout))
	if _, err := c.nc.Write(wire.AppendFrame(nil, h, req.Encode)); err != nil {
		return nil, err
	}
	f, err := c.next()
	if err != nil {
		return nil, err
	}
	if f.hdr.Corr != c.corr {
		return nil, fmt.Errorf("corr %d, want %d", f.hdr.Corr, c.corr)
	}
	if f.hdr.IsError() {
		c.report = f.hdr.Status
		var eb wire.ErrorBody
		if err := wire.Decode(f.body, &eb); err != nil {
			return nil, err
		}
		return &eb, nil
	}
	if resp != nil {
		if err := wire.Decode(f.body, resp); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// dialLeader connects a queue session to the leader, following hints, or
// returns nil.
func dialLeader(addrs []string, mode wire.SessionMode) *rawClient {
	for _, a := range addrs {
		for hop := 0; hop < 2 && a != ""; hop++ {
			nc, err := net.DialTimeout("tcp", a, time.Second)
			if err != nil {
				break
			}
			c := &rawClient{t: nopTB{}, nc: nc, fr: wire.NewFrameReader(nc, wire.HardMaxFrame)}
			var rep wire.HelloReply
			eb, err := c.tryCall(wire.CodeHello, 0, &wire.HelloRequest{ClientName: "failover", Mode: mode}, &rep)
			if err == nil && eb == nil {
				return c
			}
			nc.Close()
			a = ""
			if eb != nil {
				a = eb.Hint
			}
		}
	}
	return nil
}

// nopTB satisfies testing.TB for clients used only through tryCall.
type nopTB struct{ testing.TB }

func (nopTB) Helper() {}

// ---- topic helpers ----

// batchOf builds one batch of values (no keys) with timestamps ts, ts+1,
// ... for producer pid (-1 = not idempotent) starting at sequence seq.
func batchOf(t testing.TB, pid int64, seq int32, codec wire.Codec, ts int64, values ...string) []byte {
	t.Helper()
	bb := wire.NewBatchBuilder(pid, 0, seq)
	if pid < 0 {
		bb = wire.NewBatchBuilder(-1, -1, -1)
	}
	for i, v := range values {
		bb.Append(ts+int64(i), nil, []byte(v), nil)
	}
	b, err := bb.Finish(codec)
	if err != nil {
		t.Fatalf("build batch: %v", err)
	}
	return b
}

// plainBatch is a non-idempotent uncompressed batch stamped now.
func plainBatch(t testing.TB, values ...string) []byte {
	return batchOf(t, -1, -1, wire.CodecNone, time.Now().UnixMilli(), values...)
}

func mustCreateTopic(t testing.TB, e *Engine, name, props string) {
	t.Helper()
	if err := e.CreateTopic(name, props); err != nil {
		t.Fatalf("CreateTopic(%s, %q): %v", name, props, err)
	}
}

// topicEpoch reads a topic's epoch from the Go API.
func topicEpoch(t testing.TB, e *Engine, name string) int32 {
	t.Helper()
	for _, ti := range e.Topics() {
		if ti.Name == name {
			return ti.Epoch
		}
	}
	t.Fatalf("topic %s not listed", name)
	return 0
}

// produceTo sends one produce for one partition and returns its result;
// timeoutMs is the acks=all wait.
func (c *rawClient) produceTo(topic string, epoch int32, acks int8, part int32, timeoutMs uint32, batches ...[]byte) wire.ProducePartitionResult {
	c.t.Helper()
	var blob []byte
	for _, b := range batches {
		blob = append(blob, b...)
	}
	req := &wire.ProduceRequest{Acks: acks, Topics: []wire.ProduceTopic{{Topic: topic, Epoch: epoch, Partitions: []wire.ProducePartition{{Partition: part, Batches: blob}}}}}
	var rep wire.ProduceReply
	c.mustCall(wire.CodeProduce, timeoutMs, req, &rep)
	if len(rep.Topics) != 1 || rep.Topics[0].Topic != topic || len(rep.Topics[0].Partitions) != 1 {
		c.t.Fatalf("produce reply shape: %+v", rep)
	}
	return rep.Topics[0].Partitions[0]
}

// mustProduce is produceTo (acks=1) that fails the test on a partition
// error and returns the base offset.
func (c *rawClient) mustProduce(topic string, epoch int32, part int32, batches ...[]byte) int64 {
	c.t.Helper()
	res := c.produceTo(topic, epoch, wire.AcksLeader, part, 0, batches...)
	if res.Err.Name != "" {
		c.t.Fatalf("produce %s/%d: %s (%s) hint %d", topic, part, res.Err.Name, res.Err.Tail, res.LeaderHint)
	}
	return res.BaseOffset
}

func (c *rawClient) initProducer() int64 {
	c.t.Helper()
	var rep wire.InitProducerReply
	c.mustCall(wire.CodeInitProducer, 0, &wire.InitProducerRequest{ClientName: "rawtest"}, &rep)
	return rep.ProducerID
}

func (c *rawClient) metadata(topics ...string) *wire.MetadataReply {
	c.t.Helper()
	req := &wire.MetadataRequest{}
	if len(topics) > 0 {
		req.Topics = topics
	}
	var rep wire.MetadataReply
	c.mustCall(wire.CodeMetadata, 0, req, &rep)
	return &rep
}

// fetchOne fetches one partition and returns its result.
func (c *rawClient) fetchOne(topic string, part int32, offset int64, minBytes, maxBytes int32, waitMs uint32) wire.FetchPartitionResult {
	c.t.Helper()
	req := &wire.FetchRequest{MinBytes: minBytes, MaxBytes: maxBytes, Topics: []wire.FetchTopic{{Topic: topic, Partitions: []wire.FetchPartition{{Partition: part, Offset: offset, MaxBytes: maxBytes}}}}}
	var rep wire.FetchReply
	c.mustCall(wire.CodeFetch, waitMs, req, &rep)
	if len(rep.Topics) != 1 || len(rep.Topics[0].Partitions) != 1 {
		c.t.Fatalf("fetch reply shape: %+v", rep)
	}
	return rep.Topics[0].Partitions[0]
}

// recordsOf decodes fetched batches and returns the values of the records
// at or after from, with their offsets.
func recordsOf(t testing.TB, batches []byte, from int64) (offsets []int64, values []string) {
	t.Helper()
	bs, err := wire.SplitBatches(batches)
	if err != nil {
		t.Fatalf("split fetched batches: %v", err)
	}
	for _, b := range bs {
		recs, err := wire.DecodeBatch(b, 0, nil)
		if err != nil {
			t.Fatalf("decode fetched batch: %v", err)
		}
		for _, r := range recs {
			if r.Offset >= from {
				offsets = append(offsets, r.Offset)
				values = append(values, string(r.Value))
			}
		}
	}
	return offsets, values
}

// readValues reads a whole partition through the Go API, once the high
// watermark has reached the leader's log end (ReadPartition reads only
// committed records, and acks=1 answers before the followers pulled).
func readValues(t testing.TB, e *Engine, topic string, p int) []string {
	t.Helper()
	recs := readRecords(t, e, topic, p)
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = string(r.Value)
	}
	return out
}

func partitionInfo(t testing.TB, e *Engine, topic string, p int) PartitionInfo {
	t.Helper()
	ps, err := e.TopicPartitions(topic)
	if err != nil {
		t.Fatalf("TopicPartitions(%s): %v", topic, err)
	}
	return ps[p]
}

// ---- group helpers ----

// groupConfig is a cluster with fast group timings.
func groupConfig() Config {
	return Config{HeartbeatInterval: 50 * time.Millisecond, CoordinatorLoadTime: 150 * time.Millisecond, ElectionDelay: 150 * time.Millisecond}
}

// groupOn returns a group name starting with prefix whose coordinator is
// node.
func groupOn(t testing.TB, e *Engine, node int, prefix string) string {
	t.Helper()
	for i := 0; i < 10000; i++ {
		g := fmt.Sprintf("%s-%d", prefix, i)
		if e.CoordinatorOf(g) == node {
			return g
		}
	}
	t.Fatalf("no group %s-* coordinated by node %d", prefix, node)
	return ""
}

// coordSession opens a consumer session on group's coordinator.
func coordSession(t testing.TB, e *Engine, group string) *rawClient {
	t.Helper()
	n := e.CoordinatorOf(group)
	if n == 0 {
		t.Fatalf("group %s has no coordinator", group)
	}
	return openSession(t, e.DataAddrs()[n-1], wire.ModeConsumer)
}

// failure is an error reply with its REPORT code, for comparisons.
type failure struct {
	report uint16
	text   string // NAME (tail)
}

func (c *rawClient) failure(eb *wire.ErrorBody) *failure {
	if eb == nil {
		return nil
	}
	text := eb.Name
	if eb.Tail != "" {
		text += " (" + eb.Tail + ")"
	}
	return &failure{c.report, text}
}

func (f *failure) String() string {
	if f == nil {
		return "<ok>"
	}
	return fmt.Sprintf("REPORT %d %s", f.report, f.text)
}

// join joins (member "" = new member) and returns the reply or the failure.
func (c *rawClient) join(group, member string, durable bool, topics ...string) (*wire.JoinGroupReply, *failure) {
	c.t.Helper()
	var rep wire.JoinGroupReply
	eb := c.call(wire.CodeJoinGroup, 0, &wire.JoinGroupRequest{Group: group, MemberID: member, ClientName: "rawtest", Host: "testhost", Topics: topics, Durable: durable}, &rep)
	if eb != nil {
		return nil, c.failure(eb)
	}
	return &rep, nil
}

func (c *rawClient) mustJoin(group, member string, durable bool, topics ...string) *wire.JoinGroupReply {
	c.t.Helper()
	rep, f := c.join(group, member, durable, topics...)
	if f != nil {
		c.t.Fatalf("JOIN %s as %q: %v", group, member, f)
	}
	return rep
}

func (c *rawClient) heartbeat(group string, j *wire.JoinGroupReply) *failure {
	c.t.Helper()
	return c.failure(c.call(wire.CodeHeartbeat, 0, &wire.MemberRequest{Group: group, MemberID: j.MemberID, Generation: j.Generation}, nil))
}

func (c *rawClient) leave(group string, j *wire.JoinGroupReply) *failure {
	c.t.Helper()
	return c.failure(c.call(wire.CodeLeaveGroup, 0, &wire.MemberRequest{Group: group, MemberID: j.MemberID, Generation: j.Generation}, nil))
}

// commitAs commits next-offsets as a member (j nil: outside membership).
func (c *rawClient) commitAs(group string, j *wire.JoinGroupReply, offs ...wire.OffsetEntry) (*wire.OffsetsReply, *failure) {
	c.t.Helper()
	req := &wire.OffsetCommitRequest{Group: group, Generation: -1, Offsets: offs}
	if j != nil {
		req.MemberID, req.Generation = j.MemberID, j.Generation
	}
	var rep wire.OffsetsReply
	if eb := c.call(wire.CodeOffsetCommit, 0, req, &rep); eb != nil {
		return nil, c.failure(eb)
	}
	return &rep, nil
}

func off(topic string, p int32, o int64) wire.OffsetEntry {
	return wire.OffsetEntry{Topic: topic, Partition: p, Offset: o}
}

// committed reads one commit with OFFSET FETCH (-1 = none).
func (c *rawClient) committed(group, topic string, p int32) int64 {
	c.t.Helper()
	var rep wire.OffsetsReply
	c.mustCall(wire.CodeOffsetFetch, 0, &wire.OffsetFetchRequest{Group: group, Topics: []wire.TopicPartitions{{Topic: topic, Partitions: []int32{p}}}}, &rep)
	if len(rep.Offsets) != 1 {
		c.t.Fatalf("OFFSET FETCH reply %+v", rep)
	}
	return rep.Offsets[0].Offset
}

// assigned returns the partitions of topic in an assignment.
func assigned(a []wire.TopicPartitions, topic string) []int32 {
	for _, tp := range a {
		if tp.Topic == topic {
			return tp.Partitions
		}
	}
	return nil
}

// describe reads a group through the Go API.
func describe(t testing.TB, e *Engine, group string) wire.GroupDescriptionReply {
	t.Helper()
	d, err := e.DescribeGroup(group)
	if err != nil {
		t.Fatalf("DescribeGroup(%s): %v", group, err)
	}
	return d
}

// groupRecords reads the records of a group's SYSTEM.GROUPS partition as
// "key=value" ("key=<nil>" for tombstones).
func groupRecords(t testing.TB, e *Engine, group string) []string {
	t.Helper()
	p := groupPartition(group, e.Config().GroupPartitions)
	var out []string
	for _, r := range readRecords(t, e, wire.GroupsTopic, p) {
		v := "<nil>"
		if r.Value != nil {
			v = string(r.Value)
		}
		out = append(out, string(r.Key)+"="+v)
	}
	return out
}

// readRecords reads a whole partition (see readValues).
func readRecords(t testing.TB, e *Engine, topic string, p int) []wire.Record {
	t.Helper()
	eventually(t, "high watermark at the log end", func() bool {
		pi := partitionInfo(t, e, topic, p)
		return pi.Leader != 0 && pi.HighWatermark == pi.EndOffset
	})
	start, _ := e.TopicOffsets(topic)
	recs, err := e.ReadPartition(topic, p, start[p], 0)
	if err != nil {
		t.Fatalf("ReadPartition(%s, %d): %v", topic, p, err)
	}
	return recs
}
