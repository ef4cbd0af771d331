package views

import (
	"testing"
	"time"

	"ilinkdash/ilink/admin"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func TestDrainText(t *testing.T) {
	tests := []struct {
		lag        int64
		rate, prod float64
		want       string
	}{
		{-1, 10, 0, "-"}, // unknown, never -1
		{0, 10, 10, "caught up"},
		{100, -1, -1, "…"},
		{100, 0, 5, "not draining"},
		{100, 10, 10, "steady"},
		{100, 10, 20, "falling behind"},
		{1000, 20, 10, "≈ 1m40s"},
		{1 << 50, 1, 0, "> 30d"},
	}
	for _, tt := range tests {
		l := admin.PartLag{Records: tt.lag, Unknown: tt.lag < 0}
		if got := drainText(l, tt.rate, tt.prod); got != tt.want {
			t.Errorf("drainText(%d, %v, %v) = %q, want %q", tt.lag, tt.rate, tt.prod, got, tt.want)
		}
	}
}

func TestClassifyDefErr(t *testing.T) {
	tests := []struct {
		text string
		want defOutcome
	}{
		{"MIMQE_CLUSTER_NOT_COMMITTED (not committed - retry)", outNotCommitted},
		{"MIMQE_CLUSTER_NOT_COMMITTED (outcome unknown - check VIEW CLUSTER)", outUnknown},
		{"MIMQE_CLUSTER_NOT_COMMITTED (earlier change still pending - retry)", outPending},
		{"MIMQE_CLUSTER_DEF_MOVED", outMoved},
		{"MIMQE_INVALID_ARGUMENT (qmgr or address is node 2's)", outNodeExists},
		{"MIMQE_INVALID_PROPERTY (REPLICAS 5 exceeds 3 data nodes)", outInvalid},
		{"MIMQE_CONNECTION_LOST", outOther},
	}
	for _, tt := range tests {
		if got := classifyDefErr(errText(tt.text)); got != tt.want {
			t.Errorf("classify(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	if classifyDefErr(nil) != outOK {
		t.Error("nil is not OK")
	}
}

type errText string

func (e errText) Error() string { return string(e) }

func TestParsers(t *testing.T) {
	if got, err := parseRetention(""); err != nil || got != nil {
		t.Errorf("parseRetention(\"\") = %v, %v; want nil (the cluster's default)", got, err)
	}
	for in, want := range map[string]int64{"forever": 0, "7d": 7 * 86_400_000, "1w2d": 9 * 86_400_000, "90m": 5_400_000} {
		if got, err := parseRetention(in); err != nil || got == nil || *got != want {
			t.Errorf("parseRetention(%q) = %v, %v; want %d", in, got, err, want)
		}
	}
	if _, err := parseRetention("7x"); err == nil {
		t.Error("bad unit accepted")
	}
	for in, want := range map[string]int64{"": 0, "1GiB": 1 << 30, "500m": 500 << 20, "1024": 1024} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}
