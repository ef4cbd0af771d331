package engine

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"ilinkdash/ilink/wire"
)

// Quarantine: messages a queue manager set aside, per directory and queue
// (spec §3.2, Q-20..Q-23). VIEW QUARANTINE (3425) lists the directories,
// SCAN QUARANTINE (3426) lists entries, both as text returned unparsed;
// REINJECT (3427) appends entries to the tail of their queue and answers
// ILQuarantineReinjectResult (count, leader, stop reason). Entries marked
// OLD are messages the queue already delivered: they are reinjected only
// on request and can then duplicate. Reinjected entries leave the
// quarantine.
//
// Text formats (docs/PROTOCOL.md "Admin", quarantine):
//
//	QUARANTINE|<qmgr>|<unix ms>
//	dir|<dir>|<queue>|<entries>|<new>|<old>|<oldest unix ms>|<newest unix ms>
//
//	SCAN|<dir or *>|<queue or *>|<since unix ms>
//	entry|<unix ms>|<NEW or OLD>|<msg id hex>|<bytes>|<dir>|<queue>
//	header|<key base64>|<value base64>   (SCAN with msg_ids: the named entries)
//	body|<payload base64>
//	total|<entries>
//
// The engine quarantines nothing by itself; tests and the demo add
// entries with AddQuarantine.

// QuarantineEntry is one quarantined message.
type QuarantineEntry struct {
	Dir     string
	Queue   string
	MsgID   []byte // wire.MsgIDLen bytes; nil = a fresh id
	Payload []byte
	Headers []wire.RecordHeader // the message's properties; reinjected with it
	At      time.Time           // when it was quarantined; zero = now
	Old     bool                // the queue had already delivered it
}

type quarantine struct {
	mu      sync.Mutex
	entries []QuarantineEntry // in quarantine order
}

// AddQuarantine quarantines messages (fault injection and demo data).
func (e *Engine) AddQuarantine(entries ...QuarantineEntry) error {
	now := time.Now()
	add := make([]QuarantineEntry, 0, len(entries))
	for _, en := range entries {
		if en.Dir == "" || en.Queue == "" {
			return fmt.Errorf("engine: quarantine entry needs a directory and a queue")
		}
		switch {
		case en.MsgID == nil:
			en.MsgID = make([]byte, wire.MsgIDLen)
			_, _ = rand.Read(en.MsgID)
		case len(en.MsgID) != wire.MsgIDLen:
			return fmt.Errorf("engine: quarantine message id of %d bytes (want %d)", len(en.MsgID), wire.MsgIDLen)
		default:
			en.MsgID = append([]byte(nil), en.MsgID...)
		}
		en.Payload = append([]byte{}, en.Payload...)
		en.Headers = cloneHeaders(en.Headers)
		if en.At.IsZero() {
			en.At = now
		}
		add = append(add, en)
	}
	q := &e.adm.quar
	q.mu.Lock()
	q.entries = append(q.entries, add...)
	q.mu.Unlock()
	return nil
}

// QuarantineLen is the number of quarantined messages.
func (e *Engine) QuarantineLen() int {
	q := &e.adm.quar
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.entries)
}

func matchSel(sel, v string) bool { return sel == "" || sel == v }

func (q *quarantine) listText(qmgr string, now time.Time) string {
	q.mu.Lock()
	defer q.mu.Unlock()
	type key struct{ dir, queue string }
	type agg struct {
		n, newN, oldN  int
		oldest, newest time.Time
	}
	m := map[key]*agg{}
	var keys []key
	for _, en := range q.entries {
		k := key{en.Dir, en.Queue}
		a := m[k]
		if a == nil {
			a = &agg{oldest: en.At, newest: en.At}
			m[k] = a
			keys = append(keys, k)
		}
		a.n++
		if en.Old {
			a.oldN++
		} else {
			a.newN++
		}
		if en.At.Before(a.oldest) {
			a.oldest = en.At
		}
		if en.At.After(a.newest) {
			a.newest = en.At
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].dir != keys[j].dir {
			return keys[i].dir < keys[j].dir
		}
		return keys[i].queue < keys[j].queue
	})
	var b strings.Builder
	fmt.Fprintf(&b, "QUARANTINE|%s|%d\n", qmgr, now.UnixMilli())
	for _, k := range keys {
		a := m[k]
		fmt.Fprintf(&b, "dir|%s|%s|%d|%d|%d|%d|%d\n", cleanField(k.dir), cleanField(k.queue), a.n, a.newN, a.oldN, a.oldest.UnixMilli(), a.newest.UnixMilli())
	}
	return b.String()
}

// scanBodyMax bounds the body and header bytes one SCAN with msg_ids
// returns (base64 grows them by a third); entries beyond it are listed
// without their body.
const scanBodyMax = 1 << 20

