package admin

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"ilinkdash/ilink/wire"
)

// Text forms (docs/PROTOCOL.md "Admin"): the subscription list and the
// lead table travel as text and are parsed here; LoadInfo and
// ReplicationStatus travel typed and have a stable text form.

func splitLines(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// ParseSubscriptionList parses getSubscriptionList text: one line
// group|state|partition|commit|lag|members=N per group × partition. The
// empty string is no line (spec A-20). A malformed line is an error naming
// it.
func ParseSubscriptionList(text string) ([]SubscriptionLine, error) {
	lines := splitLines(text)
	out := make([]SubscriptionLine, 0, len(lines))
	for i, l := range lines {
		f := strings.Split(l, "|")
		if len(f) != 6 || !strings.HasPrefix(f[5], "members=") || f[0] == "" {
			return nil, fmt.Errorf("subscription list line %d %q: want group|state|partition|commit|lag|members=N", i+1, l)
		}
		p, err1 := strconv.ParseInt(f[2], 10, 32)
		c, err2 := strconv.ParseInt(f[3], 10, 64)
		g, err3 := strconv.ParseInt(f[4], 10, 64)
		m, err4 := strconv.Atoi(strings.TrimPrefix(f[5], "members="))
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || p < 0 || c < -1 || g < -1 || m < 0 {
			return nil, fmt.Errorf("subscription list line %d %q: bad number", i+1, l)
		}
		out = append(out, SubscriptionLine{Group: f[0], State: GroupState(f[1]), Partition: int32(p), Commit: c, Lag: g, Members: m})
	}
	return out, nil
}

// ParseLeadTable parses VIEW CLUSTER LEADERS text in format ILLT1. The
// first non-empty line must be ILLT1|<cluster>|<unix ms>; any other format
// version is an error (spec A-31). Lines of an unknown kind, or that do
// not parse, are skipped.
func ParseLeadTable(text string) (ClusterLeadTable, error) {
	lines := splitLines(text)
	if len(lines) == 0 {
		return ClusterLeadTable{}, fmt.Errorf("lead table: empty (want format %s)", wire.LeadTableFormat)
	}
	head := strings.Split(lines[0], "|")
	if strings.TrimSpace(head[0]) != wire.LeadTableFormat {
		return ClusterLeadTable{}, fmt.Errorf("lead table: unsupported format %q (want %s)", head[0], wire.LeadTableFormat)
	}
	t := ClusterLeadTable{Format: wire.LeadTableFormat}
	for _, l := range lines[1:] {
		if row, ok := parseLeadRow(strings.Split(l, "|")); ok {
			t.Rows = append(t.Rows, row)
		}
	}
	return t, nil
}

func atoiOK(s string, ok *bool) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		*ok = false
	}
	return n
}

func idsOK(s string, ok *bool) []int {
	if s == "-" || s == "" {
		return nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		out = append(out, atoiOK(f, ok))
	}
	return out
}

func partOK(s string, ok *bool) int32 {
	if s == "-" {
		return -1
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		*ok = false
	}
	return int32(n)
}

func msOK(s string, ok *bool) time.Time {
	if s == "-" {
		return time.Time{}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		*ok = false
		return time.Time{}
	}
	return time.UnixMilli(n)
}

