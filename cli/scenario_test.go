package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"ilinkdash/config"
	"ilinkdash/ilink"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/enginetest"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ui/common"
	"ilinkdash/ui/live"
	"ilinkdash/ui/views/overview"
)

// Health scenarios (issue 10) against the real engine. Each scenario sets
// up a known state through real clients, then judges it three ways at
// once, over the same window: `ilinkdash check`, `ilinkdash get groups
// --window -o json`, and the dashboard's overview fed by the live
// adapters. Each asserts the health word, the lag against the engine's
// own state (commits and log bounds read from the engine, not through the
// admin client), the overview's alert, the JSON fields, and check's exit
// code and first line.
//
// The health window is 2 s and the stall time 2 s (the context's health:
// block), so a scenario takes a few seconds.

const (
	scenWindow = 2 * time.Second
	scenPoll   = 200 * time.Millisecond
	// afterActLimit bounds how long the overview polls past its window
	// for two rounds after the scenario's action.
	afterActLimit = 10 * time.Second
)

type scenario struct {
	t       *testing.T
	e       *engine.Engine
	cfgPath string
	q       *admin.Qmgr
}

func newScenario(t *testing.T, nodes int) *scenario {
	t.Helper()
	t.Parallel()
	e := enginetest.Start(t, engine.Config{Nodes: nodes, ElectionDelay: 300 * time.Millisecond,
		CoordinatorLoadTime: 50 * time.Millisecond, HeartbeatInterval: 100 * time.Millisecond})
	s := &scenario{t: t, e: e}
	s.cfgPath = s.writeConfig(e.AdminAddrs()[0])
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	svc, err := admin.Connect(ctx, e.AdminAddrs()[0], admin.Options{ClientName: "scenario-setup"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close() })
	s.q = svc.AccessAdminQmgr("")
	return s
}

// writeConfig writes a config file whose current context targets admin
// with the scenario's health thresholds.
func (s *scenario) writeConfig(adminAddr string) string {
	var data []string
	if s.e != nil {
		data = s.e.DataAddrs()
	}
	path := filepath.Join(s.t.TempDir(), "config.yaml")
	yaml := fmt.Sprintf(`current-context: s
contexts:
  s:
    admin: %s
    addresses: [%s]
    refresh: {overview: 200ms, topics: 200ms, groups: 200ms, queues: 200ms}
    health: {window: %v, stall-after: %v, max-lag-warning: 10, max-lag-critical: 0}
`, adminAddr, strings.Join(data, ", "), scenWindow, scenWindow)
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		s.t.Fatal(err)
	}
	return path
}

// cli runs ilinkdash with args against the scenario's config file like
// Main does (the same output path and exit status) and returns stdout
// and the exit code.
func (s *scenario) cli(args ...string) (string, int) {
	a := newTestApp(s.t, nil)
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code, err := a.execute(ctx, append(args, "--config", s.cfgPath), strings.NewReader(""), &out, &errb)
	if errb.Len() > 0 {
		s.t.Logf("ilinkdash %v: exit %d, stderr %q, err %v", args, code, errb.String(), err)
	}
	return out.String(), code
}

// verdict is one judgement of a scenario, made three ways at once.
type verdict struct {
	checkCode  int
	checkFirst string
	checkOut   string
	groups     []groupJSON // get groups --window
	groupsCode int
	overview   string // the overview's last screen
	alerts     []overview.Alert
}

func (v verdict) group(name string) (groupJSON, bool) {
	for _, g := range v.groups {
		if g.Name == name {
			return g, true
		}
	}
	return groupJSON{}, false
}