// scanText lists the selected entries; the ones named in bodies (SCAN
// with msg_ids) are followed by their headers and body, so an operator
// can open an entry before reinjecting it.
func (q *quarantine) scanText(dir, queue string, sinceMs int64, bodies [][]byte) string {
	q.mu.Lock()
	defer q.mu.Unlock()
	star := func(s string) string {
		if s == "" {
			return "*"
		}
		return cleanField(s)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "SCAN|%s|%s|%d\n", star(dir), star(queue), sinceMs)
	n, sent := 0, 0
	for _, en := range q.entries {
		if !matchSel(dir, en.Dir) || !matchSel(queue, en.Queue) || en.At.UnixMilli() < sinceMs {
			continue
		}
		kind := "NEW"
		if en.Old {
			kind = "OLD"
		}
		fmt.Fprintf(&b, "entry|%d|%s|%s|%d|%s|%s\n", en.At.UnixMilli(), kind, hex.EncodeToString(en.MsgID), len(en.Payload), cleanField(en.Dir), cleanField(en.Queue))
		n++
		if len(bodies) > 0 && slices.ContainsFunc(bodies, func(id []byte) bool { return bytes.Equal(id, en.MsgID) }) && sent+len(en.Payload) <= scanBodyMax {
			b64 := base64.StdEncoding.EncodeToString
			for _, h := range en.Headers {
				b.WriteString("header|" + b64([]byte(h.Key)) + "|" + b64(h.Value) + "\n")
				sent += len(h.Key) + len(h.Value)
			}
			b.WriteString("body|" + b64(en.Payload) + "\n")
			sent += len(en.Payload)
		}
	}
	b.WriteString("total|" + strconv.Itoa(n) + "\n")
	return b.String()
}

// reinject appends the selected entries to queue's tail on the leader
// (replicated like any committed put) and removes them from the
// quarantine. Spec. ids (nil = every selected entry) narrows
// the selection to the entries a scan showed: those with these ids; the
// reply lists the ids no selected entry had and counts the selected
// entries not named (left in the quarantine).
func (e *Engine) reinject(dir, queue string, sinceMs int64, includeOld bool, ids [][]byte) wire.ReinjectReply {
	q := &e.adm.quar
	q.mu.Lock()
	defer q.mu.Unlock() // leaf order: quarantine.mu is held across queueStore.mu only here

	// named maps each id to whether a selected entry had it.
	var named map[string]bool
	if ids != nil {
		named = make(map[string]bool, len(ids))
		for _, id := range ids {
			named[string(id)] = false
		}
	}
	var idx []int
	var left int64
	for i, en := range q.entries {
		if !matchSel(dir, en.Dir) || en.Queue != queue || en.At.UnixMilli() < sinceMs || (en.Old && !includeOld) {
			continue
		}
		if named != nil {
			if _, ok := named[string(en.MsgID)]; !ok {
				left++
				continue
			}
			named[string(en.MsgID)] = true
		}
		idx = append(idx, i)
	}
	n, leader, reason := e.queues.appendTail(queue, q.entries, idx)
	if n > 0 {
		done := map[int]bool{}
		for _, i := range idx[:n] {
			done[i] = true
		}
		kept := q.entries[:0]
		for i, en := range q.entries {
			if !done[i] {
				kept = append(kept, en)
			}
		}
		clear(q.entries[len(kept):])
		q.entries = kept
	}
	rep := wire.ReinjectReply{Count: int64(n), Leader: leader, StopReason: reason, Left: left}
	for _, id := range ids {
		if found, ok := named[string(id)]; ok && !found {
			rep.Missing = append(rep.Missing, id)
			named[string(id)] = true // a repeated id is reported once
		}
	}
	e.logf("engine: REINJECT %s into %s: %d messages (%s)", dir, queue, n, reason)
	return rep
}

// appendTail appends entries[idx...] to queue's tail on the leader's
// replica as committed puts, in quarantine order, and hands them to
// waiting GETs. It returns how many it appended, the leader and why it
// stopped early ("" when all were appended).
func (s *queueStore) appendTail(queue string, entries []QuarantineEntry, idx []int) (int, int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.leaderLocked()
	if l == nil {
		return 0, 0, "no leader (election in progress)"
	}
	qu := l.queues[queue]
	if qu == nil {
		return 0, l.node, "queue " + queue + " is not defined"
	}
	op := &commitOp{}
	now := time.Now().UnixMilli()
	stop := ""
	for _, i := range idx {
		if qu.cfg.MaxDepth > 0 && int64(len(qu.msgs)) >= qu.cfg.MaxDepth {
			stop = fmt.Sprintf("queue %s is full (max depth %d)", queue, qu.cfg.MaxDepth)
			break
		}
		en := entries[i]
		s.appendLocked(l, qu, &message{id: en.MsgID, payload: en.Payload, headers: en.Headers, putTimeMs: now}, op)
	}
	if len(op.puts) > 0 {
		s.commitLocked(l, op)
		s.serveWaitersLocked(qu)
	}
	return len(op.puts), l.node, stop
}

func handleViewQuarantine(r *request) {
	var req wire.QmgrRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	r.reply(&wire.TextReply{Text: r.c.e.adm.quar.listText(r.c.e.cfg.QueueManager, time.Now())})
}

func handleScanQuarantine(r *request) {
	var req wire.QuarantineRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	if len(req.MsgIDs) > wire.MaxSelectIDs {
		r.fail(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("msg_ids: %d ids; at most %d per SCAN QUARANTINE", len(req.MsgIDs), wire.MaxSelectIDs)})
		return
	}
	r.reply(&wire.TextReply{Text: r.c.e.adm.quar.scanText(req.Dir, req.Queue, req.SinceMs, req.MsgIDs)})
}

func handleReinject(r *request) {
	var req wire.QuarantineRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	if req.Queue == "" {
		r.fail(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: "REINJECT needs a queue"})
		return
	}
	if len(req.MsgIDs) > wire.MaxSelectIDs {
		r.fail(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("msg_ids: %d ids; at most %d per REINJECT", len(req.MsgIDs), wire.MaxSelectIDs)})
		return
	}
	ids := cloneIDs(req.MsgIDs)
	rep := r.c.e.reinject(req.Dir, req.Queue, req.SinceMs, req.IncludeOld, ids)
	r.reply(&rep)
}
