package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// A manual commit the group's coordinator cannot take (its failover) is
// said once and kept, the latest offset per partition, and taken later;
// the tail goes on. It ended the tail (exit 1) at every coordinator
// failover. A refusal still ends it; one not taken at the end is said.
func TestManualCommitsThroughACoordinatorFailover(t *testing.T) {
	busy := &ilink.Error{Name: wire.ErrNotAvailable, Tail: "group coordinator for G", Kind: ilink.KindRejected}
	down := true
	var committed []string
	commit := func(_ context.Context, topic string, part int32, off int64) error {
		if down {
			return busy
		}
		committed = append(committed, fmt.Sprintf("%s/%d@%d", topic, part, off))
		return nil
	}
	var stderr ilinktest.Buffer
	run := tailRun{target: "T", stderr: &stderr}
	var m manualCommits
	ctx := context.Background()
	for off := int64(1); off <= 3; off++ {
		if err := m.commit(ctx, commit, run, "T", 0, off); err != nil {
			t.Fatalf("commit %d in the failover: %v (it ended the tail)", off, err)
		}
	}
	if err := m.commit(ctx, commit, run, "T", 1, 1); err != nil {
		t.Fatal(err)
	}
	if got := stderr.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "commit T/0@1 not taken: MIMQE_NOT_AVAILABLE (group coordinator for G) (still trying") {
		t.Fatalf("stderr %q: want one line saying so", got)
	}
	down = false
	m.tried = time.Time{} // the retry interval passed
	if err := m.retry(ctx, commit, run); err != nil || len(m.pending) != 0 {
		t.Fatalf("retry: %v, pending %v", err, m.pending)
	}
	if got := strings.Join(committed, " "); got != "T/0@3 T/1@1" && got != "T/1@1 T/0@3" {
		t.Fatalf("committed %q: want the latest offset of each partition once", committed)
	}
	if !strings.HasSuffix(stderr.String(), "ilinkdash: tail: commits taken again\n") {
		t.Fatalf("stderr %q: want the end of the failover said", stderr.String())
	}
	// A refusal ends the tail.
	refused := errors.Join(&ilink.Error{Name: wire.ErrTopicRebalanced, Kind: ilink.KindRejected})
	if err := m.commit(ctx, func(context.Context, string, int32, int64) error { return refused }, run, "T", 0, 9); err == nil || !strings.Contains(err.Error(), "tail T: commit T/0@9") {
		t.Fatalf("a refused commit: %v, want the tail ended", err)
	}
	// Not taken at the end: said.
	m, down = manualCommits{}, true
	if err := m.commit(ctx, commit, run, "T", 0, 5); err != nil {
		t.Fatal(err)
	}
	if err := m.last(ctx, commit, run); err != nil || !strings.HasSuffix(stderr.String(), "the commits of 1 partition not taken at the end: the group reads their last records again\n") {
		t.Fatalf("last: %v, stderr %q", err, stderr.String())
	}
}

// tail --group G --exit-at-end whose member is given no partition (another
// member holds the topic's only one) says so and waits for its share:
// given none within the wait, it fails naming the group; it exited 0 at
// once, having printed nothing (an empty save). Given the partition when
// the holder leaves, it reads to the end.
func TestTailExitAtEndWaitsForTheGroupsShare(t *testing.T) {
	defer func(w time.Duration) { shareWait = w }(shareWait)
	shareWait = 1500 * time.Millisecond
	e, tgt := topicEngine(t, "SHARE.T", "partitions=1")
	_, q := adminAt(t, e.AdminAddrs()[0])
	if _, err := q.Publish(context.Background(), "SHARE.T", nil, []byte("r0")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opt := consumer.NewOptions()
	opt.Group = "share-g"
	holder, err := consumer.Subscribe(ctx, strings.Join(e.DataAddrs(), ","), "SHARE.T", opt)
	if err != nil {
		t.Fatal(err)
	}
	r := runCLIResult(t, "", with(tgt, "tail", "SHARE.T", "--group", "share-g", "--exit-at-end", "--from", "earliest")...)
	if r.code != exitError1 || r.stdout != "" || !strings.Contains(r.stderr, "group share-g gave this member no partition of SHARE.T yet (another member holds them); waiting up to 2s") ||
		!strings.Contains(r.stderr, "tail SHARE.T: group share-g gave this member no partition within 2s: another member holds them all; nothing was read") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 1 and the group named", r.code, r.stdout, r.stderr)
	}
	// The holder leaves while the tail waits: it gets the partition.
	shareWait = 20 * time.Second
	go func() {
		time.Sleep(500 * time.Millisecond) // into the tail's wait: a member leaving then
		holder.Close()
	}()
	r = runCLIResult(t, "", with(tgt, "tail", "SHARE.T", "--group", "share-g", "--exit-at-end", "--from", "earliest")...)
	if r.code != 0 || !strings.Contains(r.stdout, "SHARE.T/0@0") {
		t.Fatalf("after the holder left: exit %d, stdout %q, stderr %q; want the record read to the end", r.code, r.stdout, r.stderr)
	}
}

// A tail whose fetches fail (all nodes down) says so once after
// fetchQuiet, and once when fetching works again: it printed nothing, an
// outage looking like a quiet topic.
func TestTailSaysWhenFetchingFails(t *testing.T) {
	var stderr ilinktest.Buffer
	var w fetchWatch
	t0 := time.Date(2026, 12, 7, 10, 0, 0, 0, time.Local)
	down := consumer.FetchHealth{Err: errors.New("MIMQE_CONNECT_FAILED (127.0.0.1:1: connection refused)"), FailingSince: t0}
	w.check(down, t0.Add(time.Second), &stderr) // not yet
	w.check(down, t0.Add(6*time.Second), &stderr)
	w.check(down, t0.Add(9*time.Second), &stderr) // said once
	w.check(consumer.FetchHealth{OK: t0.Add(10 * time.Second)}, t0.Add(10*time.Second), &stderr)
	w.check(consumer.FetchHealth{OK: t0.Add(11 * time.Second)}, t0.Add(11*time.Second), &stderr)
	want := "ilinkdash: tail: no fetch since 10:00:00: MIMQE_CONNECT_FAILED (127.0.0.1:1: connection refused) (still trying)\nilinkdash: tail: fetching again\n"
	if got := stderr.String(); got != want {
		t.Fatalf("stderr %q, want %q", got, want)
	}
}
