package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
)

var ackedRE = regexp.MustCompile(`([0-9,]+)/([0-9,]+) acknowledged`)

// reconnectingRE is the tail header's note while its consumer cannot
// fetch, with how long nothing was fetched.
var reconnectingRE = regexp.MustCompile(`◌ reconnecting · no fetch for (\d+)s`)

// acked reads "A/N acknowledged" from the publish results.
func acked(screen string) int {
	m := ackedRE.FindStringSubmatch(screen)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	return n
}

// TestDashboardThroughEngineOutage takes the whole engine off the network
// behind a running dashboard, twice, as a crashed engine process, and
// brings it back on the same ports with its state (engine.Outage /
// EndOutage: every listener and connection closed, no leader; then every
// listener reopened and the elections held):
//
//  1. while the dashboard publishes (300 records at 30/s): the outage is
//     shown (the status bar's "cannot reach", its age growing) with the
//     last data kept on screen; the publish shows its records in flight;
//     the overview, looked at meanwhile, keeps its node table, marks its
//     data stale and says it cannot reach the cluster (issue 10's
//     connection truth); after the engine is back the dashboard recovers by
//     itself (within two poll intervals: the poller retries at most two
//     intervals apart), the stale mark goes, and the publish resumes and
//     acknowledges every record, none failed, each exactly once in the log;
//  2. while the dashboard tails the topic (its tail closes when its tab is
//     left, so this is the tail's own outage) and a producer from outside
//     adds 100 records: the tail keeps its records during the outage, its
//     header says it is reconnecting (no longer "● live", the age of the
//     silence growing), and it resumes from its position, live again: it
//     ends with exactly the records of the log, none skipped and none read
//     twice.
func TestDashboardThroughEngineOutage(t *testing.T) {
	t.Parallel()
	const topic, n, rate = "E2E.OUTAGE", 300, 30
	e := engineWithTopic(t, topic, "partitions=3,replicas=3,minSync=2")
	const poll = 400 * time.Millisecond
	d := startDash(t, e, dashOpts{refresh: poll})
	d.waitFor("three running nodes", func(s string) bool {
		return nodeState(s, "1") == "running" && nodeState(s, "2") == "running" && nodeState(s, "3") == "running"
	})

	// 1. The publish: 300 records at 30/s, through an outage.
	d.publishTo(topic)
	d.keys("tab", "tab") // key: null
	d.typeText("rec-{{seq}}")
	d.keys("tab", "tab", "tab") // file, headers → count
	d.keys("backspace")
	d.typeText(fmt.Sprint(n))
	d.keys("tab", "backspace") // rate
	d.typeText(fmt.Sprint(rate))
	d.waitText("✎ Rate", "rec-{{seq}}")
	d.keys("enter")
	d.waitText("Send 300 records to E2E.OUTAGE?")
	d.keys("enter") // confirm
	d.waitFor("a tenth of the records acknowledged", func(s string) bool { return acked(s) >= n/10 })

	outage(t, e, d, poll, func(s string) bool { return strings.Contains(s, "in flight") }, func() {
		// The overview during the outage: last data kept, marked stale (its
		// rows read "stale", never a fresh-looking "running").
		d.keys("1")
		s := d.waitFor("the overview's last data, marked stale", func(s string) bool {
			_, alerts, _ := strings.Cut(s, "Alerts")
			return nodeState(s, "1") == "stale" && strings.Contains(s, "▲ node list stale since") && strings.Contains(alerts, "stale: data from") &&
				strings.Contains(alerts, "✖ cannot reach ")
		})
		t.Logf("the overview during the outage:\n%s", s)
		d.keys("7")
		d.waitText("Results")
	})
	d.keys("1")
	d.waitFor("the overview fresh again", func(s string) bool {
		return !strings.Contains(s, "stale: data from") && !strings.Contains(s, "cannot reach") && nodeState(s, "1") == "running"
	})
	d.keys("7")

	done := d.waitFor("the publish done", func(s string) bool { return acked(s) == n && strings.Contains(s, "✓ done") })
	if strings.Contains(done, "failed") {
		t.Errorf("records failed across the outage:\n%s", done)
	}
	checkLog(t, e, topic, "rec-%d", n)

	// 2. The tail, through an outage, while records keep coming.
	d.openTail(topic, "earliest")
	d.waitFor("the tail shows the published records", func(s string) bool { return tailTotal(s) == fmt.Sprint(n) })
	ctx, cancel := context.WithTimeout(context.Background(), 2*deadline)
	defer cancel()
	p := newProducer(ctx, t, e, ilink.ProducerConfig{ClientName: "e2e-outside", Acks: ilink.AcksAll})
	defer p.Close()
	const more = 100
	sent := make(chan error, 1)
	var sentN atomic.Int32
	go func() {
		for i := 0; i < more; i++ {
			if _, err := p.SendSync(ctx, &ilink.ProducerRecord{Topic: topic, Value: []byte(fmt.Sprintf("ext-%d", i))}); err != nil {
				sent <- fmt.Errorf("ext-%d: %w", i, err)
				return
			}
			sentN.Add(1)
			time.Sleep(20 * time.Millisecond) // records keep coming across the outage: the load under test

		}
		sent <- nil
	}()
	d.waitFor("outside records in the tail", func(s string) bool {
		got, _ := strconv.Atoi(strings.ReplaceAll(tailTotal(s), ",", ""))
		return sentN.Load() >= 10 && got > n
	})
	outage(t, e, d, poll, func(s string) bool { return tailTotal(s) != "" && tailTotal(s) != "0" }, func() {
		// The tail's header tells the truth: reconnecting, for a growing
		// time, not "● live".
		s := d.waitFor("the tail reconnecting, its silence aging", func(s string) bool {
			m := reconnectingRE.FindStringSubmatch(s)
			return m != nil && m[1] != "0" && m[1] != "1" && !strings.Contains(s, "● live")
		})
		t.Logf("the tail during the outage:\n%s", s)
	})
	d.waitFor("the tail live again", func(s string) bool {
		return strings.Contains(s, "● live") && !strings.Contains(s, "reconnecting")
	})
	if err := <-sent; err != nil {
		t.Fatalf("the outside producer: %v", err)
	}
	checkLog(t, e, topic, "ext-%d", more)
	d.waitFor("the tail caught up", func(s string) bool { return tailTotal(s) == fmt.Sprint(n+more) })
	d.markNow()
	if _, ok := d.tryWait(3*poll, func(s string) bool { return tailTotal(s) != fmt.Sprint(n+more) }); ok {
		t.Errorf("the tail went past the %d records of the log (read some twice):\n%s", n+more, d.fr.latest().plain)
	}
}