// judge runs check, get groups and the overview over the same window;
// during (if any) runs a third of the way in. The overview starts first
// and check and get groups once it has polled every list once, so that
// all three have seen the state before the action even when connecting
// is slow on a loaded machine.
func (s *scenario) judge(checkArgs []string, during func()) verdict {
	var v verdict
	var wg sync.WaitGroup
	wg.Add(3)
	ready, acted := make(chan struct{}), make(chan struct{})
	go func() {
		defer wg.Done()
		v.overview, v.alerts = s.runOverview(scenWindow+4*scenPoll, ready, acted)
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		s.t.Error("the overview did not poll its lists once in 20s")
	}
	go func() {
		defer wg.Done()
		out, code := s.cli(append([]string{"check"}, checkArgs...)...)
		v.checkCode, v.checkOut = code, out
		v.checkFirst, _, _ = strings.Cut(out, "\n")
	}()
	go func() {
		defer wg.Done()
		out, code := s.cli("get", "groups", "--window", scenWindow.String(), "-o", "json")
		v.groupsCode = code
		if code == 0 {
			if err := json.Unmarshal([]byte(out), &v.groups); err != nil {
				s.t.Errorf("get groups output: %v\n%s", err, out)
			}
		}
	}()
	if during != nil {
		time.Sleep(scenWindow / 3) // a point in the window, not a wait for a condition
		during()
	}
	close(acted)
	wg.Wait()
	s.t.Logf("check (exit %d):\n%sget groups: %+v\noverview alerts: %+v", v.checkCode, v.checkOut, v.groups, v.alerts)
	return v
}

// runOverview drives the dashboard's overview as the root model does:
// the live adapters polled every scenPoll, the lists fanned out with their
// reply times, for d, and then on until two rounds of polls have started
// after acted closed (the scenario's action done): on a loaded machine
// the action can end late in the window, and the overview must have seen
// what it did. afterActLimit bounds that. It closes ready once it has
// polled every list once (or given up).
func (s *scenario) runOverview(d time.Duration, ready chan<- struct{}, acted <-chan struct{}) (string, []overview.Alert) {
	var readyOnce sync.Once
	markReady := func() { readyOnce.Do(func() { close(ready) }) }
	defer markReady()
	f, err := config.Load(s.cfgPath)
	if err != nil {
		s.t.Error(err)
		return "", nil
	}
	cfg, _ := f.Lookup("s")
	ctx := common.NewContext(cfg, false, nil)
	ctx.Mode = common.Plain
	ctx.Rebuild()
	ctx.Width, ctx.Height = 140, 40
	src, err := live.New(live.Config{AdminAddrs: []string{cfg.Admin}, DataAddrs: cfg.Addresses, ClientName: "scenario-overview"})
	if err != nil {
		s.t.Error(err)
		return "", nil
	}
	defer src.Close()
	ctx.Target = src.Target()
	ov := overview.New(ctx, nil)
	ov.SetSize(140, 37)
	fetch := map[common.ResID]func(context.Context) (any, error){
		common.ResSummary: func(c context.Context) (any, error) { return src.ClusterSummary(c) },
		common.ResTopics:  func(c context.Context) (any, error) { return src.ListTopics(c) },
		common.ResGroups:  func(c context.Context) (any, error) { return src.ListGroups(c) },
		common.ResQueues:  func(c context.Context) (any, error) { return src.ListQueues(c) },
	}
	// The root's polling cadence over the window d: what the scenario
	// plays, not a wait for a condition.
	roundsAfter := 0
	end, limit := time.Now().Add(d), time.Now().Add(d+afterActLimit)
	for ; time.Now().Before(end) || (roundsAfter < 2 && time.Now().Before(limit)); time.Sleep(scenPoll) {
		select {
		case <-acted:
			roundsAfter++
		default:
		}
		for _, r := range []common.ResID{common.ResSummary, common.ResTopics, common.ResGroups, common.ResQueues} {
			c, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			data, err := fetch[r](c)
			cancel()
			if err != nil {
				ov.Update(common.PollErrMsg{Res: r, At: time.Now(), Err: err})
				continue
			}
			ov.Update(common.DataMsg{Res: r, At: time.Now(), Data: data})
		}
		markReady()
	}
	return ansi.Strip(ov.View()), ov.Alerts()
}

