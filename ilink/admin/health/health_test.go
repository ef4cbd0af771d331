package health

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
)

func part(topic string, p int32, committed, start, end int64) admin.PartitionOffsets {
	return admin.PartitionOffsets{Topic: topic, Partition: p, Committed: committed, LogStart: start, End: end}
}

func group(name string, state admin.GroupState, members int, parts ...admin.PartitionOffsets) admin.GroupInfo {
	g := admin.GroupInfo{Name: name, State: state, Members: members, Durable: true, Partitions: parts}
	for _, p := range parts {
		if len(g.Topics) == 0 || g.Topics[len(g.Topics)-1] != p.Topic {
			g.Topics = append(g.Topics, p.Topic)
		}
	}
	return g
}

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// feed observes one group at times every 2 s from 0, its partitions given
// by fn(i), and returns the last status.
func feed(m *Monitor, n int, fn func(i int) admin.GroupInfo) GroupStatus {
	var st GroupStatus
	for i := 0; i < n; i++ {
		st = m.ObserveGroups([]admin.GroupInfo{fn(i)}, at(float64(2*i)))[0]
	}
	return st
}

func alertOf(m *Monitor, k Kind) (Alert, bool) {
	for _, a := range m.Alerts() {
		if a.Kind == k {
			return a, true
		}
	}
	return Alert{}, false
}

