package admin

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"ilinkdash/ilink/numfmt"
	"ilinkdash/ilink/wire"
)

// The quarantine travels as engine text (spec Q-20, docs/PROTOCOL.md
// §11.6); these parse it for tables and JSON. Lines of an unknown kind or
// that do not parse are skipped, like the lead table's.

// QuarantineDir is one directory × queue of getQuarantineList.
type QuarantineDir struct {
	Dir, Queue     string
	Entries        int
	New, Old       int // OLD = messages the queue already delivered
	Oldest, Newest time.Time
}

// QuarantineEntry is one entry of scanQuarantine.
type QuarantineEntry struct {
	Time       time.Time
	Old        bool // the queue already delivered it: reinjecting duplicates it
	MsgID      []byte
	Bytes      int
	Dir, Queue string
	// HasBody is set when the scan named this entry (ScanQuarantineBodies):
	// Headers and Payload are then the quarantined message's.
	HasBody bool
	Headers []wire.RecordHeader
	Payload []byte
}

// QuarantineScan is scanQuarantine parsed.
type QuarantineScan struct {
	Entries []QuarantineEntry
	Total   int // the engine's total line
}

// Counts returns the NEW and OLD entries of the scan.
func (s QuarantineScan) Counts() (newN, oldN int) {
	for _, e := range s.Entries {
		if e.Old {
			oldN++
		} else {
			newN++
		}
	}
	return newN, oldN
}

// ParseQuarantineList parses VIEW QUARANTINE text: QUARANTINE|<qmgr>|<ms>,
// then dir|<dir>|<queue>|<entries>|<new>|<old>|<oldest ms>|<newest ms>.
func ParseQuarantineList(text string) ([]QuarantineDir, error) {
	lines := splitLines(text)
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "QUARANTINE|") {
		return nil, fmt.Errorf("quarantine list: want a first line QUARANTINE|<qmgr>|<ms>")
	}
	out := []QuarantineDir{}
	for _, l := range lines[1:] {
		f := strings.Split(l, "|")
		if len(f) != 8 || f[0] != "dir" {
			continue
		}
		ok := true
		d := QuarantineDir{Dir: f[1], Queue: f[2], Entries: atoiOK(f[3], &ok), New: atoiOK(f[4], &ok), Old: atoiOK(f[5], &ok),
			Oldest: msOK(f[6], &ok), Newest: msOK(f[7], &ok)}
		if ok {
			out = append(out, d)
		}
	}
	return out, nil
}

// ParseQuarantineScan parses SCAN QUARANTINE text: SCAN|<dir>|<queue>|<since>,
// entry|<ms>|<NEW|OLD>|<msg id hex>|<bytes>|<dir>|<queue> lines, each
// (in a scan with ids) followed by header|<key b64>|<value b64> and
// body|<payload b64> lines for its entry, and total|<n>.
func ParseQuarantineScan(text string) (QuarantineScan, error) {
	lines := splitLines(text)
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "SCAN|") {
		return QuarantineScan{}, fmt.Errorf("quarantine scan: want a first line SCAN|<dir>|<queue>|<since ms>")
	}
	s := QuarantineScan{Entries: []QuarantineEntry{}}
	for _, l := range lines[1:] {
		f := strings.Split(l, "|")
		ok := true
		switch {
		case len(f) == 2 && f[0] == "total":
			if n := atoiOK(f[1], &ok); ok {
				s.Total = n
			}
		case len(f) == 7 && f[0] == "entry" && (f[2] == "NEW" || f[2] == "OLD"):
			id, err := hex.DecodeString(f[3])
			e := QuarantineEntry{Time: msOK(f[1], &ok), Old: f[2] == "OLD", MsgID: id, Bytes: atoiOK(f[4], &ok), Dir: f[5], Queue: f[6]}
			if ok && err == nil {
				s.Entries = append(s.Entries, e)
			}
		case len(f) == 3 && f[0] == "header" && len(s.Entries) > 0:
			k, err1 := base64.StdEncoding.DecodeString(f[1])
			v, err2 := base64.StdEncoding.DecodeString(f[2])
			if err1 == nil && err2 == nil {
				e := &s.Entries[len(s.Entries)-1]
				e.Headers = append(e.Headers, wire.RecordHeader{Key: string(k), Value: v})
			}
		case len(f) == 2 && f[0] == "body" && len(s.Entries) > 0:
			if b, err := base64.StdEncoding.DecodeString(f[1]); err == nil {
				e := &s.Entries[len(s.Entries)-1]
				e.HasBody, e.Payload = true, b
			}
		}
	}
	return s, nil
}

