package topics_test

import (
	"strings"
	"testing"

	"ilinkdash/ui/internal/viewtest"
)

func TestShiftSortTopicsByInRate(t *testing.T) {
	r := viewtest.Polled(t, false, topicsView)
	r.Key("I") // IN/s, largest first
	if got := r.V.Status(); !strings.Contains(got, "in/s ↓") {
		t.Fatalf("status %q after I", got)
	}
	if got := viewtest.FirstRow(t, r.Screen(), "IN/s↓"); got != "AUDIT.LOG" { // 800/s
		t.Fatalf("first row %q, want AUDIT.LOG (IN/s 800)", got)
	}
	r.Key("I") // again: reversed
	if got := r.V.Status(); !strings.Contains(got, "in/s ↑") {
		t.Fatalf("status %q after I I", got)
	}
	if got := viewtest.FirstRow(t, r.Screen(), "IN/s↑"); got != "SHIPMENT.STATUS" { // 0/s
		t.Fatalf("first row %q, want SHIPMENT.STATUS (IN/s 0)", got)
	}
	r.Key("N")
	if got := r.V.Status(); !strings.Contains(got, "name ↑") {
		t.Fatalf("status %q after N", got)
	}
	r.Key("s") // s still cycles from the sorted column
	if got := r.V.Status(); !strings.Contains(got, "part ↑") {
		t.Fatalf("status %q after s", got)
	}
}

func TestCosmeticsTopicConfigInInputForms(t *testing.T) {
	r := viewtest.Polled(t, false, topicsView)
	r.Key("c") // AUDIT.LOG: 30 days, 1 GiB
	r.MustShow("retention 30d · retention.bytes 1GiB per partition")
	r.MustNotShow("2592000000", "(1 GiB)")
}