func TestWords(t *testing.T) {
	const stable = admin.GroupStable
	for _, tc := range []struct {
		name   string
		n      int // observations, 2 s apart
		fn     func(i int) admin.GroupInfo
		want   Word
		since  time.Time
		reason string
	}{
		{"dead", 1, func(int) admin.GroupInfo { return group("g", admin.GroupDead, 0) }, Dead, time.Time{}, "unknown"},
		{"rebalancing", 8, func(i int) admin.GroupInfo {
			return group("g", admin.GroupPreparingRebalance, 2, part("T", 0, 10, 0, int64(100+i*50)))
		}, Rebalancing, time.Time{}, "PreparingRebalance"},
		{"stopped: no member, unread records", 1, func(int) admin.GroupInfo {
			return group("g", admin.GroupEmpty, 0, part("T", 0, 100, 0, 1905))
		}, Stopped, at(0), "1,805 records unread"},
		{"stopped counts partitions without a commit", 1, func(int) admin.GroupInfo {
			return group("g", admin.GroupEmpty, 0, part("T", 0, 50, 0, 50), part("T", 1, -1, 20, 406))
		}, Stopped, at(0), "386 records unread"},
		{"empty: no member, caught up", 3, func(int) admin.GroupInfo {
			return group("g", admin.GroupEmpty, 0, part("T", 0, 50, 0, 50), part("T", 1, -1, 7, 7))
		}, Empty, time.Time{}, "nothing unread"},
		{"caught up at once", 1, func(int) admin.GroupInfo { return group("g", stable, 1, part("T", 0, 50, 0, 50)) }, OK, time.Time{}, "caught up"},
		{"lag but too little history", 3, func(i int) admin.GroupInfo {
			return group("g", stable, 1, part("T", 0, int64(10+i*40), 0, int64(100+i*40)))
		}, Unknown, time.Time{}, "judging"},
		{"stalled: members, commit never moves", 6, func(i int) admin.GroupInfo {
			return group("g", stable, 1, part("T", 0, 10, 0, int64(100+i*40)))
		}, Stalled, at(0), "no commit advanced on 1 partition"},
		{"stalled: a partition never committed", 6, func(i int) admin.GroupInfo {
			return group("g", stable, 1, part("T", 0, int64(100+i*40), 0, int64(100+i*40)), part("T", 1, -1, 0, int64(30+i)))
		}, Stalled, at(0), "no commit advanced on 1 partition"},
		{"stalled since the last advance", 12, func(i int) admin.GroupInfo {
			c := int64(10 + min(i, 3)*40) // advances at 2, 4 and 6 s, then stops
			return group("g", stable, 1, part("T", 0, c, 0, int64(200+i*40)))
		}, Stalled, at(6), "no commit advanced"},
		{"caught up once in the window is OK", 6, func(i int) admin.GroupInfo {
			if i == 2 {
				return group("g", stable, 1, part("T", 0, 100, 0, 100))
			}
			return group("g", stable, 1, part("T", 0, 100, 0, int64(100+i*5)))
		}, OK, time.Time{}, ""},
		{"lagging: commits advance, lag grows", 12, func(i int) admin.GroupInfo {
			return group("g", stable, 1, part("T", 0, int64(i*100), 0, int64(50+i*300)))
		}, Lagging, at(6), "lag grew on 1 partition"}, // by 3 commits the growth exceeds the timing uncertainty
		{"draining is OK", 12, func(i int) admin.GroupInfo {
			return group("g", stable, 1, part("T", 0, int64(i*300), 0, int64(5000+i*100)))
		}, OK, time.Time{}, "without falling behind"},
		{"rewound: a commit moved back", 4, func(i int) admin.GroupInfo {
			c := []int64{500, 600, 100, 150}[i]
			return group("g", stable, 1, part("T", 0, c, 0, 1000))
		}, Rewound, at(4), "T/0 moved back from 600 to 100"},
		{"rewound while empty beats stopped", 2, func(i int) admin.GroupInfo {
			return group("g", admin.GroupEmpty, 0, part("T", 0, []int64{900, 0}[i], 0, 1000))
		}, Rewound, at(2), "from 900 to 0"},
		{"rewound clears after the window", 9, func(i int) admin.GroupInfo {
			c := []int64{500, 600, 100, 150, 200, 250, 300, 350, 400}[i]
			return group("g", stable, 1, part("T", 0, c, 0, int64(450+i*5)))
		}, OK, time.Time{}, ""},
		{"unknown lag (no leader) is not judged", 8, func(i int) admin.GroupInfo {
			return group("g", stable, 1, part("T", 0, -1, -1, 100))
		}, Unknown, time.Time{}, "no leader"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(DefaultConfig())
			st := feed(m, tc.n, tc.fn)
			if st.Word != tc.want {
				t.Fatalf("word %v (%s), want %v", st.Word, st.Reason, tc.want)
			}
			if !tc.since.IsZero() && !st.Since.Equal(tc.since) {
				t.Errorf("since %v, want %v", st.Since.Format("15:04:05"), tc.since.Format("15:04:05"))
			}
			if !strings.Contains(st.Reason, tc.reason) {
				t.Errorf("reason %q, want it to contain %q", st.Reason, tc.reason)
			}
			if (st.Word == Stalled) != !st.StalledSince.IsZero() {
				t.Errorf("stalled since %v for %v", st.StalledSince, st.Word)
			}
		})
	}
}

// TestUnknownUntilTheWindowIsCovered: a group with members and unread
// records is not OK before its history covers the window.
func TestUnknownUntilTheWindowIsCovered(t *testing.T) {
	m := New(DefaultConfig())
	for i := 0; i <= 6; i++ {
		st := m.ObserveGroups([]admin.GroupInfo{group("g", admin.GroupStable, 1,
			part("T", 0, int64(i*100), 0, int64(i*100+30)))}, at(float64(2*i)))[0]
		want := Unknown
		if 2*i >= 10 {
			want = OK
		}
		if st.Word != want {
			t.Fatalf("after %ds: %v (%s), want %v", 2*i, st.Word, st.Reason, want)
		}
	}
}