// ScanQuarantineBodies is ScanQuarantine with msg_ids: the entries with
// these ids (1..MaxMoveIDs) are followed by their headers and body
// (header| and body| lines, ParseQuarantineScan reads them), so an entry
// can be opened before it is reinjected.
func (q *Qmgr) ScanQuarantineBodies(ctx context.Context, dir, queue string, ids [][]byte) (string, error) {
	if err := checkNamedIDs("ScanQuarantineBodies", ids, "name the entries to open"); err != nil {
		return "", err
	}
	var rep wire.TextReply
	req := &wire.QuarantineRequest{Qmgr: q.qmgr(), Dir: dir, Queue: queue, MsgIDs: ids}
	if err := q.svc.read(ctx, wire.CodeScanQuarantine, req, &rep); err != nil {
		return "", err
	}
	return rep.Text, nil
}

// DuplicateWarning is the spec's warning before a reinjection that takes
// OLD entries, or "" when old is 0.
func DuplicateWarning(old int, queue string) string {
	if old <= 0 {
		return ""
	}
	return fmt.Sprintf("%d OLD %s: messages %s already delivered. Reinjecting %s appends %s to the tail of %s again, and duplicates are not removed: consumers will see %s twice.",
		old, numfmt.Agree(old, "entry", "entries"), queue, numfmt.Agree(old, "it", "them"), numfmt.Agree(old, "it", "them"), queue, numfmt.Agree(old, "it", "them"))
}

// ReinjectQuarantineIDs reinjects exactly the entries of dir (""= any) for
// queue with these ids (1..MaxMoveIDs): the ones a scan showed, so what
// runs is what the operator saw. OLD entries among them are taken only
// with includeOld (spec Q-23). The result lists the ids no entry had any
// more (Missing) and counts the entries of the selection the ids did not
// name, left in the quarantine (Left: quarantined after the scan).
func (q *Qmgr) ReinjectQuarantineIDs(ctx context.Context, dir, queue string, ids [][]byte, includeOld bool) (QuarantineReinjectResult, error) {
	if err := q.svc.mutate("ReinjectQuarantineIDs"); err != nil {
		return QuarantineReinjectResult{}, err
	}
	if err := checkNamedIDs("ReinjectQuarantineIDs", ids, "name the entries a scan showed"); err != nil {
		return QuarantineReinjectResult{}, err
	}
	var rep wire.ReinjectReply
	req := &wire.QuarantineRequest{Qmgr: q.qmgr(), Dir: dir, Queue: queue, IncludeOld: includeOld, MsgIDs: ids}
	if err := q.svc.write(ctx, wire.CodeReinject, req, &rep); err != nil {
		return QuarantineReinjectResult{}, err
	}
	return QuarantineReinjectResult{Count: rep.Count, Leader: rep.Leader, StopReason: rep.StopReason, Missing: rep.Missing, Left: rep.Left}, nil
}

// ReinjectPlan is what a reinjection of the scanned entries of one
// directory and queue takes: the ids (NEW entries, and OLD ones with
// includeOld) and the counts, for the preview and its execution.
type ReinjectPlan struct {
	Dir, Queue string
	IncludeOld bool
	IDs        [][]byte
	New, Old   int // entries taken
	OldLeft    int // OLD entries left out (no includeOld)
	Beyond     int // entries beyond MaxMoveIDs: the next reinjection's
}

// PlanReinject selects from a scan the entries a reinjection of dir
// ("" = any) and queue takes, in quarantine order, at most MaxMoveIDs.
func PlanReinject(s QuarantineScan, dir, queue string, includeOld bool) ReinjectPlan {
	p := ReinjectPlan{Dir: dir, Queue: queue, IncludeOld: includeOld}
	for _, e := range s.Entries {
		if (dir != "" && e.Dir != dir) || e.Queue != queue {
			continue
		}
		switch {
		case e.Old && !includeOld:
			p.OldLeft++
			continue
		case len(p.IDs) == MaxMoveIDs:
			p.Beyond++
			continue
		case e.Old:
			p.Old++
		default:
			p.New++
		}
		p.IDs = append(p.IDs, e.MsgID)
	}
	return p
}
