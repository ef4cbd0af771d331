package history

import (
	"sync"
	"time"

	"ilinkdash/ilink/admin/watch"
)

// SnapshotSamples are the samples of a watched snapshot's fresh lists:
// the groups' lag and commit rate, the topics' and the cluster's rates,
// the queues' depths.
func SnapshotSamples(s *watch.Snapshot, now time.Time) []Sample {
	var out []Sample
	if s.Fresh(watch.Groups, now) {
		out = GroupSamples(out, s.Groups)
	}
	if s.Fresh(watch.Topics, now) {
		out = TopicSamples(out, s.Topics)
	}
	if s.Fresh(watch.Queues, now) {
		out = QueueSamples(out, s.Queues)
	}
	return out
}

// Recorder records a watcher's snapshots into a Store on its own
// goroutine: `exporter` and `serve --metrics` hand it every snapshot
// (watch.Config.OnSnapshot: rec.Record), which never blocks — a snapshot
// not yet written is replaced by a newer one.
type Recorder struct {
	st   *Store
	now  func() time.Time
	logf func(string, ...any)

	mu     sync.Mutex
	latest *watch.Snapshot
	wake   chan struct{}
	done   chan struct{}
	closed bool
}

// NewRecorder starts recording into st; logf (nil: none) hears write
// errors. Close stops it; the store stays open.
func NewRecorder(st *Store, logf func(string, ...any)) *Recorder {
	r := &Recorder{st: st, now: st.now, logf: logf, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go r.run()
	return r
}

// Record hands over a snapshot (an older one than the latest handed
// over is ignored).
func (r *Recorder) Record(s *watch.Snapshot) {
	r.mu.Lock()
	if r.closed || r.latest != nil && s.Seq <= r.latest.Seq {
		r.mu.Unlock()
		return
	}
	r.latest = s
	select { // under the lock: Close closes wake
	case r.wake <- struct{}{}:
	default:
	}
	r.mu.Unlock()
}

func (r *Recorder) run() {
	defer close(r.done)
	var last uint64
	var said recordLog
	for range r.wake {
		r.mu.Lock()
		s := r.latest
		r.mu.Unlock()
		if s == nil || s.Seq == last {
			continue
		}
		last = s.Seq
		now := r.now()
		err := r.st.Record(now, SnapshotSamples(s, now))
		if r.logf != nil {
			said.note(err, r.st.Skipped(), r.st.max, r.logf)
		}
	}
}

// recordLog says a failing write once, not once a poll (a full disk wrote
// a line every 10 s for as long as it lasted), with the count of its
// repeats when it ends; and the series the cap leaves out when there
// first are some and each time they double (they went unsaid, the
// charts of the groups or the cluster simply empty).
type recordLog struct {
	failing string // the error said, "" while writes succeed
	repeats int    // failures since it was said
	skipped int    // series left out, as last said
}

func (l *recordLog) note(err error, skipped, maxSeries int, logf func(string, ...any)) {
	switch {
	case err != nil && err.Error() == l.failing:
		l.repeats++
	case err != nil:
		l.failing, l.repeats = err.Error(), 0
		logf("lag history: %v (said once while it lasts)", err)
	case l.failing != "":
		logf("lag history: recording again, after %d more failed writes", l.repeats)
		l.failing, l.repeats = "", 0
	}
	if skipped > 0 && (l.skipped == 0 || skipped >= 2*l.skipped) {
		l.skipped = skipped
		logf("lag history: %d series not recorded: the file keeps at most %d", skipped, maxSeries)
	}
}

// Close stops the recorder after the snapshot in hand is written.
func (r *Recorder) Close() {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.wake)
	}
	r.mu.Unlock()
	<-r.done
}