func TestRateComesFromCommitsOnly(t *testing.T) {
	// One partition consumed at 50/s, one never committed whose end grows
	// fast: the rate is 50/s (the old estimate, Σend − lag, counted the
	// growth of the partition without a commit as consumption).
	m := New(DefaultConfig())
	st := feed(m, 6, func(i int) admin.GroupInfo {
		return group("g", admin.GroupStable, 1, part("T", 0, int64(i*100), 0, int64(i*100+5)), part("T", 1, -1, 0, int64(i*1000)))
	})
	if st.Rate != 50 {
		t.Fatalf("rate %v, want 50", st.Rate)
	}
	if st.Lag != (admin.LagTotal{Records: 5 + 5000, Partitions: 2, NoCommit: 1}) {
		t.Fatalf("lag %+v", st.Lag)
	}
	// A single observation has no rate.
	if st := New(DefaultConfig()).ObserveGroups([]admin.GroupInfo{group("g", admin.GroupStable, 1, part("T", 0, 1, 0, 2))}, t0)[0]; st.Rate != -1 {
		t.Fatalf("rate of one observation: %v", st.Rate)
	}
}

// TestGroupAlerts: the words that raise alerts, their level, since-when
// and lag, and an alert lasting exactly as long as its condition.
func TestGroupAlerts(t *testing.T) {
	m := New(DefaultConfig())
	obs := func(s float64, gs ...admin.GroupInfo) { m.ObserveGroups(gs, at(s)) }
	stopped := group("legacy", admin.GroupEmpty, 0, part("T", 0, 100, 0, 2005))
	stalled := func(i int) admin.GroupInfo {
		return group("arch", admin.GroupStable, 1, part("A", 0, 10, 0, int64(100+i*10)))
	}
	lagging := func(i int) admin.GroupInfo {
		return group("slow", admin.GroupStable, 1, part("O", 0, int64(i*100), 0, int64(900+i*300)))
	}
	for i := 0; i < 12; i++ {
		obs(float64(2*i), stopped, stalled(i), lagging(i), group("fine", admin.GroupStable, 1, part("O", 1, 5, 0, 5)))
	}
	got := map[Kind]Alert{}
	for _, a := range m.Alerts() {
		got[a.Kind] = a
	}
	if a := got[KindGroupStopped]; a.Level != LevelCritical || a.Subject != "legacy" || a.Lag != 1905 || !a.Since.Equal(t0) || !a.SinceEarlier ||
		a.Text != "group legacy stopped: no member since 10:00:00 or earlier, lag 1,905" {
		t.Errorf("stopped: %+v", a)
	}
	if a := got[KindGroupStalled]; a.Level != LevelCritical || a.Lag != 200 ||
		a.Text != "group arch stalled: lag 200, no commit advanced since 10:00:00 or earlier" {
		t.Errorf("stalled: %+v", a)
	}
	// slow: lag 900+2200·… grows past the warning threshold (1,000).
	if a := got[KindGroupLagging]; a.Level != LevelWarning || a.Subject != "slow" || !strings.HasPrefix(a.Text, "group slow lagging since 10:00:") ||
		!strings.Contains(a.Text, "lag 3,100 (+") {
		t.Errorf("lagging: %+v", a)
	}
	if len(got) != 3 {
		t.Errorf("alerts %v", m.Alerts())
	}
	// Conditions clear: legacy gets a member and catches up; the alert
	// goes with its condition, the others stay.
	obs(24, group("legacy", admin.GroupStable, 1, part("T", 0, 2005, 0, 2005)), stalled(12), lagging(12))
	if _, ok := alertOf(m, KindGroupStopped); ok {
		t.Error("the stopped alert outlived its condition")
	}
	if _, ok := alertOf(m, KindGroupStalled); !ok {
		t.Error("the stalled alert went while arch is still stalled")
	}
	// Lagging past the critical threshold is critical.
	m2 := New(Config{MaxLagWarning: 10, MaxLagCritical: 2000})
	for i := 0; i < 12; i++ {
		m2.ObserveGroups([]admin.GroupInfo{lagging(i)}, at(float64(2*i)))
	}
	if a, ok := alertOf(m2, KindGroupLagging); !ok || a.Level != LevelCritical {
		t.Errorf("lagging past critical: %+v", a)
	}
	// Below the warning threshold LAGGING raises nothing.
	m3 := New(Config{MaxLagWarning: 1_000_000})
	for i := 0; i < 12; i++ {
		m3.ObserveGroups([]admin.GroupInfo{lagging(i)}, at(float64(2*i)))
	}
	if g, _ := m3.Group("slow"); g.Word != Lagging || len(m3.Alerts()) != 0 {
		t.Errorf("below the threshold: %v, alerts %v", g.Word, m3.Alerts())
	}
}

