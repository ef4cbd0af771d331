package health

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/numfmt"
)

// maxObs bounds a partition's history. The window's observations are all
// that is needed; a dashboard polling every 400 ms with a 1 minute window
// still fits.
const maxObs = 256

// stamp is a time as a partition's history keeps it: nanoseconds since
// the monitor's epoch (Monitor.stamp), 8 bytes where a time.Time takes
// 24 — the history of 40,000 partitions is most of an exporter's memory
// (issue 26). noStamp is none (a zero time.Time).
type stamp int64

const noStamp stamp = math.MinInt64

// within: s is no more than d before now (s is not noStamp).
func within(now, s stamp, d time.Duration) bool { return time.Duration(now-s) <= d }

// obs is one observation of a partition (16 bytes): what the rules ask
// of it beyond its group's observation (gobs) taken with it. Whether it
// was caught up, its lag's only use, is partTrack.sinceZero.
type obs struct {
	committed int64 // -1 = no commit
	end       int64 // -1 = unknown
}

// gobs is one observation of a group (16 bytes): its time, generation and
// whether it had a member, once for all its partitions' observations of
// that list (issue 26: 40,000 partitions' histories are most of an
// exporter's memory).
type gobs struct {
	at     stamp
	gen    int32 // the group's generation at this observation
	member bool  // the group had a member at this observation
}

// consumed reports whether the commit advance from a to b (a the earlier
// observation) is consumption. Only a member consumes, and a seek is
// refused while the group has an active member (PROTOCOL.md §11.8), so an
// advance between two observations of a group without a member, its
// generation unchanged (nobody joined in between: every join gives a new
// generation), was an operator's seek, or a commit by a client outside
// the group's membership: not consumption.
func consumed(a, b gobs) bool {
	return a.member || b.member || a.gen != b.gen
}

// noZero is partTrack.sinceZero when no observation kept was caught up.
const noZero = math.MaxInt32

// partTrack is a partition's history: the observations of the horizon, and
// the times of the events the rules look for, kept even when their
// observation has been trimmed. Its partition is the one of the same
// place in its group's latest list (groupTrack.parts).
type partTrack struct {
	hist []obs // oldest first; hist[i] was taken with its group's obs[len(obs)-len(hist)+i]

	firstSeen   stamp
	lastAdvance stamp   // an observation whose commit was above the one before (or the first commit)
	lastZero    stamp   // an observation with lag 0
	rewind      *rewind // the latest observation whose commit was below the one before (nil: none)
	growth      int64
	// sinceZero counts the observations after the latest one with lag 0
	// (0: the latest was caught up; noZero: none was).
	sinceZero int32
	word      uint8 // the last verdict, a Word (kept while the window lacks the evidence to change it)
}

// rewind is a commit seen moving back: when, from and to (rare: kept
// apart so that the 40,000 partitions' tracks do not carry it).
type rewind struct {
	at       stamp
	from, to int64
}

// lastRewind is when the commit was last seen moving back (noStamp: never).
func (p *partTrack) lastRewind() stamp {
	if p.rewind == nil {
		return noStamp
	}
	return p.rewind.at
}

// view is a partition's history beside its times: h[i] was taken with
// g[i].
type view struct {
	h []obs
	g []gobs
}

// view is p's history with the observations of t it was taken with.
func (t *groupTrack) view(p *partTrack) view { return view{p.hist, t.obs[len(t.obs)-len(p.hist):]} }

// add appends o, taken with the group's latest observation (the last of
// times, the group's), caught up or not.
func (p *partTrack) add(o obs, caughtUp bool, times []gobs, horizon time.Duration) {
	at := times[len(times)-1].at
	if n := len(p.hist); n > 0 {
		prev := p.hist[n-1]
		switch {
		case o.committed >= 0 && prev.committed >= 0 && o.committed < prev.committed:
			p.rewind = &rewind{at, prev.committed, o.committed}
		case o.committed >= 0 && o.committed > prev.committed:
			p.lastAdvance = at
		}
		if p.sinceZero < noZero {
			p.sinceZero++
		}
	} else {
		p.firstSeen, p.lastAdvance, p.lastZero, p.rewind, p.sinceZero = at, noStamp, noStamp, nil, noZero
	}
	if caughtUp {
		p.lastZero, p.sinceZero = at, 0
	}
	if n := len(p.hist); n == cap(p.hist) {
		// Grown by about an eighth (append would double it: a history
		// of 7 would take room for 8).
		h := make([]obs, n, n+1+n/8)
		copy(h, p.hist)
		p.hist = h
	}
	p.hist = append(p.hist, o)
	ts := times[len(times)-len(p.hist):]
	// Keep the horizon plus the one observation before it (the start of
	// the first delta inside it).
	cut := 0
	for cut < len(p.hist)-1 && !within(at, ts[cut+1].at, horizon) {
		cut++
	}
	if n := len(p.hist) - maxObs; n > cut {
		cut = n
	}
	if cut > 0 {
		p.hist = append(p.hist[:0], p.hist[cut:]...)
	}
}