// truth is a group's lag from the engine's own state: its commits and
// the partitions' log starts and high watermarks, read from the engine,
// with partitions without a commit counted from their log start.
func (s *scenario) truth(group string, topics ...string) (lag int64, noCommit int) {
	commits := s.e.GroupCommits(group)
	for _, tn := range topics {
		ps, err := s.e.TopicPartitions(tn)
		if err != nil {
			s.t.Fatal(err)
		}
		for _, p := range ps {
			if c, ok := commits[tn][p.Partition]; ok {
				lag += max(p.HighWatermark-c, 0)
			} else {
				lag += p.HighWatermark - p.StartOffset
				noCommit++
			}
		}
	}
	return lag, noCommit
}

// publish writes n records to topic and waits until every partition's
// high watermark reached its log end (the records are readable).
func (s *scenario) publish(topic string, n int) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := 0; i < n; i++ {
		if _, err := s.q.Publish(ctx, topic, []byte(fmt.Sprintf("k%d", i)), []byte("v")); err != nil {
			s.t.Fatal(err)
		}
	}
	var ps []engine.PartitionInfo
	if !ilinktest.Poll(20*time.Second, func() bool {
		var err error
		ps, err = s.e.TopicPartitions(topic)
		if err != nil {
			s.t.Fatal(err)
		}
		settled := true
		for _, p := range ps {
			settled = settled && p.HighWatermark == p.EndOffset
		}
		return settled
	}) {
		s.t.Fatalf("%s never settled: %+v", topic, ps)
	}
}

// bounds are a topic's log starts and high watermarks.
func (s *scenario) bounds(topic string) (start, end []int64) {
	ps, err := s.e.TopicPartitions(topic)
	if err != nil {
		s.t.Fatal(err)
	}
	for _, p := range ps {
		start, end = append(start, p.StartOffset), append(end, p.HighWatermark)
	}
	return start, end
}

func (s *scenario) subscribe(group, topic string, mode consumer.CommitMode) *consumer.Consumer {
	s.t.Helper()
	opt := consumer.NewOptions()
	opt.Group, opt.Commit, opt.ClientName = group, mode, "scenario-"+group
	opt.AutoCommitInterval = 100 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := consumer.Subscribe(ctx, strings.Join(s.e.DataAddrs(), ","), topic, opt)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { _ = c.Close() })
	return c
}

// readCommit reads n records and commits each.
func (s *scenario) readCommit(c *consumer.Consumer, n int) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := 0; i < n; i++ {
		r, err := c.Read(ctx, 10*time.Second)
		if err != nil {
			s.t.Fatal(err)
		}
		if err := c.Commit(ctx, r); err != nil {
			s.t.Fatal(err)
		}
	}
}

func (s *scenario) createTopic(name, props string) {
	s.t.Helper()
	if err := s.e.CreateTopic(name, props); err != nil {
		s.t.Fatal(err)
	}
}

// topicWithRecords creates topic (props) and publishes n records to it.
func (s *scenario) topicWithRecords(topic, props string, n int) {
	s.t.Helper()
	s.createTopic(topic, props)
	s.publish(topic, n)
}

// member subscribes to topic in group and reads and commits n records.
func (s *scenario) member(group, topic string, mode consumer.CommitMode, n int) *consumer.Consumer {
	s.t.Helper()
	c := s.subscribe(group, topic, mode)
	s.readCommit(c, n)
	return c
}

// groupAtEnd gives group, with no member, a commit at the end of every
// partition of topic.
func (s *scenario) groupAtEnd(group, topic string) {
	s.t.Helper()
	if _, err := s.q.SeekGroup(context.Background(), group, topic, admin.SeekTarget{Latest: true}); err != nil {
		s.t.Fatal(err)
	}
}

// waitMembers waits until the group list shows n members for group.
func (s *scenario) waitMembers(group string, n int) {
	s.t.Helper()
	if !ilinktest.Poll(20*time.Second, func() bool {
		for _, g := range s.e.Groups() {
			if g.Name == group && g.Members == n {
				return true
			}
		}
		return false
	}) {
		s.t.Fatalf("group %s never had %d members: %+v", group, n, s.e.Groups())
	}
}