func TestClusterAlerts(t *testing.T) {
	m := New(Config{QueueDepth: 100})
	nodes := func(down bool, leader bool) []admin.NodeInfo {
		ns := []admin.NodeInfo{{ID: 1, QueueManager: "QM1", Role: admin.RoleFollower, State: admin.NodeRunning},
			{ID: 2, QueueManager: "QM1", Role: admin.RoleFollower, State: admin.NodeRunning}}
		if leader {
			ns[1].Role = admin.RoleLeader
		}
		if down {
			ns[0].State = admin.NodeDown
		}
		return ns
	}
	m.ObserveNodes(nodes(false, true), at(0))
	if len(m.Alerts()) != 0 {
		t.Fatalf("healthy nodes: %v", m.Alerts())
	}
	m.ObserveNodes(nodes(true, true), at(2))
	m.ObserveNodes(nodes(true, false), at(4))
	if a, ok := alertOf(m, KindNodeDown); !ok || a.Level != LevelCritical || a.Text != "node 1 (QM1) down since 10:00:02" {
		t.Errorf("node down: %+v", a)
	}
	if a, ok := alertOf(m, KindNoLeader); !ok || !a.Since.Equal(at(4)) {
		t.Errorf("no leader: %+v", a)
	}
	m.ObserveNodes(nodes(false, true), at(6))
	if len(m.Alerts()) != 0 {
		t.Errorf("recovered: %v", m.Alerts())
	}

	m.ObserveTopics([]admin.TopicInfo{{Name: "A", Offline: 2, UnderReplicated: 2}, {Name: "B", UnderReplicated: 1}, {Name: "C"}}, at(8))
	if a, ok := alertOf(m, KindOffline); !ok || a.Level != LevelCritical || a.Text != "2 partitions offline (no leader) in A since 10:00:08" {
		t.Errorf("offline: %+v", a)
	}
	if a, ok := alertOf(m, KindUnderReplicated); !ok || a.Level != LevelWarning || a.Text != "3 partitions under-replicated in A, B since 10:00:08" {
		t.Errorf("under-replicated: %+v", a)
	}
	m.ObserveTopics([]admin.TopicInfo{{Name: "A"}, {Name: "B"}}, at(10))
	if len(m.Alerts()) != 0 {
		t.Errorf("topics recovered: %v", m.Alerts())
	}

	// Queues: over the depth limit, full, and dead-letter queues (named by
	// another queue's property, or by their name) growing.
	qs := func(depth, dlq, named int64) []admin.QueueInfo {
		return []admin.QueueInfo{
			{Name: "ORDER.Q", Depth: depth, Property: admin.QueueProperty{MaxDepth: 500, DeadLetterQueue: "ORDER.FAILED"}},
			{Name: "ORDER.FAILED", Depth: named},
			{Name: "PAY.DLQ", Depth: dlq},
			{Name: "QUIET", Depth: 7},
		}
	}
	m.ObserveQueues(qs(50, 3, 0), at(12))
	if len(m.Alerts()) != 0 {
		t.Fatalf("first queue list: %v", m.Alerts())
	}
	m.ObserveQueues(qs(150, 5, 1), at(14))
	m.ObserveQueues(qs(150, 6, 1), at(16))
	want := map[string]string{
		"ORDER.Q":      "queue ORDER.Q depth 150 over the limit 100 since 10:00:14",
		"PAY.DLQ":      "dead-letter queue PAY.DLQ growing: depth 6 (+3 since 10:00:14)",
		"ORDER.FAILED": "dead-letter queue ORDER.FAILED growing: depth 1 (+1 since 10:00:14)",
	}
	as := m.Alerts()
	if len(as) != len(want) {
		t.Fatalf("queue alerts %v", as)
	}
	for _, a := range as {
		if want[a.Subject] != a.Text || a.Level != LevelWarning {
			t.Errorf("alert %+v, want %q", a, want[a.Subject])
		}
	}
	m.ObserveQueues(qs(500, 6, 1), at(18))
	if a, ok := alertOf(m, KindQueueFull); !ok || a.Level != LevelCritical || !strings.Contains(a.Text, "puts are refused") {
		t.Errorf("full: %+v", a)
	}
	// A DLQ that stopped growing stays an alert for the DLQ window, then
	// clears; one drained clears at once.
	m.ObserveQueues(qs(10, 6, 0), at(16+5*60))
	if _, ok := alertOf(m, KindDLQGrowing); !ok {
		t.Error("the DLQ alert cleared within the DLQ window")
	}
	m.ObserveQueues(qs(10, 6, 0), at(17+5*60))
	if as := m.Alerts(); len(as) != 0 {
		t.Errorf("after the DLQ window: %v", as)
	}
}

