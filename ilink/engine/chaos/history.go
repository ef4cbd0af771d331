package chaos

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// What the experiment saw, as it happened: every record sent and its
// outcome, every delivery to the group, every fault. One mutex; producer
// callbacks and consumer loops hold it only to note one event.

// Record outcomes.
const (
	pending uint8 = iota
	acked
	failed
)

type sendRec struct {
	state uint8
	part  int32
	off   int64
}

type tp struct {
	part int32
	off  int64
}

// faultRec is one fault and its recovery: the time from at (the fault, or
// the end of a windowed fault) until every partition that existed then had
// a record acknowledged (produce) and delivered to the group (fetch) that
// was sent after at.
type faultRec struct {
	kind      string
	detail    string
	injected  time.Time
	at        time.Time // recovery is measured from here
	measured  bool      // at is known (windowed faults: once healed)
	parts     int
	produce   time.Duration // -1 until recovered
	fetch     time.Duration
	reReads   int
	completed bool
	// uncommitted is, for crash-member, what the member had been handed
	// above the group's durable commits when it crashed: what the group
	// reads again once another member takes the partitions over.
	uncommitted int
}

type history struct {
	mu      sync.Mutex
	sends   [][]sendRec // per producer, by its counter
	deliv   map[tp]int
	lastBy  map[tp]int // the member a record was last delivered to
	reReads int
	// crashed is the crash-member fault of each crashed member: a record
	// it was the last to be handed, delivered again, is charged there.
	crashed      map[int]*faultRec
	pendingCrash int // the member just crashed, until its fault is noted; -1 = none
	// Per partition: the latest send time (Unix ns) of a record
	// acknowledged, and of one delivered to the group.
	lastAckSent, lastReadSent []int64
	faults                    []*faultRec
	last                      *faultRec // the latest fault injected (re-reads are charged to it)
	crashCommits              map[int32]int64
	examples                  []string
}

func newHistory(producers int) *history {
	return &history{sends: make([][]sendRec, producers), deliv: map[tp]int{}, lastBy: map[tp]int{}, crashed: map[int]*faultRec{}, pendingCrash: -1}
}

func grow(s []int64, n int) []int64 {
	for len(s) < n {
		s = append(s, 0)
	}
	return s
}

// sent notes record n of producer p, sent at sentNs.
func (h *history) sent(p, n int) {
	h.mu.Lock()
	for len(h.sends[p]) <= n {
		h.sends[p] = append(h.sends[p], sendRec{})
	}
	h.mu.Unlock()
}

func (h *history) outcome(p, n int, part int32, off int64, sentNs int64, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := &h.sends[p][n]
	if err != nil {
		r.state = failed
		return
	}
	r.state, r.part, r.off = acked, part, off
	h.lastAckSent = grow(h.lastAckSent, int(part)+1)
	h.lastAckSent[part] = max(h.lastAckSent[part], sentNs)
}

// delivered notes a record handed to group member m. A record delivered
// again is a re-read, charged to the crash of the member it was last
// handed to, if that one crashed, else to the latest fault.
func (h *history) delivered(m int, part int32, off int64, sentNs int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := tp{part, off}
	h.deliv[k]++
	if h.deliv[k] > 1 {
		h.reReads++
		if f := h.crashed[h.lastBy[k]]; f != nil {
			f.reReads++
		} else if h.last != nil {
			h.last.reReads++
		}
	}
	h.lastBy[k] = m
	h.lastReadSent = grow(h.lastReadSent, int(part)+1)
	h.lastReadSent[part] = max(h.lastReadSent[part], sentNs)
}

func (h *history) example(format string, args ...any) {
	if len(h.examples) < 12 {
		h.examples = append(h.examples, fmt.Sprintf(format, args...))
	}
}

// fault notes a fault injected now. Windowed faults start measuring when
// healed (measure).
func (h *history) fault(kind, detail string, parts int, windowed bool) *faultRec {
	now := time.Now()
	f := &faultRec{kind: kind, detail: detail, injected: now, at: now, measured: !windowed, parts: parts, produce: -1, fetch: -1}
	h.mu.Lock()
	h.faults = append(h.faults, f)
	h.last = f
	if kind == CrashMember && h.pendingCrash >= 0 {
		h.crashed[h.pendingCrash] = f
		f.uncommitted = h.uncommittedLocked(h.pendingCrash)
		h.pendingCrash = -1
	}
	h.mu.Unlock()
	return f
}

// crash notes that member m crashed; commits are the group's durable
// commits at the crash (next offset per partition). The crash-member
// fault noted next is charged with what m was handed above them.
func (h *history) crash(m int, commits map[int32]int64) {
	h.mu.Lock()
	h.pendingCrash, h.crashCommits = m, commits
	h.mu.Unlock()
}

