package admin

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"ilinkdash/ilink/wire"
)

// QueueDefinition is what DefineQueue gives a queue. MaxDepth 0 is
// unlimited; DeadLetterQueue and MaxRedeliveries are set together (a
// message returned to the queue more than MaxRedeliveries times moves to
// DeadLetterQueue, which the engine creates when it does not exist).
type QueueDefinition struct {
	Description     string
	MaxDepth        int64
	DeadLetterQueue string
	MaxRedeliveries int
}

// QueuePropsSyntax describes the text ParseQueueDefinition reads, for
// flag help and errors.
const QueuePropsSyntax = "comma-separated key=value: maxDepth=N (0 = unlimited), dlq=QUEUE, maxRedeliveries=N, description=TEXT; e.g. maxDepth=1000,dlq=ORDERS.DLQ,maxRedeliveries=3"

// ParseQueueDefinition reads "maxDepth=1000,dlq=ORDERS.DLQ,maxRedeliveries=3".
// Keys are case-insensitive (deadLetterQueue is dlq's long name); an
// empty text is no property at all. Every error names the key and what is
// wanted. The engine checks the combination (dlq needs maxRedeliveries and
// the other way round).
func ParseQueueDefinition(props string) (QueueDefinition, error) {
	var d QueueDefinition
	if strings.TrimSpace(props) == "" {
		return d, nil
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(props, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return d, fmt.Errorf("queue property %q: want key=value (%s)", strings.TrimSpace(kv), QueuePropsSyntax)
		}
		key := strings.ToLower(k)
		if key == "deadletterqueue" {
			key = "dlq"
		}
		if seen[key] {
			return d, fmt.Errorf("queue property %s given twice", k)
		}
		seen[key] = true
		num := func(max int64) (int64, error) {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 || n > max {
				return 0, fmt.Errorf("queue property %s=%q: want a whole number 0..%d", k, v, max)
			}
			return n, nil
		}
		switch key {
		case "maxdepth":
			n, err := num(1 << 40)
			if err != nil {
				return d, err
			}
			d.MaxDepth = n
		case "maxredeliveries":
			n, err := num(1_000_000)
			if err != nil {
				return d, err
			}
			d.MaxRedeliveries = int(n)
		case "dlq":
			if v == "" {
				return d, fmt.Errorf("queue property %s: empty queue name", k)
			}
			d.DeadLetterQueue = v
		case "description":
			d.Description = v
		default:
			return d, fmt.Errorf("unknown queue property %q (want maxDepth, dlq, maxRedeliveries or description)", k)
		}
	}
	return d, nil
}

// String gives the definition in ParseQueueDefinition's syntax (only the
// properties that are set).
func (d QueueDefinition) String() string {
	var parts []string
	if d.MaxDepth > 0 {
		parts = append(parts, "maxDepth="+strconv.FormatInt(d.MaxDepth, 10))
	}
	if d.DeadLetterQueue != "" {
		parts = append(parts, "dlq="+d.DeadLetterQueue)
	}
	if d.MaxRedeliveries > 0 {
		parts = append(parts, "maxRedeliveries="+strconv.Itoa(d.MaxRedeliveries))
	}
	if d.Description != "" {
		parts = append(parts, "description="+d.Description)
	}
	return strings.Join(parts, ",")
}

// QueueMessage is one browsed message.
type QueueMessage struct {
	Seq          uint64 // position in the queue; the next page starts after it
	ID           []byte
	PutTime      time.Time
	Redeliveries int  // times it went back to the queue
	InFlight     bool // locked by a transacted get not yet committed
	// Headers are the PUT's headers, then the engine's properties of the
	// message: dlq.source, dlq.reason and dlq.time on a dead letter.
	Headers []wire.RecordHeader
	Payload []byte
}

// Header returns the value of header key ("" when absent).
func (m *QueueMessage) Header(key string) string {
	for _, h := range m.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}