func TestSummary(t *testing.T) {
	if l, s := Summary(nil, "3 nodes, 7 groups"); l != LevelOK || s != "OK: 3 nodes, 7 groups" {
		t.Errorf("%v %q", l, s)
	}
	as := []Alert{{Level: LevelWarning, Kind: KindGroupLagging}, {Level: LevelCritical, Kind: KindGroupStopped},
		{Level: LevelCritical, Kind: KindNodeDown}, {Level: LevelCritical, Kind: KindGroupStopped}}
	if l, s := Summary(as, ""); l != LevelCritical || s != "CRITICAL: 1 node down, 2 groups stopped, 1 group lagging" {
		t.Errorf("%v %q", l, s)
	}
	if l, s := Summary(as[:1], ""); l != LevelWarning || s != "WARNING: 1 group lagging" {
		t.Errorf("%v %q", l, s)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	bad := DefaultConfig()
	bad.MaxLagCritical = 10
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "max-lag-critical (10) is below max-lag-warning (1000)") {
		t.Errorf("critical below warning: %v", err)
	}
	bad = DefaultConfig()
	bad.Window = 0
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "window") {
		t.Errorf("zero window: %v", err)
	}
}

func TestConfigDefaultsAgree(t *testing.T) {
	if got := Config(config.DefaultHealth()); got != DefaultConfig() {
		t.Fatalf("config.DefaultHealth gives %+v, the health defaults are %+v", got, DefaultConfig())
	}
}