// uncommittedLocked counts the records last handed to m at or above the
// commits of its crash.
func (h *history) uncommittedLocked(m int) int {
	n := 0
	for k, by := range h.lastBy {
		if by != m {
			continue
		}
		if c, ok := h.crashCommits[k.part]; !ok || k.off >= c {
			n++
		}
	}
	return n
}

func (h *history) measureFrom(f *faultRec, at time.Time) {
	h.mu.Lock()
	f.at, f.measured = at, true
	h.mu.Unlock()
}

// checkRecovery completes the recoveries reached by now.
func (h *history) checkRecovery(now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	covered := func(last []int64, parts int, at int64) bool {
		if len(last) < parts {
			return false
		}
		for _, ns := range last[:parts] {
			if ns <= at {
				return false
			}
		}
		return true
	}
	for _, f := range h.faults {
		if f.completed || !f.measured {
			continue
		}
		at := f.at.UnixNano()
		if f.produce < 0 && covered(h.lastAckSent, f.parts, at) {
			f.produce = now.Sub(f.at)
		}
		if f.fetch < 0 && covered(h.lastReadSent, f.parts, at) {
			f.fetch = now.Sub(f.at)
		}
		f.completed = f.produce >= 0 && f.fetch >= 0
	}
}

// value is a record's value: producer, counter, send time.
func value(p, n int, sentNs int64) []byte {
	return []byte(strconv.Itoa(p) + " " + strconv.Itoa(n) + " " + strconv.FormatInt(sentNs, 10))
}

func parseValue(v []byte) (p, n int, sentNs int64, ok bool) {
	f := strings.Fields(string(v))
	if len(f) != 3 {
		return 0, 0, 0, false
	}
	var err1, err2, err3 error
	p, err1 = strconv.Atoi(f[0])
	n, err2 = strconv.Atoi(f[1])
	sentNs, err3 = strconv.ParseInt(f[2], 10, 64)
	return p, n, sentNs, err1 == nil && err2 == nil && err3 == nil
}

// faultLog lists the faults with their recoveries, and marks those that
// overlapped another fault.
func (h *history) faultLog(t0 time.Time) []FaultEntry {
	h.mu.Lock()
	defer h.mu.Unlock()
	done := func(f *faultRec) time.Time {
		if !f.completed {
			return time.Now().Add(time.Hour)
		}
		return f.at.Add(max(f.produce, f.fetch))
	}
	out := make([]FaultEntry, len(h.faults))
	for i, f := range h.faults {
		ms := func(d time.Duration) int64 {
			if d < 0 {
				return -1
			}
			return d.Milliseconds()
		}
		e := FaultEntry{Kind: f.kind, Detail: f.detail, AtMs: f.injected.Sub(t0).Milliseconds(), HealedMs: f.at.Sub(t0).Milliseconds(),
			ProduceMs: ms(f.produce), FetchMs: ms(f.fetch), ReReads: f.reReads, Uncommitted: f.uncommitted}
		if i > 0 && done(h.faults[i-1]).After(f.injected) {
			e.Overlapped = true
		}
		if i+1 < len(h.faults) && h.faults[i+1].injected.Before(done(f)) {
			e.Overlapped = true
		}
		out[i] = e
	}
	return out
}

// recoveryStats summarises the recoveries by fault kind; with isolated,
// only those of the faults that did not overlap another.
func (h *history) recoveryStats(isolated bool) (map[string]Recovery, int) {
	var log []FaultEntry
	if isolated {
		log = h.faultLog(time.Time{})
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	byKind := map[string][]*faultRec{}
	unrecovered := 0
	for i, f := range h.faults {
		if isolated && log[i].Overlapped {
			continue
		}
		byKind[f.kind] = append(byKind[f.kind], f)
		if !f.completed {
			unrecovered++
		}
	}
	out := map[string]Recovery{}
	for k, fs := range byKind {
		var prod, fetch []time.Duration
		r := Recovery{Count: len(fs)}
		for _, f := range fs {
			if f.produce >= 0 {
				prod = append(prod, f.produce)
			}
			if f.fetch >= 0 {
				fetch = append(fetch, f.fetch)
			}
			r.MaxReReads = max(r.MaxReReads, f.reReads)
		}
		r.ProduceMaxMs, r.ProduceP50Ms = stats(prod)
		r.FetchMaxMs, r.FetchP50Ms = stats(fetch)
		r.Unrecovered = len(fs) - min(len(prod), len(fetch))
		out[k] = r
	}
	return out, unrecovered
}

func stats(ds []time.Duration) (maxMs, p50Ms int64) {
	if len(ds) == 0 {
		return -1, -1
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)-1].Milliseconds(), ds[len(ds)/2].Milliseconds()
}