// zeroIn: an observation at or after index i of the history was caught
// up.
func (p *partTrack) zeroIn(i int) bool {
	return p.sinceZero != noZero && len(p.hist)-1-int(p.sinceZero) >= i
}

// window returns the index of the first observation within w of now.
func (v view) window(now stamp, w time.Duration) int {
	i := len(v.h)
	for i > 0 && within(now, v.g[i-1].at, w) {
		i--
	}
	return i
}

// PartitionStatus is one partition of a GroupStatus: the verdict on the
// partition of the same place in its Info.Partitions (whose offsets it
// does not copy: 40,000 partitions' copies were 1.9 MB per group list,
// issue 26).
type PartitionStatus struct {
	Lag admin.PartLag
	// Word is the partition's own verdict while the group has members (OK,
	// UNKNOWN, LAGGING, REWOUND, STALLED); otherwise the group's word.
	Word  Word
	Since time.Time // STALLED: last progress; REWOUND: the move
	// Growth is a LAGGING partition's lag growth between its first and last
	// commit in the window.
	Growth int64
}

// GroupStatus is a group's health, as of its latest observation.
type GroupStatus struct {
	Info admin.GroupInfo // the latest observation
	At   time.Time       // when it was taken
	Word Word
	Lag  admin.LagTotal
	// Rate is the records per second the group committed over the window
	// (the sum of its commits' advances; never end offsets); -1 when the
	// window holds fewer than two observations.
	Rate float64
	// Since is when the word's condition began as far as observed:
	// STALLED, the last progress; STOPPED, the first observation without a
	// member; REWOUND, the backwards move; otherwise when the word was
	// first given. SinceEarlier: the condition held at the first
	// observation already, so it may have begun earlier.
	Since        time.Time
	SinceEarlier bool
	// StalledSince is Since for a STALLED group, zero otherwise.
	StalledSince time.Time
	// Growth and GrowthSpan: for LAGGING, the lag growth of its lagging
	// partitions between their first and last commit in the window.
	Growth     int64
	GrowthSpan time.Duration
	// Reason is one line saying why (raw names: sanitize to display).
	Reason     string
	Partitions []PartitionStatus
	// Rebalances is how many times the group's generation advanced within
	// the window (each rebalance gives it a new one). From
	// ChurnRebalances up it is an alert: members keep joining and leaving.
	Rebalances int
	// Unlisted is when a durable group known to the monitor was first
	// missing from the group list (zero while it is listed). The group
	// list omits the groups of a coordinator that is moving, so such a
	// group keeps its history, and the word UNKNOWN, for the monitor's
	// horizon (max of window and stall-after) before it is forgotten.
	Unlisted time.Time
}

type groupTrack struct {
	gens            []genObs // generations observed within the window, oldest first
	firstSeen       time.Time
	noMemberSince   time.Time // start of the current run of observations without a member
	noMemberEarlier bool
	// parts are the tracks of the latest list's partitions, in its order:
	// status.Info.Partitions names them (read only to the Monitor's callers).
	parts []partTrack
	// obs are the group's observations its partitions' histories were
	// taken with: as many as the longest of them, oldest first.
	obs         []gobs
	word        Word
	wordSince   time.Time
	wordEarlier bool
	status      GroupStatus
}

// genObs is a group's generation at one observation.
type genObs struct {
	at  stamp
	gen int32
}

// ChurnRebalances is the number of rebalances within the window from which
// a group alerts (a crash loop, or members timing out and rejoining): a
// rebalance lasts about a heartbeat, so polls rarely see one in progress,
// but every rebalance leaves its generation behind.
const ChurnRebalances = 3