// expect asserts one scenario's verdict on a group.
func (s *scenario) expect(v verdict, group, word string, lag int64, noCommit int, alert string, checkCode int, checkFirst string) {
	s.t.Helper()
	g, ok := v.group(group)
	switch {
	case !ok:
		s.t.Errorf("get groups lacks %s: %+v", group, v.groups)
	case g.Health != word:
		s.t.Errorf("get groups: %s is %s (%s), want %s", group, g.Health, g.HealthReason, word)
	case g.Lag == nil || *g.Lag != lag:
		s.t.Errorf("get groups: %s lag %v, the engine's truth is %d", group, g.Lag, lag)
	case g.PartitionsWithoutCommit != noCommit:
		s.t.Errorf("get groups: %s partitions_without_commit %d, want %d", group, g.PartitionsWithoutCommit, noCommit)
	}
	if (word == "STALLED") != (ok && g.StalledSince != nil) {
		s.t.Errorf("get groups: %s stalled_since %v for %s", group, g.StalledSince, word)
	}
	if ok && g.RatePerSec == nil {
		s.t.Errorf("get groups: %s has no rate over a window", group)
	}
	found := false
	for _, a := range v.alerts {
		found = found || strings.Contains(a.Text, alert)
	}
	if !found {
		s.t.Errorf("the overview has no alert %q:\n%s", alert, v.overview)
	}
	if v.checkCode != checkCode || v.checkFirst != checkFirst {
		s.t.Errorf("check: exit %d, %q; want exit %d, %q", v.checkCode, v.checkFirst, checkCode, checkFirst)
	}
}

// TestScenarioStopped: a durable group read 100 of 1,905 records and left.
// It was EMPTY with "nothing to report" before issue 10.
func TestScenarioStopped(t *testing.T) {
	s := newScenario(t, 3)
	s.topicWithRecords("S.T", "partitions=2", 1905)
	c := s.member("reader", "S.T", consumer.CommitManual, 100)
	_ = c.Close()
	s.waitMembers("reader", 0)
	lag, noCommit := s.truth("reader", "S.T")
	if lag < 1805 {
		t.Fatalf("truth: lag %d", lag)
	}
	v := s.judge([]string{"--groups", "reader"}, nil)
	s.expect(v, "reader", "STOPPED", lag, noCommit, "group reader stopped: no member since", 2, "CRITICAL: 1 group stopped")
	if strings.Contains(v.overview, "nothing to report") {
		t.Errorf("the overview says nothing to report:\n%s", v.overview)
	}
}

// TestScenarioStalled: a member that stays joined but stops committing.
func TestScenarioStalled(t *testing.T) {
	s := newScenario(t, 3)
	s.topicWithRecords("S.T", "partitions=1", 50)
	s.member("sleepy", "S.T", consumer.CommitManual, 1) // then nothing: the member heartbeats on
	s.publish("S.T", 10)
	lag, _ := s.truth("sleepy", "S.T")
	v := s.judge([]string{"--groups", "sleepy"}, nil)
	s.expect(v, "sleepy", "STALLED", lag, 0, "group sleepy stalled: lag", 2, "CRITICAL: 1 group stalled")
	if g, _ := v.group("sleepy"); g.RatePerSec == nil || *g.RatePerSec != 0 {
		t.Errorf("a stalled group's rate: %v", g.RatePerSec)
	}
}

