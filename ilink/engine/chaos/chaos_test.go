package chaos

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// run runs one experiment and logs its result.
func run(t *testing.T, cfg Config) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("seed %d: %v", cfg.Seed, err)
	}
	b, _ := json.Marshal(res)
	t.Logf("%s", b)
	return res
}

// The short form of bench/cmd/chaos: three seeds of 10 s with every fault
// kind. Any anomaly is a bug in the engine or the client, and so is a
// crashed member costing more re-reads than it had not committed.
func TestChaosShort(t *testing.T) {
	for _, seed := range []int64{1, 2, 3} {
		t.Run("seed"+string(rune('0'+seed)), func(t *testing.T) {
			t.Parallel()
			res := run(t, Config{Seed: seed, Duration: 10 * time.Second})
			if !res.Clean() {
				t.Errorf("seed %d: lost %d, duplicated %d, reordered %d, misacked %d, backwards commits %d; e.g. %q",
					seed, res.Lost, res.Duplicated, res.Reordered, res.Misacked, res.BackwardsCommits, res.Examples)
			}
			if res.Acked == 0 || res.Read < res.Acked {
				t.Errorf("seed %d: %d acknowledged, %d read back", seed, res.Acked, res.Read)
			}
			for _, f := range res.FaultLog {
				if f.Kind == CrashMember && f.ReReads > f.Uncommitted {
					t.Errorf("seed %d: crash at %d ms: %d re-reads, more than the %d records the member had not committed", seed, f.AtMs, f.ReReads, f.Uncommitted)
				}
			}
			total := 0
			for _, n := range res.Faults {
				total += n
			}
			if total < 5 {
				t.Errorf("seed %d: only %d faults applied: %v", seed, total, res.Faults)
			}
		})
	}
}

// A checker that cannot fail proves nothing: with the engine's idempotent
// de-duplication switched off, lost replies make the producers resend
// batches the engine already stored, and the checker must report the
// duplicates.
func TestChaosFindsPlantedBug(t *testing.T) {
	t.Parallel()
	res := run(t, Config{Seed: 7, Duration: 4 * time.Second, PlantedBug: true, Faults: []string{DropReplies, Sever}})
	if res.Duplicated == 0 || res.Clean() {
		t.Fatalf("the planted bug went unnoticed: %+v", res)
	}
	if len(res.Examples) == 0 {
		t.Fatalf("no example of the duplicates: %+v", res)
	}
}

func TestConfigRefusesUnknownFault(t *testing.T) {
	if _, err := (Config{Faults: []string{"kill-everything"}}).withDefaults(); err == nil {
		t.Fatal("an unknown fault kind was accepted")
	}
}

// The history charges a record delivered twice to the fault before it,
// and a fault recovers once every partition had a record acknowledged and
// one delivered that were sent after it.
func TestHistoryReReadsAndRecovery(t *testing.T) {
	h := newHistory(1)
	h.sent(0, 0)
	h.outcome(0, 0, 0, 0, 1, nil)
	h.delivered(0, 0, 0, 1)
	f := h.fault(Sever, "", 2, false)
	h.delivered(0, 0, 0, 1) // the same record again: a re-read
	after := f.at.UnixNano() + 1
	h.sent(0, 1)
	h.outcome(0, 1, 0, 1, after, nil)
	h.delivered(0, 0, 1, after)
	h.checkRecovery(f.at.Add(10 * time.Millisecond))
	if f.completed {
		t.Fatal("recovered although partition 1 had nothing after the fault")
	}
	h.sent(0, 2)
	h.outcome(0, 2, 1, 0, after, nil)
	h.delivered(0, 1, 0, after)
	h.checkRecovery(f.at.Add(20 * time.Millisecond))
	if !f.completed || f.produce != 20*time.Millisecond || f.fetch != 20*time.Millisecond {
		t.Fatalf("recovery %+v", f)
	}
	if h.reReads != 1 || f.reReads != 1 {
		t.Fatalf("re-reads %d, charged to the fault %d", h.reReads, f.reReads)
	}
}

// A record handed to a member that crashed, delivered again, is charged to
// that crash even when other faults came since; the crash counts what the
// member had above the durable commits.
func TestHistoryChargesReReadsToTheCrash(t *testing.T) {
	h := newHistory(1)
	for off := int64(0); off < 5; off++ {
		h.delivered(1, 0, off, 1) // member 1 reads 0..4 of partition 0
	}
	h.delivered(2, 1, 0, 1)           // member 2 reads partition 1
	h.crash(1, map[int32]int64{0: 3}) // committed up to 3: 3 and 4 are not
	crash := h.fault(CrashMember, "member 1", 2, false)
	later := h.fault(Sever, "", 2, false)
	for off := int64(3); off < 5; off++ {
		h.delivered(3, 0, off, 1) // member 3 takes partition 0 over from the commit
	}
	h.delivered(3, 1, 0, 1) // a re-read of member 2's record: the latest fault's
	if crash.uncommitted != 2 || crash.reReads != 2 || later.reReads != 1 || h.reReads != 3 {
		t.Fatalf("crash: uncommitted %d re-reads %d; later fault %d; total %d", crash.uncommitted, crash.reReads, later.reReads, h.reReads)
	}
}

// The client-crash fault: members die without a final commit and are
// replaced; the group reads again at most what a crashed member had not
// committed, and nothing is lost.
func TestChaosClientCrash(t *testing.T) {
	t.Parallel()
	res := run(t, Config{Seed: 11, Duration: 6 * time.Second, Faults: []string{CrashMember, MoveLeader}})
	if !res.Clean() || res.Unconsumed != 0 {
		t.Fatalf("lost %d, duplicated %d, reordered %d, misacked %d, backwards commits %d, unconsumed %d; e.g. %q",
			res.Lost, res.Duplicated, res.Reordered, res.Misacked, res.BackwardsCommits, res.Unconsumed, res.Examples)
	}
	crashes, reReads := 0, 0
	for _, f := range res.FaultLog {
		if f.Kind != CrashMember {
			continue
		}
		crashes++
		reReads += f.ReReads
		if f.ReReads > f.Uncommitted {
			t.Errorf("crash at %d ms: %d re-reads, more than the %d records the member had not committed", f.AtMs, f.ReReads, f.Uncommitted)
		}
	}
	if crashes < 2 || reReads == 0 {
		t.Fatalf("%d crashes, %d re-reads charged to them: the fault measured nothing (%v)", crashes, reReads, res.Faults)
	}
}