// rebalances counts the generation advances in t's window, kept up to at
// (a lower generation starts the count again: the group was recreated).
func (t *groupTrack) rebalances(gen int32, at stamp, w time.Duration) int {
	if n := len(t.gens); n > 0 && gen < t.gens[n-1].gen {
		t.gens = t.gens[:0]
	}
	t.gens = append(t.gens, genObs{at, gen})
	i := 0
	for i < len(t.gens)-1 && !within(at, t.gens[i].at, w) {
		i++
	}
	t.gens = t.gens[i:]
	return int(gen - t.gens[0].gen)
}

type partKey struct {
	topic string
	part  int32
}

// matchParts returns the tracks of the partitions of cur: those of old,
// whose partitions were prev's (the group's last list), moved to cur's
// order; a new partition gets an empty track, a partition gone loses its
// own. A list of the same partitions as the last (the usual) keeps old.
func matchParts(old []partTrack, prev, cur []admin.PartitionOffsets) []partTrack {
	same := len(prev) == len(cur)
	for i := 0; same && i < len(cur); i++ {
		same = prev[i].Topic == cur[i].Topic && prev[i].Partition == cur[i].Partition
	}
	if same {
		return old
	}
	at := make(map[partKey]int, len(prev))
	for i := range prev {
		at[partKey{prev[i].Topic, prev[i].Partition}] = i
	}
	next := make([]partTrack, len(cur))
	for i := range cur {
		k := partKey{cur[i].Topic, cur[i].Partition}
		if j, ok := at[k]; ok {
			next[i] = old[j]
			delete(at, k) // a partition listed twice gets one history
		}
	}
	return next
}

// ObserveGroups takes in a group list taken at `at` and judges every group
// of it. A temporary group missing from the list is forgotten (it ends
// with its last member); a durable one is kept as unlisted for the horizon
// (GroupStatus.Unlisted: Groups, Group and Alerts have it). It returns the
// statuses of the listed groups in the list's order; the slice is the
// Monitor's (read only, valid until the next call).
func (m *Monitor) ObserveGroups(gs []admin.GroupInfo, at time.Time) []GroupStatus {
	seen := make(map[string]struct{}, len(gs))
	out := m.groupOut[:0]
	for i := range gs {
		g := &gs[i]
		seen[g.Name] = struct{}{}
		t := m.groups[g.Name]
		if t == nil {
			t = &groupTrack{firstSeen: at}
			m.groups[g.Name] = t
		}
		m.observeGroup(t, g, at)
		out = append(out, t.status)
	}
	for name, t := range m.groups {
		if _, ok := seen[name]; ok {
			continue
		}
		if !t.status.Info.Durable || m.unlistedTooLong(t, at) {
			delete(m.groups, name) // a temporary group ends with its last member; a durable one unlisted that long was deleted
			continue
		}
		if t.status.Unlisted.IsZero() {
			t.status.Unlisted = at
			// A list's groups share its arrays (admin.GroupList): its own
			// copies, so as not to keep a whole older list for one group.
			t.status.Info.Topics = slices.Clone(t.status.Info.Topics)
			t.status.Info.Partitions = slices.Clone(t.status.Info.Partitions)
		}
		t.status.Word, t.status.Rate, t.status.Since, t.status.SinceEarlier = Unknown, -1, t.status.Unlisted, false
		t.status.Reason = "missing from the group list since " + clock(t.status.Unlisted) + " (its coordinator may be moving)"
		t.word, t.wordSince = Unknown, t.status.Unlisted
	}
	m.groupOut = out
	m.groupsAt, m.groupsOK = at, true
	return out
}

// NoPartitionStatuses makes the group statuses carry no Partitions (nil):
// the partitions' verdicts stay in the monitor, and the lag of each is
// Info.Partitions[i].Lag(). For a caller that needs only the groups' words
// and the list's offsets (the headless watcher: 40,000 partitions'
// statuses are 2.3 MB a group list, issue 26). Call it before the first
// observation.
func (m *Monitor) NoPartitionStatuses() { m.noParts = true }

// Forget drops what the monitor knows of group name: it was deleted, so
// its absence from the next list is no news.
func (m *Monitor) Forget(name string) { delete(m.groups, name) }

// unlistedTooLong: t has been missing from the group list for longer than
// the horizon, so it is gone rather than between coordinators.
func (m *Monitor) unlistedTooLong(t *groupTrack, at time.Time) bool {
	return !t.status.Unlisted.IsZero() && at.Sub(t.status.Unlisted) > m.cfg.horizon()
}