// TestScenarioSlow: a member consuming about a fifth of what is produced,
// committing often: LAGGING (past the warning threshold of 10). Then both
// stop and the lag is checked against the engine's.
func TestScenarioSlow(t *testing.T) {
	s := newScenario(t, 3)
	s.topicWithRecords("S.T", "partitions=1", 20)
	c := s.subscribe("slow", "S.T", consumer.CommitAuto)
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // about 300 records/s
		defer wg.Done()
		p, err := ilink.NewProducer(ctx, strings.Join(s.e.DataAddrs(), ","), ilink.ProducerConfig{ClientName: "scenario-producer", LingerMs: 5})
		if err != nil {
			t.Error(err)
			return
		}
		defer p.Close()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for ctx.Err() == nil {
			<-tick.C
			for i := 0; i < 3; i++ {
				p.Send(&ilink.ProducerRecord{Topic: "S.T", Value: []byte("x")}, nil)
			}
		}
		_ = p.Flush(context.Background())
	}()
	go func() { // at most 60 records/s
		defer wg.Done()
		for ctx.Err() == nil {
			if _, err := c.Read(ctx, 200*time.Millisecond); err == nil {
				time.Sleep(time.Second / 60) // the slow consumer under test
			}
		}
	}()
	v := s.judge([]string{"--groups", "slow", "--max-lag", "10"}, nil)
	stop()
	wg.Wait()
	_ = c.Close() // commits what it read
	s.waitMembers("slow", 0)
	g, _ := v.group("slow")
	if g.Health != "LAGGING" || g.RatePerSec == nil || *g.RatePerSec <= 0 || *g.RatePerSec > 80 {
		t.Errorf("get groups: slow is %s (%s) at %v/s", g.Health, g.HealthReason, g.RatePerSec)
	}
	found := false
	for _, a := range v.alerts {
		found = found || strings.Contains(a.Text, "group slow lagging since")
	}
	if !found {
		t.Errorf("the overview has no lagging alert:\n%s", v.overview)
	}
	if v.checkCode != 1 || v.checkFirst != "WARNING: 1 group lagging" {
		t.Errorf("check: exit %d, %q", v.checkCode, v.checkFirst)
	}
	// Stopped now: the lag the list gives is the engine's.
	lag, _ := s.truth("slow", "S.T")
	out, code := s.cli("get", "groups", "-o", "json")
	var gs []groupJSON
	if err := json.Unmarshal([]byte(out), &gs); code != 0 || err != nil || len(gs) != 1 || gs[0].Lag == nil || *gs[0].Lag != lag || gs[0].Health != "STOPPED" {
		t.Errorf("after stopping: %v %v %s; truth %d", code, err, out, lag)
	}
}