// A durable group missing from the group list (its coordinator moving) is
// not forgotten at once: it keeps its history and says UNKNOWN, with a
// warning, for the horizon; listed again, it is judged on that history at
// once. A temporary group goes with the list; so does a durable one
// missing for longer than the horizon.
func TestUnlistedGroupKeepsItsHistory(t *testing.T) {
	m := New(DefaultConfig()) // window and stall-after 10 s
	keeping := func(i int) admin.GroupInfo {
		return group("billing", admin.GroupStable, 1, part("O", 0, int64(100*i), 0, int64(100*i+50))) // lag 50, kept
	}
	temp := group("tail-1", admin.GroupStable, 1, part("O", 0, 0, 0, 0))
	temp.Durable = false
	for i := 0; i < 12; i++ {
		m.ObserveGroups([]admin.GroupInfo{keeping(i), temp}, at(float64(i)))
	}
	if g, _ := m.Group("billing"); g.Word != OK {
		t.Fatalf("billing before: %v (%s)", g.Word, g.Reason)
	}
	m.ObserveGroups(nil, at(12)) // both missing from the list
	g, ok := m.Group("billing")
	if !ok || g.Word != Unknown || !g.Unlisted.Equal(at(12)) ||
		g.Reason != "missing from the group list since 10:00:12 (its coordinator may be moving)" {
		t.Fatalf("billing unlisted: %v %+v", ok, g)
	}
	if _, ok := m.Group("tail-1"); ok {
		t.Fatal("the temporary group outlived the list")
	}
	a, ok := alertOf(m, KindGroupUnlisted)
	if !ok || a.Level != LevelWarning || a.Subject != "billing" ||
		a.Text != "group billing missing from the group list since 10:00:12 (its coordinator may be moving); lag 50 when last listed" {
		t.Fatalf("unlisted alert: %v %+v", ok, a)
	}
	if _, text := Summary(m.Alerts(), ""); text != "WARNING: 1 group missing from the group list" {
		t.Fatalf("summary %q", text)
	}
	m.ObserveGroups(nil, at(15))
	if g, _ := m.Group("billing"); !g.Unlisted.Equal(at(12)) {
		t.Fatalf("unlisted since moved: %v", g.Unlisted)
	}
	// Back: judged on the history it kept (a fresh track would be UNKNOWN
	// until the window was covered again).
	m.ObserveGroups([]admin.GroupInfo{keeping(16)}, at(16))
	if g, _ := m.Group("billing"); g.Word != OK || !g.Unlisted.IsZero() {
		t.Fatalf("billing listed again: %v %+v", g.Word, g)
	}
	if _, ok := alertOf(m, KindGroupUnlisted); ok {
		t.Fatal("the unlisted alert outlived its condition")
	}
	// Missing for longer than the horizon: gone.
	m.ObserveGroups(nil, at(17))
	m.ObserveGroups(nil, at(27))
	if _, ok := m.Group("billing"); !ok {
		t.Fatal("forgotten within the horizon")
	}
	m.ObserveGroups(nil, at(27.5))
	if _, ok := m.Group("billing"); ok {
		t.Fatal("still known 10.5 s after it left the list")
	}
}

// Rebalances are rarely seen in progress by a poll, but each leaves a new
// generation: three or more within the window alert, whatever the word.
func TestRebalanceChurnAlerts(t *testing.T) {
	m := New(DefaultConfig()) // window 10 s
	churn := func(gen int32) admin.GroupInfo {
		g := group("flappy", admin.GroupStable, 1, part("O", 0, 100, 0, 100))
		g.Generation = gen
		return g
	}
	steady := group("calm", admin.GroupStable, 1, part("O", 1, 100, 0, 100))
	steady.Generation = 7
	// One rebalance every 5 s: at most 2 in any 10 s window, no alert.
	for s := 0; s <= 20; s += 2 {
		m.ObserveGroups([]admin.GroupInfo{churn(int32(1 + s/5)), steady}, at(float64(s)))
		if a, ok := alertOf(m, KindGroupChurn); ok {
			t.Fatalf("at %d s: %q", s, a.Text)
		}
	}
	// One every 2 s: 5 within the window.
	base := int32(1 + 20/5)
	for s := 22; s <= 32; s += 2 {
		m.ObserveGroups([]admin.GroupInfo{churn(base + int32(s-20)/2), steady}, at(float64(s)))
	}
	a, ok := alertOf(m, KindGroupChurn)
	if !ok || a.Subject != "flappy" || a.Level != LevelWarning || a.Text != "group flappy rebalanced 5 times in 10s: members keep joining and leaving" {
		t.Fatalf("churn alert: %v %+v", ok, a)
	}
	if g, _ := m.Group("flappy"); g.Word != OK || g.Rebalances != 5 {
		t.Fatalf("flappy: %v, %d rebalances (the word is its own rule)", g.Word, g.Rebalances)
	}
	if _, text := Summary(m.Alerts(), ""); text != "WARNING: 1 group rebalancing repeatedly" {
		t.Fatalf("summary %q", text)
	}
	// Calm again: the alert goes once the window holds fewer than 3.
	last := base + 6
	for s := 34; s <= 46; s += 2 {
		m.ObserveGroups([]admin.GroupInfo{churn(last), steady}, at(float64(s)))
	}
	if _, ok := alertOf(m, KindGroupChurn); ok {
		t.Fatal("the churn alert outlived the churn")
	}
	// A recreated group (generation back to 1) starts counting again.
	m.ObserveGroups([]admin.GroupInfo{churn(1), steady}, at(48))
	if g, _ := m.Group("flappy"); g.Rebalances != 0 {
		t.Fatalf("after recreation: %d rebalances", g.Rebalances)
	}
}