func (m *Monitor) observeGroup(t *groupTrack, g *admin.GroupInfo, at time.Time) {
	c := m.cfg
	now := m.stamp(at)
	if g.Members == 0 {
		if t.noMemberSince.IsZero() {
			t.noMemberSince, t.noMemberEarlier = at, at.Equal(t.firstSeen)
		}
	} else {
		t.noMemberSince, t.noMemberEarlier = time.Time{}, false
	}
	t.parts = matchParts(t.parts, t.status.Info.Partitions, g.Partitions)
	parts := t.parts
	t.obs = append(t.obs, gobs{at: now, gen: g.Generation, member: g.Members > 0})
	s := GroupStatus{Info: *g, At: at, Lag: g.Lag(), Rate: -1, Rebalances: t.rebalances(g.Generation, now, c.Window)}
	if !m.noParts {
		s.Partitions = make([]PartitionStatus, len(parts))
	}
	rewound := -1
	for i := range parts {
		po, p := g.Partitions[i], &parts[i]
		l := po.Lag()
		if s.Partitions != nil {
			s.Partitions[i] = PartitionStatus{Lag: l}
		}
		p.add(obs{committed: po.Committed, end: po.End}, !l.Unknown && l.Records == 0, t.obs, c.horizon())
		if r := p.lastRewind(); r != noStamp && within(now, r, c.Window) && (rewound < 0 || r > parts[rewound].lastRewind()) {
			rewound = i
		}
	}
	t.trimObs()
	s.Rate = c.rate(t, now)

	word, since, earlier := Unknown, time.Time{}, false
	var reason string
	switch {
	case g.State == admin.GroupDead:
		word, reason = Dead, "unknown to the cluster"
	case g.State == admin.GroupPreparingRebalance || g.State == admin.GroupCompletingRebalance:
		word, reason = Rebalancing, "reassigning its partitions ("+string(g.State)+")"
	case rewound >= 0:
		p, po := &parts[rewound], &g.Partitions[rewound]
		word, since = Rewound, m.timeOf(p.rewind.at)
		reason = fmt.Sprintf("the commit on %s/%d moved back from %d to %d", po.Topic, po.Partition, p.rewind.from, p.rewind.to)
	case g.Members == 0 && s.Lag.Records > 0:
		word, since, earlier = Stopped, t.noMemberSince, t.noMemberEarlier
		reason = fmt.Sprintf("no member, %s unread", numfmt.Plural(s.Lag.Records, "record"))
	case g.Members == 0:
		word, reason = Empty, "no member, nothing unread"
	default:
		word, since, earlier, reason = m.judgeMembers(&s, t, now)
	}
	if word != t.word || t.wordSince.IsZero() {
		t.wordSince, t.wordEarlier = at, at.Equal(t.firstSeen)
	}
	t.word = word
	if word != Rewound && word != Stopped && word != Stalled {
		since, earlier = t.wordSince, t.wordEarlier
	}
	s.Word, s.Since, s.SinceEarlier, s.Reason = word, since, earlier, reason
	if word == Stalled {
		s.StalledSince = since
	}
	if word != Unknown && word != OK && word != Lagging && word != Stalled && word != Rewound {
		for i := range s.Partitions {
			s.Partitions[i].Word = word
		}
	}
	t.status = s
}

// trimObs keeps the group's observations its partitions' histories were
// taken with (the longest history's).
func (t *groupTrack) trimObs() {
	keep := 0
	for i := range t.parts {
		keep = max(keep, len(t.parts[i].hist))
	}
	if cut := len(t.obs) - keep; cut > 0 {
		t.obs = append(t.obs[:0], t.obs[cut:]...)
	}
}

// rank orders partition verdicts for a group's word: the worst wins, and
// a partition not judged yet outranks OK ones (the group is not known to
// be fine while one of its partitions is not).
func rank(w Word) int {
	switch w {
	case OK:
		return 0
	case Unknown:
		return 1
	case Lagging:
		return 2
	case Rewound:
		return 3
	case Stalled:
		return 4
	}
	return 0
}