// TestScenarioSomePartitionsCommitted: commits on one partition of two,
// the other flushed once so its log starts past 0: the partition without a
// commit counts from its log start (legacy-export's LAG 95 when 386 were
// unread, before issue 10).
func TestScenarioSomePartitionsCommitted(t *testing.T) {
	s := newScenario(t, 3)
	s.topicWithRecords("S.T", "partitions=2", 200)
	if err := s.e.FlushTopic("S.T"); err != nil {
		t.Fatal(err)
	}
	s.publish("S.T", 300)
	start, end := s.bounds("S.T")
	if start[1] == 0 || end[1] <= start[1] {
		t.Fatalf("log bounds %v %v", start, end)
	}
	// A commit on partition 0 only, by a consumer assigned that partition.
	opt := consumer.NewOptions()
	opt.Group, opt.Commit = "partial", consumer.CommitManual
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := consumer.Assign(ctx, strings.Join(s.e.DataAddrs(), ","), "S.T", []int32{0}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CommitOffset(ctx, "S.T", 0, end[0]-6); err != nil { // stores end-5
		t.Fatal(err)
	}
	_ = c.Close()
	lag, noCommit := s.truth("partial", "S.T")
	if noCommit != 1 || lag != 5+end[1]-start[1] {
		t.Fatalf("truth: lag %d, %d without commit (bounds %v %v, commits %v)", lag, noCommit, start, end, s.e.GroupCommits("partial"))
	}
	v := s.judge([]string{"--groups", "partial"}, nil)
	s.expect(v, "partial", "STOPPED", lag, 1, "group partial stopped: no member since", 2, "CRITICAL: 1 group stopped")
	// describe group -o json: every partition, the one without a commit
	// flagged, with its log start, never -1.
	out, code := s.cli("describe", "group", "partial", "-o", "json")
	var d groupDescJSON
	if err := json.Unmarshal([]byte(out), &d); code != 0 || err != nil || len(d.Offsets) != 2 {
		t.Fatalf("describe: %d %v\n%s", code, err, out)
	}
	p1 := d.Offsets[1]
	if p1.Committed != nil || !p1.NoCommit || p1.LogStart == nil || *p1.LogStart != start[1] || p1.Lag == nil || *p1.Lag != end[1]-start[1] || d.Lag == nil || *d.Lag != lag {
		t.Errorf("describe: %+v", d)
	}
	if strings.Contains(out, "-1") {
		t.Errorf("describe shows -1:\n%s", out)
	}
	// The seek preview to the end skips exactly the lag.
	out, _ = s.cli("group", "seek", "partial", "--to", "latest", "-o", "json")
	var plan seekJSON
	if err := json.Unmarshal([]byte(out), &plan); err != nil || plan.Skip != lag {
		t.Errorf("seek to latest skips %d, the lag is %d (%v)", plan.Skip, lag, err)
	}
}

// TestScenarioRewound: a group with no member whose commits an operator
// moves back to the start in the middle of the window.
func TestScenarioRewound(t *testing.T) {
	s := newScenario(t, 3)
	s.topicWithRecords("S.T", "partitions=1", 400)
	s.groupAtEnd("replay", "S.T")
	v := s.judge([]string{"--groups", "replay"}, func() {
		if _, err := s.q.SeekGroup(context.Background(), "replay", "S.T", admin.SeekTarget{Earliest: true}); err != nil {
			t.Error(err)
		}
	})
	lag, _ := s.truth("replay", "S.T")
	if lag != 400 {
		t.Fatalf("truth %d", lag)
	}
	s.expect(v, "replay", "REWOUND", lag, 0, "group replay rewound at", 1, "WARNING: 1 group rewound")
	if g, _ := v.group("replay"); !strings.Contains(g.HealthReason, "moved back from 400 to 0") {
		t.Errorf("reason %q", g.HealthReason)
	}
}

// TestScenarioGrownTopic: a topic grows from 2 to 4 partitions under a
// group that caught up and left; the new partitions have records and no
// commit: they count (from their log start), and the group is STOPPED,
// not EMPTY.
func TestScenarioGrownTopic(t *testing.T) {
	s := newScenario(t, 3)
	s.topicWithRecords("S.T", "partitions=2", 40)
	s.groupAtEnd("grown", "S.T")
	if l, _ := s.truth("grown", "S.T"); l != 0 {
		t.Fatalf("not caught up: %d", l)
	}
	if err := s.e.AlterTopic("S.T", "partitions=4"); err != nil {
		t.Fatal(err)
	}
	s.publish("S.T", 80)
	start, end := s.bounds("S.T")
	if len(end) != 4 || end[2]-start[2]+end[3]-start[3] == 0 {
		t.Fatalf("new partitions hold nothing: %v %v", start, end)
	}
	lag, noCommit := s.truth("grown", "S.T")
	v := s.judge([]string{"--groups", "grown"}, nil)
	s.expect(v, "grown", "STOPPED", lag, noCommit, "group grown stopped", 2, "CRITICAL: 1 group stopped")
	if noCommit != 2 {
		t.Errorf("truth: %d partitions without a commit, want the 2 new ones", noCommit)
	}
}

// TestScenarioNodeKill: a node dies (not the one the admin connection is
// on, not the leader): node down in the overview and in check.
func TestScenarioNodeKill(t *testing.T) {
	s := newScenario(t, 3)
	s.topicWithRecords("S.T", "partitions=3,replicas=3", 30)
	s.groupAtEnd("kept", "S.T")
	victim := 3
	if s.e.Leader() == victim {
		victim = 2
	}
	if err := s.e.KillNode(victim); err != nil {
		t.Fatal(err)
	}
	v := s.judge(nil, nil)
	// The group's coordinator may have been on the dead node: read the
	// truth once a coordinator holds the group again.
	ilinktest.Poll(20*time.Second, func() bool { return s.e.GroupCommits("kept") != nil })
	lag, noCommit := s.truth("kept", "S.T")
	g, ok := v.group("kept")
	if !ok || g.Health != "EMPTY" || g.Lag == nil || *g.Lag != lag || g.PartitionsWithoutCommit != noCommit {
		t.Errorf("get groups: %+v (truth %d)", g, lag)
	}
	want := fmt.Sprintf("node %d (QM1) down since", victim)
	found := false
	for _, a := range v.alerts {
		found = found || strings.Contains(a.Text, want)
	}
	if !found {
		t.Errorf("the overview has no %q:\n%s", want, v.overview)
	}
	if v.checkCode != 2 || !strings.HasPrefix(v.checkFirst, "CRITICAL: 1 node down") {
		t.Errorf("check: exit %d, %q", v.checkCode, v.checkFirst)
	}
	if !strings.Contains(v.checkOut, fmt.Sprintf("CRITICAL node %d (QM1) down since", victim)) {
		t.Errorf("check lines:\n%s", v.checkOut)
	}
}

// TestScenarioUnreachable: --admin 127.0.0.1:1. The overview showed
// "connecting…" and "nothing to report" before issue 10.
func TestScenarioUnreachable(t *testing.T) {
	t.Parallel()
	s := &scenario{t: t}
	s.cfgPath = s.writeConfig("127.0.0.1:1")
	v := s.judge(nil, nil)
	if v.checkCode != 3 || v.checkFirst != "UNKNOWN: cannot reach 127.0.0.1:1 (context s): connect: connection refused" {
		t.Errorf("check: exit %d, %q", v.checkCode, v.checkFirst)
	}
	if v.groupsCode != 1 || v.groups != nil {
		t.Errorf("get groups: exit %d, %+v", v.groupsCode, v.groups)
	}
	if !strings.Contains(v.overview, "✖ cannot reach 127.0.0.1:1: connect: connection refused (for ") ||
		!strings.Contains(v.overview, "not connected: cannot reach 127.0.0.1:1") || strings.Contains(v.overview, "nothing to report") {
		t.Errorf("overview:\n%s", v.overview)
	}
	// JSON too.
	out, code := s.cli("check", "-o", "json")
	var cj checkJSON
	if err := json.Unmarshal([]byte(out), &cj); err != nil || code != 3 || cj.Status != "UNKNOWN" || cj.ExitCode != 3 ||
		!strings.HasPrefix(cj.Summary, "UNKNOWN: cannot reach 127.0.0.1:1 (context s)") || cj.Target != "127.0.0.1:1" {
		t.Errorf("check -o json: %d %v %+v", code, err, cj)
	}
}

// TestScenarioEngineKilled: the whole engine goes away in the middle of
// the window: check is UNKNOWN, the overview says it cannot reach the
// cluster and stops saying nothing is wrong.
func TestScenarioEngineKilled(t *testing.T) {
	s := newScenario(t, 3)
	s.createTopic("S.T", "partitions=1")
	v := s.judge(nil, func() { _ = s.e.Close() })
	if v.checkCode != 3 || !strings.HasPrefix(v.checkFirst, "UNKNOWN: cannot reach "+s.e.AdminAddrs()[0]+" (context s)") {
		t.Errorf("check: exit %d, %q", v.checkCode, v.checkFirst)
	}
	if v.groupsCode == 0 {
		t.Errorf("get groups --window succeeded against a dead engine: %+v", v.groups)
	}
	if !strings.Contains(v.overview, "✖ cannot reach "+s.e.AdminAddrs()[0]) || !strings.Contains(v.overview, ", data from ") ||
		strings.Contains(v.overview, "nothing to report") {
		t.Errorf("overview:\n%s", v.overview)
	}
}

// TestCheckUsageIsUnknown: a bad invocation of check exits 3 (UNKNOWN)
// with the status line on stdout, not the usage status 2 of the other
// commands (2 would read as CRITICAL to a monitoring agent).
func TestCheckUsageIsUnknown(t *testing.T) {
	t.Parallel()
	s := &scenario{t: t}
	s.cfgPath = s.writeConfig("127.0.0.1:1")
	for _, tc := range []cliCase{
		{[]string{"check", "--window", "0s"}, "UNKNOWN: --window 0s: must be positive"},
		{[]string{"check", "--max-lag", "-5"}, "UNKNOWN: --max-lag -5: must not be negative"},
		{[]string{"check", "--stall-after", "0s"}, "UNKNOWN: --stall-after 0s: must be positive"},
		{[]string{"check", "-o", "yaml"}, `UNKNOWN: -o "yaml": want text or json`},
		{[]string{"check", "--groups", "a[", "--window", "1s"}, `UNKNOWN: --groups "a[": bad pattern`},
		{[]string{"check", "--bogus"}, "UNKNOWN: unknown flag: --bogus"},
		// A value that does not parse is said as every command says it, never strconv's words.
		{[]string{"check", "--max-lag", "abc"}, `UNKNOWN: --max-lag "abc": want a whole number` + "\n"},
		{[]string{"check", "--window", "5x"}, `UNKNOWN: --window "5x": want a duration such as 500ms, 30s, 5m or 1h30m` + "\n"},
		{[]string{"check", "extra"}, `UNKNOWN: unexpected argument "extra"`},
	} {
		out, code := s.cli(tc.args...)
		if code != 3 || !strings.HasPrefix(out, tc.want) {
			t.Errorf("%v: exit %d, %q; want 3, %q", tc.args, code, out, tc.want)
		}
	}
}

// TestCheckHelpSaysTheDefaults: --max-lag's default is the context's
// health.max-lag-warning, as its help says; not a -1 of its own.
func TestCheckHelpSaysTheDefaults(t *testing.T) {
	res := runCLIResult(t, "", "check", "--help")
	if res.code != 0 || !strings.Contains(res.stdout, "(default: the context's health.max-lag-warning)\n") || strings.Contains(res.stdout, "(default -1)") {
		t.Fatalf("check --help: exit %d\n%s", res.code, res.stdout)
	}
}

// TestCheckOKAndGroupPatterns: a healthy cluster is OK (exit 0, the
// summary of what was judged); --groups takes names and globs, a named
// group the cluster does not know is DEAD (CRITICAL), a glob matching
// nothing is UNKNOWN.
func TestCheckOKAndGroupPatterns(t *testing.T) {
	s := newScenario(t, 1)
	s.topicWithRecords("S.T", "partitions=1", 5)
	for _, g := range []string{"pay-1", "pay-2", "other"} {
		s.groupAtEnd(g, "S.T")
	}
	// The four checks judge the same state: run them at once (each spans
	// the stall time, 2 s).
	runs := [][]string{
		{"check", "--window", "300ms"},
		{"check", "--window", "300ms", "--groups", "pay-*", "-o", "json"},
		{"check", "--window", "300ms", "--groups", "pay-1,billing"},
		{"check", "--window", "300ms", "--groups", "nothing-*"},
	}
	outs, codes := make([]string, len(runs)), make([]int, len(runs))
	var wg sync.WaitGroup
	for i, args := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], codes[i] = s.cli(args...)
		}()
	}
	wg.Wait()
	if codes[0] != 0 || !strings.HasPrefix(outs[0], "OK: 1 node, 1 topic, 3 groups, 0 queues judged over 300ms, stalls over 2s\n") {
		t.Errorf("healthy: exit %d\n%s", codes[0], outs[0])
	}
	var cj checkJSON
	if err := json.Unmarshal([]byte(outs[1]), &cj); err != nil || codes[1] != 0 || cj.Status != "OK" || len(cj.Groups) != 2 || cj.Groups[0].Name != "pay-1" {
		t.Errorf("pay-*: exit %d %v %+v", codes[1], err, cj)
	}
	if codes[2] != 2 || outs[2] != "CRITICAL: 1 group unknown\nCRITICAL group billing is unknown to the cluster\n" {
		t.Errorf("a missing group: exit %d\n%s", codes[2], outs[2])
	}
	if codes[3] != 3 || outs[3] != "UNKNOWN: no group matches \"nothing-*\"\n" {
		t.Errorf("a glob matching nothing: exit %d\n%s", codes[3], outs[3])
	}
}