// A partition's history holds at most maxObs observations however fast
// the polls come (here 2,000 within one window), and a group's
// generations only the window's: a day of polls keeps no more than a
// minute's.
func TestHistoriesBounded(t *testing.T) {
	m := New(DefaultConfig()) // window 10 s
	for i := 0; i < 2000; i++ {
		g := group("billing", admin.GroupStable, 1, part("O", 0, int64(i), 0, int64(i+10)))
		g.Generation = int32(i)
		m.ObserveGroups([]admin.GroupInfo{g}, at(float64(i)/1000)) // 2,000 polls in 2 s
	}
	check := func(when string) {
		t.Helper()
		for k, p := range m.groups["billing"].parts {
			if len(p.hist) > 256 { // maxObs, as documented (docs/DESIGN.md §7.7)
				t.Errorf("%s: %v: %d observations kept, bound 256", when, k, len(p.hist))
			}
		}
	}
	check("after 2,000 polls in 2 s")
	for i := 0; i < 100; i++ {
		g := group("billing", admin.GroupStable, 1, part("O", 0, int64(2000+i), 0, int64(2010+i)))
		g.Generation = int32(2000 + i)
		m.ObserveGroups([]admin.GroupInfo{g}, at(2+float64(i))) // then 100 s at one poll a second
	}
	check("after 100 s more")
	if n := len(m.groups["billing"].gens); n > 12 {
		t.Errorf("%d generations kept for a 10 s window polled every second", n)
	}
}

// A group's partition keeps its history when the list's partitions
// change around it (a topic added before it moves it to another place in
// the list), and loses it when it leaves the list: it comes back new.
func TestPartitionHistoryFollowsItsPartition(t *testing.T) {
	m := New(DefaultConfig()) // window and stall-after 10 s
	stuck := part("O", 0, 5, 0, 10)
	caughtUp := part("A", 0, 10, 0, 10)
	st := feed(m, 7, func(int) admin.GroupInfo { return group("g", admin.GroupStable, 1, stuck) }) // 0..12 s
	if st.Word != Stalled || !st.Since.Equal(t0) || !st.SinceEarlier {
		t.Fatalf("O/0 alone for 12 s: %v since %v (earlier %v), want STALLED since t0 or earlier", st.Word, st.Since, st.SinceEarlier)
	}
	st = m.ObserveGroups([]admin.GroupInfo{group("g", admin.GroupStable, 1, caughtUp, stuck)}, at(14))[0]
	if st.Word != Stalled || !st.Since.Equal(t0) || st.Partitions[0].Word != OK || st.Partitions[1].Word != Stalled || st.Info.Partitions[1].Topic != "O" {
		t.Fatalf("A/0 listed before O/0: %v since %v, partitions %+v; want O/0 still STALLED since t0", st.Word, st.Since, st.Partitions)
	}
	m.ObserveGroups([]admin.GroupInfo{group("g", admin.GroupStable, 1, caughtUp)}, at(16))
	st = m.ObserveGroups([]admin.GroupInfo{group("g", admin.GroupStable, 1, caughtUp, stuck)}, at(18))[0]
	if st.Word != Unknown || st.Partitions[1].Word != Unknown {
		t.Fatalf("O/0 back after a list without it: %v, O/0 %v; want UNKNOWN (its history starts again)", st.Word, st.Partitions[1].Word)
	}
}