// judgeMembers judges a group with members from its partitions.
func (m *Monitor) judgeMembers(s *GroupStatus, t *groupTrack, now stamp) (Word, time.Time, bool, string) {
	parts := t.parts
	c := m.cfg
	word, judged := OK, 0
	stalledSince := noStamp
	stalledEarlier := false
	var stalled, lagging, unknown int
	var stalledLag int64
	var need time.Duration
	for i := range parts {
		p, l := &parts[i], s.Info.Partitions[i].Lag()
		if l.Unknown {
			continue // no leader or no topic: its own alert, not the group's
		}
		judged++
		v := t.view(p)
		w, since, earlier, growth := c.judgePartition(p, v, now)
		if s.Partitions != nil {
			ps := &s.Partitions[i]
			ps.Word, ps.Since, ps.Growth = w, m.timeOf(since), growth
		}
		switch w {
		case Stalled:
			stalled++
			stalledLag += l.Records
			if stalledSince == noStamp || since < stalledSince {
				stalledSince, stalledEarlier = since, earlier
			}
		case Lagging:
			lagging++
			s.Growth += growth
			if span, ok := commitSpan(v, now, c.Window); ok {
				s.GrowthSpan = max(s.GrowthSpan, span)
			}
		case Unknown:
			unknown++
			seen := time.Duration(now - p.firstSeen)
			need = max(need, c.Window-seen, c.StallAfter-seen)
		}
		if rank(w) > rank(word) {
			word = w
		}
	}
	switch {
	case judged == 0 && len(parts) > 0:
		return Unknown, time.Time{}, false, "the lag of its partitions is unknown (no leader)"
	case word == Stalled:
		return Stalled, m.timeOf(stalledSince), stalledEarlier, fmt.Sprintf("no commit advanced on %s for at least %s (%s unread there)",
			numfmt.Plural(int64(stalled), "partition"), roundDur(c.StallAfter), numfmt.Plural(stalledLag, "record"))
	case word == Lagging:
		return Lagging, time.Time{}, false, fmt.Sprintf("commits advance but the lag grew on %s", numfmt.Plural(int64(lagging), "partition"))
	case word == Unknown:
		return Unknown, time.Time{}, false, fmt.Sprintf("judging: %s of history needed (%s not judged yet)",
			roundDur(max(need, time.Second)), numfmt.Plural(int64(unknown), "partition"))
	}
	if s.Lag.Records == 0 {
		return OK, time.Time{}, false, "caught up"
	}
	return OK, time.Time{}, false, "consuming without falling behind"
}

// judgePartition is the partition rule of a group with members (its lag is
// known). Burrow's order: a partition caught up within the window is OK;
// then stalled (no commit advanced for the stall time); then lagging (the
// lag at its commits grew within the window). Whether the lag grows needs
// two commits in the window: with fewer, the partition keeps its verdict
// (a slow consumer committing every 5 s does not flap LAGGING → OK in a
// 10 s window), and a partition never judged is OK once its history covers
// the window, UNKNOWN before.
func (c Config) judgePartition(p *partTrack, v view, now stamp) (w Word, since stamp, earlier bool, growth int64) {
	w, since, earlier, growth = c.partitionRule(p, v, now)
	p.word, p.growth = uint8(w), growth
	return w, since, earlier, growth
}

func (c Config) partitionRule(p *partTrack, v view, now stamp) (Word, stamp, bool, int64) {
	win := v.window(now, c.Window)
	if p.zeroIn(min(win, len(p.hist)-1)) { // the latest observation, or one in the window, caught up
		return OK, noStamp, false, 0
	}
	// Stalled: nothing moved the lag down since the last progress (a
	// commit that advanced, or a moment caught up).
	ref := max(p.lastAdvance, p.lastZero)
	seen := time.Duration(now - p.firstSeen)
	if ref == noStamp {
		if seen >= c.StallAfter {
			return Stalled, p.firstSeen, true, 0
		}
		return Unknown, noStamp, false, 0
	}
	if time.Duration(now-ref) >= c.StallAfter {
		return Stalled, ref, false, 0
	}
	// Lagging: the lag at its commits grew between its first and last
	// commit in the window, by more than the observations' timing can
	// explain; not lagging once it did not grow at all; in between, the
	// verdict stands.
	if first, last, ok := commitPoints(v.h, win); ok {
		g, u := lagGrowth(v.h, first, last)
		switch {
		case g-u > 0:
			return Lagging, noStamp, false, g
		case g <= 0 && seen >= c.Window:
			return OK, noStamp, false, 0
		}
	}
	switch w := Word(p.word); {
	case w == Lagging || w == OK:
		return w, noStamp, false, p.growth
	case seen >= c.Window:
		return OK, noStamp, false, 0
	}
	return Unknown, noStamp, false, 0
}

