package health

import (
	"math/rand/v2"
	"testing"
	"time"

	"ilinkdash/ilink/admin"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// sim is a consumer group on one topic, simulated in 100 ms steps:
// producers append about prod records/s per partition (with jitter), the
// consumer reads about cons records/s (never past the end) and commits its
// position every commitEvery; the monitor observes every pollEvery.
type sim struct {
	rng         *rand.Rand
	parts       int
	prod, cons  float64
	commitEvery time.Duration
	pollEvery   time.Duration
	fetchEvery  time.Duration // > 0: the consumer catches up to the end at this period (batches)
	members     int

	now       time.Time
	end       []int64
	endF      []float64
	pos       []float64
	committed []int64
	nextCommit,
	nextPoll,
	nextFetch time.Time
}

func newSim(seed uint64, parts int, prod, cons float64) *sim {
	s := &sim{rng: rand.New(rand.NewPCG(seed, 7)), parts: parts, prod: prod, cons: cons,
		commitEvery: 5 * time.Second, pollEvery: 2 * time.Second, members: 1, now: t0,
		end: make([]int64, parts), endF: make([]float64, parts), pos: make([]float64, parts), committed: make([]int64, parts)}
	// Phases that do not line up with the polls.
	s.nextCommit = t0.Add(1300 * time.Millisecond)
	s.nextPoll = t0.Add(700 * time.Millisecond)
	return s
}

func (s *sim) info() admin.GroupInfo {
	g := admin.GroupInfo{Name: "g", State: admin.GroupStable, Members: s.members, Topics: []string{"T"}, Durable: true}
	for i := 0; i < s.parts; i++ {
		g.Partitions = append(g.Partitions, admin.PartitionOffsets{Topic: "T", Partition: int32(i), Committed: s.committed[i], LogStart: 0, End: s.end[i]})
	}
	return g
}

// run advances d and calls fn with every observation's status.
func (s *sim) run(m *Monitor, d time.Duration, fn func(GroupStatus)) {
	const step = 100 * time.Millisecond
	for stop := s.now.Add(d); s.now.Before(stop); {
		s.now = s.now.Add(step)
		for i := range s.end {
			// Poisson-ish arrivals: the mean per step with ±100% jitter.
			mean := s.prod * step.Seconds()
			s.endF[i] += s.rng.Float64() * 2 * mean
			s.end[i] = int64(s.endF[i])
			if s.fetchEvery == 0 {
				s.pos[i] = min(s.pos[i]+s.cons*step.Seconds()*(0.5+s.rng.Float64()), float64(s.end[i]))
			}
		}
		if s.fetchEvery > 0 && !s.now.Before(s.nextFetch) {
			for i := range s.pos {
				s.pos[i] = float64(s.end[i])
			}
			s.nextFetch = s.nextFetch.Add(s.fetchEvery)
		}
		if !s.now.Before(s.nextCommit) {
			for i := range s.committed {
				s.committed[i] = int64(s.pos[i])
			}
			s.nextCommit = s.nextCommit.Add(s.commitEvery)
		}
		if !s.now.Before(s.nextPoll) {
			// The observation arrives a little after the poll was sent.
			at := s.now.Add(time.Duration(s.rng.IntN(80)) * time.Millisecond)
			st := m.ObserveGroups([]admin.GroupInfo{s.info()}, at)
			fn(st[0])
			s.nextPoll = s.nextPoll.Add(s.pollEvery)
		}
	}
}

// TestKeepingUpNeverLags: consumers that keep up, whatever the commit
// interval, poll phase and jitter, are OK at every observation once the
// window is covered, and their rate is the production rate. (The old
// evaluation flapped LAGGING → OK on these.)
func TestKeepingUpNeverLags(t *testing.T) {
	for _, tc := range []struct {
		name   string
		commit time.Duration
		poll   time.Duration
		prod   float64
		fetch  time.Duration
	}{
		{"5s commits, 2s polls", 5 * time.Second, 2 * time.Second, 20, 0},
		{"2s commits, 2s polls", 2 * time.Second, 2 * time.Second, 50, 0},
		{"1s commits, 400ms polls", time.Second, 400 * time.Millisecond, 200, 0},
		{"5s commits, 400ms polls", 5 * time.Second, 400 * time.Millisecond, 5, 0},
		{"5s commits, 2s polls, 500ms batches", 5 * time.Second, 2 * time.Second, 50, 500 * time.Millisecond},
		{"2s commits, 2s polls, 1s batches", 2 * time.Second, 2 * time.Second, 100, time.Second},
	} {
		for seed := uint64(1); seed <= 5; seed++ {
			m := New(DefaultConfig())
			s := newSim(seed, 6, tc.prod, tc.prod*4) // the consumer could go 4× faster: it waits for records
			s.commitEvery, s.pollEvery, s.fetchEvery = tc.commit, tc.poll, tc.fetch
			bad := map[Word]int{}
			var rates []float64
			s.run(m, 5*time.Minute, func(g GroupStatus) {
				if g.At.Sub(t0) < DefaultWindow+tc.poll {
					return
				}
				if g.Word != OK {
					bad[g.Word]++
				}
				rates = append(rates, g.Rate)
			})
			if len(bad) > 0 {
				t.Errorf("%s, seed %d: verdicts other than OK: %v", tc.name, seed, bad)
			}
			var sum float64
			for _, r := range rates {
				sum += r
			}
			if mean, want := sum/float64(len(rates)), tc.prod*6; mean < 0.8*want || mean > 1.2*want {
				t.Errorf("%s, seed %d: mean rate %.1f/s, the group consumes %.1f/s", tc.name, seed, mean, want)
			}
		}
	}
}

// TestSlowConsumerLags: a consumer at half the production rate is LAGGING
// within a few windows and stays LAGGING (no flapping back to OK).
func TestSlowConsumerLags(t *testing.T) {
	for _, tc := range []struct {
		name   string
		commit time.Duration
		poll   time.Duration
	}{
		{"5s commits, 2s polls", 5 * time.Second, 2 * time.Second},
		{"2s commits, 2s polls", 2 * time.Second, 2 * time.Second},
		{"1s commits, 400ms polls", time.Second, 400 * time.Millisecond},
	} {
		for seed := uint64(1); seed <= 5; seed++ {
			m := New(DefaultConfig())
			s := newSim(seed, 4, 20, 10)
			s.commitEvery, s.pollEvery = tc.commit, tc.poll
			var first time.Time
			flips := 0
			last := Unknown
			s.run(m, 5*time.Minute, func(g GroupStatus) {
				if g.Word == Lagging && first.IsZero() {
					first = g.At
				}
				if !first.IsZero() && g.Word != Lagging {
					flips++
				}
				if g.Word == Lagging && last != Lagging && g.Growth <= 0 {
					t.Errorf("%s, seed %d: LAGGING with a growth of %d", tc.name, seed, g.Growth)
				}
				last = g.Word
			})
			switch {
			case first.IsZero():
				t.Errorf("%s, seed %d: never LAGGING", tc.name, seed)
			case first.Sub(t0) > 3*DefaultWindow:
				t.Errorf("%s, seed %d: LAGGING only after %v", tc.name, seed, first.Sub(t0))
			case flips > 0:
				t.Errorf("%s, seed %d: %d verdicts other than LAGGING after the first", tc.name, seed, flips)
			}
		}
	}
}