// QueueBrowse is one page of BrowseQueue.
type QueueBrowse struct {
	Depth    int64
	Messages []QueueMessage
	More     bool  // messages follow the last one
	Index    int64 // messages ahead of the first one (its 0-based position)
}

// BrowseAt is which page a browse reads: from sequence number From on,
// or, Before > 0, the page that ends just before Before (BrowseLast: the
// last page of the queue). Max 0 is the engine's page of 1,000; MaxBytes
// 0, its bound on the payload bytes of a reply (a page holds at least one
// message).
type BrowseAt struct {
	From, Before  uint64
	Max, MaxBytes int
}

// BrowseLast as BrowseAt.Before reads the last page.
const BrowseLast = math.MaxUint64

// NextSeq is where the next page starts.
func (b QueueBrowse) NextSeq(from uint64) uint64 {
	if n := len(b.Messages); n > 0 {
		return b.Messages[n-1].Seq + 1
	}
	return from
}

// MessageMove is one message of a move: its target, or why it is skipped.
type MessageMove struct {
	ID      []byte
	To      string
	Skipped string // "" = moved (or, planned, would move)
}

// MaxMoveIDs bounds the ids one MoveMessages names, and the messages a
// plan of every message goes through (docs/PROTOCOL.md, MOVE MESSAGES).
const MaxMoveIDs = wire.MaxSelectIDs

// MoveResult is the outcome (or plan) of MoveMessages.
type MoveResult struct {
	Moves      []MessageMove
	Moved      int64
	StopReason string // "" = every selected message was gone through
	// NextSeq is the engine's next message position when it answered: a
	// plan hands it to its execution, which counts the messages at or
	// after it as arrived after the plan.
	NextSeq uint64
	// Unselected counts the messages of the source the selection did not
	// name, left in place (in a plan of every message: those beyond
	// MaxMoveIDs); Arrived, those of them that arrived after the plan.
	Unselected, Arrived int64
}

// MoveSelection is what a move names: in a plan, the ids to look at
// (nil = every message); in an execution, exactly the plan's ids and the
// plan's NextSeq (Execution).
type MoveSelection struct {
	IDs      [][]byte
	PlanNext uint64
}

// Execution is the selection that executes plan r: its planned ids and
// its mark.
func (r MoveResult) Execution() MoveSelection {
	return MoveSelection{IDs: r.Planned(), PlanNext: r.NextSeq}
}

// Planned returns the ids the plan would move (its moves not skipped),
// in queue order: what MoveMessages is given to execute it.
func (r MoveResult) Planned() [][]byte {
	var out [][]byte
	for _, m := range r.Moves {
		if m.Skipped == "" {
			out = append(out, m.ID)
		}
	}
	return out
}

// MoveOutcome is the result of executing a plan read against the plan:
// how many of its messages moved, which of them did not (gone since,
// locked, or a target full: Skipped says why) and what was left in place.
type MoveOutcome struct {
	Planned, Moved int64
	// Missed are the planned messages that did not move, with the reason.
	Missed []MessageMove
	// Arrived counts the messages that arrived after the plan (left in
	// place); Unplanned, the others the plan did not name.
	Arrived, Unplanned int64
	StopReason         string
}

// Against reports r, the result of executing plan, against plan.
func (r MoveResult) Against(plan MoveResult) MoveOutcome {
	o := MoveOutcome{Moved: r.Moved, Arrived: r.Arrived, Unplanned: r.Unselected - r.Arrived, StopReason: r.StopReason}
	planned := plan.Planned()
	o.Planned = int64(len(planned))
	moved := map[string]bool{}
	reason := map[string]MessageMove{}
	for _, m := range r.Moves {
		if m.Skipped == "" {
			moved[string(m.ID)] = true
		} else {
			reason[string(m.ID)] = m
		}
	}
	for _, id := range planned {
		if moved[string(id)] {
			continue
		}
		m, ok := reason[string(id)]
		if !ok {
			m = MessageMove{ID: id, Skipped: "not gone through (the move stopped)"}
		}
		o.Missed = append(o.Missed, m)
	}
	return o
}