// commitPoints returns the first and the last observation at or after win
// whose commit advanced on the one before; ok when there are two.
func commitPoints(h []obs, win int) (first, last int, ok bool) {
	first, last = -1, -1
	for i := max(win, 1); i < len(h); i++ {
		if h[i-1].committed >= 0 && h[i].committed > h[i-1].committed {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	return first, last, first >= 0 && last > first
}

// lagGrowth is the growth of the lag between two commit points, and its
// uncertainty. A commit seen at observation i happened after observation
// i-1, when the end offset was between the two observations' ends: the lag
// at the commit is taken at the middle, give or take half the records that
// arrived in between.
func lagGrowth(h []obs, first, last int) (g, u int64) {
	at := func(i int) (lag, unc int64) {
		a, b := h[i-1].end, h[i].end
		if a < 0 || b < a {
			a = b
		}
		return (a+b)/2 - h[i].committed, (b - a + 1) / 2
	}
	l1, u1 := at(first)
	l2, u2 := at(last)
	return l2 - l1, u1 + u2
}

// commitSpan is the time between the first and the last commit point in
// the window (ok: there are two).
func commitSpan(v view, now stamp, w time.Duration) (time.Duration, bool) {
	first, last, ok := commitPoints(v.h, v.window(now, w))
	if !ok {
		return 0, false
	}
	return time.Duration(v.g[last].at - v.g[first].at), true
}

// rate is the group's committed-offset advance per second over the window:
// the sum of every advance between two observations inside it (a first
// commit, a commit moved back and a seek add nothing: consumed), over the
// time between the first and the last observation.
func (c Config) rate(t *groupTrack, now stamp) float64 {
	oldest := noStamp
	var sum int64
	for k := range t.parts {
		v := t.view(&t.parts[k])
		win := v.window(now, c.Window)
		if win >= len(v.h) {
			continue
		}
		if oldest == noStamp || v.g[win].at < oldest {
			oldest = v.g[win].at
		}
		for i := win + 1; i < len(v.h); i++ {
			if a, b := v.h[i-1], v.h[i]; a.committed >= 0 && b.committed > a.committed && consumed(v.g[i-1], v.g[i]) {
				sum += b.committed - a.committed
			}
		}
	}
	if oldest == noStamp || now <= oldest {
		return -1
	}
	return float64(sum) / time.Duration(now-oldest).Seconds()
}

// OneSample turns a status judged from a single group list (a Monitor that
// observed one list: `get groups` without --window) into what that one
// list can decide. DEAD, REBALANCING, STOPPED, EMPTY and OK (caught up)
// need one list and stand; a group with members and records unread is
// ACTIVE, not UNKNOWN: no wait would judge it, since a one-shot command
// never gets a window. UNKNOWN stays for what no window decides either (a
// lag that is unknown, a group missing from the list).
func OneSample(s GroupStatus) GroupStatus {
	if s.Word != Unknown || !s.Unlisted.IsZero() || s.Info.Members == 0 || !s.Lag.Known() || s.Lag.Records == 0 {
		return s
	}
	s.Word = Active
	s.Reason = fmt.Sprintf("%s, %s unread: one list cannot tell OK from LAGGING or STALLED (judge over a window: --window)",
		numfmt.Plural(int64(s.Info.Members), "member"), numfmt.Plural(s.Lag.Records, "record"))
	ps := make([]PartitionStatus, len(s.Partitions))
	copy(ps, s.Partitions)
	for i := range ps {
		if ps[i].Word == Unknown && !ps[i].Lag.Unknown {
			ps[i].Word = Active
		}
	}
	s.Partitions = ps
	return s
}

// Groups returns the status of every group of the latest list, by name.
func (m *Monitor) Groups() []GroupStatus {
	out := make([]GroupStatus, 0, len(m.groups))
	for _, t := range m.groups {
		out = append(out, t.status)
	}
	slices.SortFunc(out, func(a, b GroupStatus) int { return cmp.Compare(a.Info.Name, b.Info.Name) })
	return out
}

// Group returns one group's status.
func (m *Monitor) Group(name string) (GroupStatus, bool) {
	t, ok := m.groups[name]
	if !ok {
		return GroupStatus{}, false
	}
	return t.status, true
}

func roundDur(d time.Duration) string {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d >= time.Second:
		return d.Round(time.Second).String()
	}
	return d.Round(time.Millisecond).String()
}