// outage runs one engine outage behind the dashboard: it waits for the
// error in the status bar, for the error to age while kept (the screen
// keeps satisfying kept), runs during, ends the outage and waits for the
// recovery.
func outage(t *testing.T, e *engine.Engine, d *dash, poll time.Duration, kept func(string) bool, during func()) {
	t.Helper()
	d.markNow()
	if err := e.Outage(); err != nil {
		t.Fatal(err)
	}
	d.waitFor("the outage in the status bar", func(s string) bool { return strings.Contains(statusBar(s), "✖ cannot reach") && kept(s) })
	d.waitFor("the error aged, the last data kept", func(s string) bool {
		m := failingRE.FindStringSubmatch(statusBar(s))
		return m != nil && m[1] != "0" && m[1] != "1" && kept(s)
	})
	t.Logf("during the outage:\n%s", d.fr.latest().plain)
	during()
	d.markNow()
	back := time.Now()
	if err := e.EndOutage(); err != nil {
		t.Fatal(err)
	}
	d.waitFor("recovered: no error in the status bar", func(s string) bool { return !strings.Contains(statusBar(s), "✖") })
	took := time.Since(back)
	t.Logf("recovered %v after the engine came back (poll interval %v)", took.Round(time.Millisecond), poll)
	// Two intervals, plus the reply and a frame; generous for -race on
	// two loaded cores (the poller's own test pins the retry schedule).
	if took > 2*poll+2*time.Second {
		t.Errorf("recovered %v after the engine came back, more than two poll intervals (%v) and 2 s", took, poll)
	}
}

// checkLog asserts that the log holds every record format(i), i < n,
// exactly once.
func checkLog(t *testing.T, e *engine.Engine, topic, format string, n int) {
	t.Helper()
	_, ends := e.TopicOffsets(topic)
	held := map[string]int{}
	for p := range ends {
		recs, err := e.ReadPartition(topic, p, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			held[string(r.Value)]++
		}
	}
	for i := 0; i < n; i++ {
		if c := held[fmt.Sprintf(format, i)]; c != 1 {
			t.Errorf("%s is %d times in the log", fmt.Sprintf(format, i), c)
		}
	}
}