// DefineQueue creates queue with def, or gives an existing queue def (its
// messages stay), and returns the queue's properties after it. Refusals
// are MIMQE_INVALID_PROPERTY (<what>).
func (q *Qmgr) DefineQueue(ctx context.Context, queue string, def QueueDefinition) (QueueProperty, error) {
	if err := q.svc.mutate("DefineQueue"); err != nil {
		return QueueProperty{}, err
	}
	var rep wire.QueuePropertyReply
	req := &wire.QueueDefineRequest{Qmgr: q.qmgr(), Queue: queue, Description: def.Description, MaxDepth: def.MaxDepth,
		DeadLetterQueue: def.DeadLetterQueue, MaxRedeliveries: def.MaxRedeliveries}
	if err := q.svc.write(ctx, wire.CodeDefineQueue, req, &rep); err != nil {
		return QueueProperty{}, err
	}
	return queueProperty(&rep.Property), nil
}

// DeleteQueue deletes a queue and its messages (refused while it is
// another queue's dead-letter queue).
func (q *Qmgr) DeleteQueue(ctx context.Context, queue string) error {
	if err := q.svc.mutate("DeleteQueue"); err != nil {
		return err
	}
	return q.svc.write(ctx, wire.CodeDeleteQueue, &wire.QueueNameRequest{Qmgr: q.qmgr(), Queue: queue}, nil)
}

// BrowseQueue reads up to max messages (0 = the engine's page of 1,000)
// of queue from sequence number from on, without consuming them.
func (q *Qmgr) BrowseQueue(ctx context.Context, queue string, from uint64, max int) (QueueBrowse, error) {
	return q.BrowseQueueAt(ctx, queue, BrowseAt{From: from, Max: max})
}

// BrowseQueueAt reads the page at of queue without consuming it.
func (q *Qmgr) BrowseQueueAt(ctx context.Context, queue string, at BrowseAt) (QueueBrowse, error) {
	var rep wire.QueueBrowseReply
	req := &wire.QueueBrowseRequest{Qmgr: q.qmgr(), Queue: queue, FromSeq: at.From, Max: at.Max, MaxBytes: at.MaxBytes, BeforeSeq: at.Before}
	if err := q.svc.read(ctx, wire.CodeBrowseQueue, req, &rep); err != nil {
		return QueueBrowse{}, err
	}
	out := QueueBrowse{Depth: rep.Depth, More: rep.More, Index: rep.Index, Messages: make([]QueueMessage, len(rep.Messages))}
	for i, m := range rep.Messages {
		out.Messages[i] = QueueMessage{Seq: m.Seq, ID: m.MsgID, PutTime: msTime(m.PutTimeMs), Redeliveries: m.Redeliveries,
			InFlight: m.InFlight, Headers: m.Headers, Payload: m.Payload}
	}
	return out, nil
}

func (q *Qmgr) move(ctx context.Context, from, to string, ids [][]byte, dryRun bool, planNext uint64) (MoveResult, error) {
	var rep wire.QueueMoveReply
	req := &wire.QueueMoveRequest{Qmgr: q.qmgr(), From: from, To: to, MsgIDs: ids, DryRun: dryRun, PlanNextSeq: planNext}
	if err := q.svc.readOrWrite(ctx, dryRun, wire.CodeMoveMessages, req, &rep); err != nil {
		return MoveResult{}, err
	}
	out := MoveResult{Moved: rep.Moved, StopReason: rep.StopReason, Moves: make([]MessageMove, len(rep.Moves)),
		NextSeq: rep.NextSeq, Unselected: rep.Unselected, Arrived: rep.Arrived}
	for i, m := range rep.Moves {
		out.Moves[i] = MessageMove{ID: m.MsgID, To: m.To, Skipped: m.Skipped}
	}
	return out, nil
}