// The groups of a list share its arrays (admin.GroupList cuts one array
// of partitions per list): a group missing from the next list keeps its
// own copy of its partitions, not the whole older list (issue 26).
func TestUnlistedGroupKeepsNoOldList(t *testing.T) {
	m := New(DefaultConfig())
	shared := []admin.PartitionOffsets{part("O", 0, 5, 0, 10), part("P", 0, 5, 0, 10)}
	a := group("a", admin.GroupStable, 1, shared[0])
	b := group("b", admin.GroupEmpty, 0, shared[1])
	a.Partitions, b.Partitions = shared[0:1:1], shared[1:2:2]
	m.ObserveGroups([]admin.GroupInfo{a, b}, at(0))
	m.ObserveGroups([]admin.GroupInfo{a}, at(2))
	g, ok := m.Group("b")
	if !ok || g.Unlisted.IsZero() || len(g.Info.Partitions) != 1 || g.Info.Partitions[0] != shared[1] {
		t.Fatalf("b unlisted: %v %+v", ok, g)
	}
	if &g.Info.Partitions[0] == &shared[1] {
		t.Error("the unlisted group's partitions are still the older list's array")
	}
}

// A monitor keeping no partition statuses (the headless watcher's)
// judges every group as one keeping them: the same words, times, rates
// and reasons, and alerts; only GroupStatus.Partitions is nil.
func TestNoPartitionStatusesSameVerdicts(t *testing.T) {
	with, without := New(DefaultConfig()), New(DefaultConfig())
	without.NoPartitionStatuses()
	rng := rand.New(rand.NewPCG(26, 1))
	committed := make([]int64, 12)
	end := make([]int64, 12)
	seen := map[Word]bool{}
	for i := range 60 {
		var gs []admin.GroupInfo
		for g := range 3 {
			var parts []admin.PartitionOffsets
			for p := range 4 {
				k := g*4 + p
				end[k] += int64(rng.IntN(40))
				switch r := rng.IntN(10); {
				case g == 0 && r < 6: // consumes
					committed[k] = min(committed[k]+int64(rng.IntN(50)), end[k])
				case g == 1 && r < 3: // falls behind
					committed[k] = min(committed[k]+int64(rng.IntN(20)), end[k])
				case g == 1 && r == 3: // moved back
					committed[k] = max(committed[k]-int64(rng.IntN(30)), 0)
				case g == 2 && r < 4: // committing slower than the end grows
					committed[k] = min(committed[k]+int64(rng.IntN(15)), end[k])
				}
				o := admin.PartitionOffsets{Topic: "T", Partition: int32(k), Committed: committed[k], LogStart: 0, End: end[k]}
				if rng.IntN(25) == 0 {
					o.End = -1 // unknown lag now and then
				}
				parts = append(parts, o)
			}
			members := 1
			if g == 1 && i%20 > 14 {
				members = 0
			}
			gs = append(gs, group(fmt.Sprintf("g%d", g), admin.GroupStable, members, parts...))
		}
		a, b := with.ObserveGroups(gs, at(float64(2*i))), without.ObserveGroups(gs, at(float64(2*i)))
		for k := range a {
			seen[a[k].Word] = true
			if b[k].Partitions != nil {
				t.Fatalf("observation %d: %s has partition statuses %v, want none", i, b[k].Info.Name, b[k].Partitions)
			}
			want := a[k]
			want.Partitions = nil
			if !reflect.DeepEqual(b[k], want) {
				t.Fatalf("observation %d: without partition statuses %+v\nwant %+v", i, b[k], want)
			}
		}
		if x, y := with.Alerts(), without.Alerts(); !reflect.DeepEqual(x, y) {
			t.Fatalf("observation %d: alerts %v, want %v", i, y, x)
		}
	}
	for _, w := range []Word{OK, Stalled, Lagging, Rewound, Stopped} {
		if !seen[w] {
			t.Errorf("no group was %v: the runs do not cover the rules", w)
		}
	}
}