func parseLeadRow(f []string) (LeadRow, bool) {
	ok := true
	r := LeadRow{Kind: f[0], Partition: -1}
	switch {
	case f[0] == "node" && len(f) == 5:
		r.Node = atoiOK(f[1], &ok)
		r.Role, r.State = NodeRole(f[2]), NodeState(f[3])
		r.Epoch = int32(atoiOK(f[4], &ok))
	case f[0] == "partition" && len(f) == 7:
		r.Topic, r.Partition = f[1], partOK(f[2], &ok)
		r.Node = atoiOK(f[3], &ok)
		r.Epoch = int32(atoiOK(f[4], &ok))
		r.Replicas, r.InSync = idsOK(f[5], &ok), idsOK(f[6], &ok)
	case f[0] == "bundle" && len(f) == 5:
		r.Bundle = f[1]
		r.Node = atoiOK(f[2], &ok)
		r.Epoch = int32(atoiOK(f[3], &ok))
		r.Members = idsOK(f[4], &ok)
	case f[0] == "election" && len(f) == 9:
		r.Time = msOK(f[1], &ok)
		switch f[2] {
		case "forced":
			r.Forced = true
		case "auto":
		default:
			ok = false
		}
		r.Scope = f[3]
		if r.Scope == "partition" {
			r.Topic = f[4]
		} else {
			r.Bundle = f[4]
		}
		r.Partition = partOK(f[5], &ok)
		r.From = atoiOK(f[6], &ok)
		r.Node = atoiOK(f[7], &ok)
		r.Detail = f[8]
	case f[0] == "offline" && len(f) == 5:
		r.Scope = f[1]
		switch r.Scope {
		case "node":
			r.Node = atoiOK(f[2], &ok)
		case "partition":
			r.Topic, r.Partition = f[2], partOK(f[3], &ok)
		case "bundle":
			r.Bundle = f[2]
		default:
			ok = false
		}
		r.Time = msOK(f[4], &ok)
	default:
		return LeadRow{}, false
	}
	return r, ok
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// Text is the stable text form of LoadInfo:
//
//	VIEW LOAD|<level>|<unix ms>
//	service|sessions=<n>|requests=<n>|req/s=<r>|topics=<n>|partitions=<n>|queues=<n>|depth=<n>
//	node|<id>|<up|down>|<running|stopped>|<leader|->|data=<n>|admin=<n>|requests=<n>|req/s=<r>|led=<n>
//	queue|<name>|depth=<n>|inflight=<n>|put/s=<r>|get/s=<r>
//
// Rates have one decimal; one line per node (level ≥ 1) and queue (level 2).
func (l LoadInfo) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "VIEW LOAD|%d|%d\n", l.Level, l.At.UnixMilli())
	fmt.Fprintf(&b, "service|sessions=%d|requests=%d|req/s=%s|topics=%d|partitions=%d|queues=%d|depth=%d\n",
		l.Sessions, l.Requests, f1(l.RequestsPerSec), l.Topics, l.Partitions, l.Queues, l.QueueDepth)
	pick := func(v bool, yes, no string) string {
		if v {
			return yes
		}
		return no
	}
	for _, n := range l.Nodes {
		fmt.Fprintf(&b, "node|%d|%s|%s|%s|data=%d|admin=%d|requests=%d|req/s=%s|led=%d\n", n.ID,
			pick(n.Up, "up", "down"), pick(n.Running, "running", "stopped"), pick(n.Leader, "leader", "-"),
			n.DataSessions, n.AdminSessions, n.Requests, f1(n.RequestsPerSec), n.PartitionsLed)
	}
	for _, q := range l.QueueLoad {
		fmt.Fprintf(&b, "queue|%s|depth=%d|inflight=%d|put/s=%s|get/s=%s\n", q.Name, q.Depth, q.InFlight, f1(q.PutRate), f1(q.GetRate))
	}
	return b.String()
}

func joinIDs(ids []int) string {
	if len(ids) == 0 {
		return "-"
	}
	var b []byte
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return string(b)
}

// Text is the stable text form of ReplicationStatus:
//
//	REPLICATION|<cluster>|leader=<id>
//	node|<id>|<qmgr>|<role>|<state>|lag=<records>|lag.ms=<ms>
//	partition|<topic>|<partition>|leader=<id>|isr=<ids>|followers=<node>:<in|out>:<records>:<ms>,...
//
// Lists are comma-separated, "-" when empty.
func (r ReplicationStatus) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "REPLICATION|%s|leader=%d\n", r.Cluster, r.Leader)
	for _, n := range r.Nodes {
		fmt.Fprintf(&b, "node|%d|%s|%s|%s|lag=%d|lag.ms=%d\n", n.ID, n.QueueManager, n.Role, n.State, n.LagRecords, n.Lag.Milliseconds())
	}
	for _, p := range r.Partitions {
		fs := make([]string, len(p.Followers))
		for i, f := range p.Followers {
			in := "out"
			if f.InSync {
				in = "in"
			}
			fs[i] = fmt.Sprintf("%d:%s:%d:%d", f.Node, in, f.LagRecords, f.Lag.Milliseconds())
		}
		fl := strings.Join(fs, ",")
		if fl == "" {
			fl = "-"
		}
		fmt.Fprintf(&b, "partition|%s|%d|leader=%d|isr=%s|followers=%s\n", p.Topic, p.Partition, p.Leader, joinIDs(p.InSync), fl)
	}
	return b.String()
}