// checkIDs checks that ids fit one request: at most MaxMoveIDs.
func checkIDs(what string, ids [][]byte) error {
	if len(ids) > MaxMoveIDs {
		return fmt.Errorf("%s: %d message ids; at most %d per request", what, len(ids), MaxMoveIDs)
	}
	return nil
}

// checkNamedIDs checks the ids of a call that acts on exactly the
// messages it names: 1..MaxMoveIDs; none is refused with hint, which
// says where the ids come from.
func checkNamedIDs(what string, ids [][]byte, hint string) error {
	if len(ids) == 0 {
		return fmt.Errorf("%s: no message id: %s", what, hint)
	}
	return checkIDs(what, ids)
}

// PlanMoveMessages returns what MoveMessages would do, changing nothing:
// the messages of from with these ids (nil = every message, the first
// MaxMoveIDs; Unselected counts the rest).
func (q *Qmgr) PlanMoveMessages(ctx context.Context, from, to string, ids [][]byte) (MoveResult, error) {
	if err := checkIDs("PlanMoveMessages", ids); err != nil {
		return MoveResult{}, err
	}
	return q.move(ctx, from, to, ids, true, 0)
}

// MoveMessages executes a plan: it moves exactly the messages of queue
// from with these ids (plan.Planned(); 1..MaxMoveIDs) to queue to ("" =
// back to each dead letter's source queue), appended at the target's
// tail. planNext is the plan's NextSeq (0 = none): messages that arrived
// after it are counted (Arrived), never moved. Ids no longer in from, in
// flight or without a target are skipped with the reason; a full target
// stops the move (StopReason). Compare the result with the plan with
// Against.
func (q *Qmgr) MoveMessages(ctx context.Context, from, to string, ids [][]byte, planNext uint64) (MoveResult, error) {
	if err := q.svc.mutate("MoveMessages"); err != nil {
		return MoveResult{}, err
	}
	if err := checkNamedIDs("MoveMessages", ids, "a move executes the ids of its plan (PlanMoveMessages, then MoveResult.Planned)"); err != nil {
		return MoveResult{}, err
	}
	return q.move(ctx, from, to, ids, false, planNext)
}

// MaxPutHeaders bounds the headers of one put (TUI form and CLI).
const MaxPutHeaders = 64

// ParsePutHeader reads one header "key=value" (the value may be empty and
// hold any character; the key is trimmed and must not be empty nor hold
// control characters).
func ParsePutHeader(s string) (wire.RecordHeader, error) {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	switch {
	case !ok:
		return wire.RecordHeader{}, fmt.Errorf("%q is not key=value", s)
	case k == "":
		return wire.RecordHeader{}, fmt.Errorf("%q has an empty key", s)
	case strings.IndexFunc(k, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0:
		return wire.RecordHeader{}, fmt.Errorf("the key %q holds control characters", k)
	}
	return wire.RecordHeader{Key: k, Value: []byte(v)}, nil
}

// ParsePutHeaders reads "k=v, k2=v2" or one key=value per line (`\,` is
// a literal comma; blank items are skipped), at most MaxPutHeaders.
func ParsePutHeaders(text string) ([]wire.RecordHeader, error) {
	var items []string
	var cur strings.Builder
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\\' && i+1 < len(text) && text[i+1] == ',':
			cur.WriteByte(',')
			i++
		case c == ',' || c == '\n' || c == '\r':
			items = append(items, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	items = append(items, cur.String())
	var out []wire.RecordHeader
	for _, it := range items {
		if strings.TrimSpace(it) == "" {
			continue
		}
		h, err := ParsePutHeader(strings.TrimSpace(it))
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	if len(out) > MaxPutHeaders {
		return nil, fmt.Errorf("%d headers; at most %d", len(out), MaxPutHeaders)
	}
	return out, nil
}
