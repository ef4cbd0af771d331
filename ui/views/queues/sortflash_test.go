package queues_test

import (
	"testing"

	"ilinkdash/ui/internal/viewtest"
)

func TestQueueKeysOnTheListSayWhy(t *testing.T) {
	r := viewtest.Polled(t, false, queuesView)
	for _, k := range []string{"P", "T", "M"} {
		r.Key(k)
		if f := viewtest.FlashTexts(r); len(f) != 1 || f[0] != "open a queue first (enter): "+k+" acts on the open queue" {
			t.Fatalf("%s on the queue list: flash %q", k, f)
		}
		if r.V.Capturing() {
			t.Fatalf("%s on the list opened something", k)
		}
	}
}

func TestCosmeticsQueueRedeliveries(t *testing.T) {
	r := viewtest.Polled(t, false, queuesView)
	r.OpenRow("PAYMENTS.IN")
	r.MustShow("after 3 redeliveries")
	r.MustNotShow("redeliverys")
}

// At 80 columns the Queues list keeps DLQ (the sparkline goes first).
func TestQueuesAt80KeepDLQ(t *testing.T) {
	r := viewtest.New(t, false, queuesView)
	r.V.SetSize(80, 20)
	r.Poll()
	r.MustShow("DLQ", "PAYMENTS.DLQ")
	r.MustNotShow("DEPTH TREND")
	r.V.SetSize(70, 20)
	r.MustShow("DLQ")
}
