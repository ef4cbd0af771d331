// Command chaos runs the Jepsen-style checker of package
// ilinkdash/ilink/engine/chaos over many seeds: idempotent acks=all
// producers and a consumer group against an in-process engine under a
// seeded random fault schedule, then a read-back of every partition. It
// prints a table (or, with --json, one JSON document) and exits 1 when any
// seed lost, duplicated or reordered a record, acknowledged one at the
// wrong offset, or saw a group commit go backwards.
//
//	cd bench && go run ./cmd/chaos --seeds 20 --duration 30s --json
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"ilinkdash/ilink/engine/chaos"
)

// report is the JSON document.
type report struct {
	Seeds            int                       `json:"seeds"`
	FirstSeed        int64                     `json:"first_seed"`
	Duration         string                    `json:"duration"`
	PlantedBug       bool                      `json:"planted_bug,omitempty"`
	Sent             int                       `json:"sent"`
	Acked            int                       `json:"acked"`
	Unacked          int                       `json:"unacked"`
	Read             int                       `json:"read"`
	Consumed         int                       `json:"consumed"`
	Lost             int                       `json:"lost"`
	Duplicated       int                       `json:"duplicated"`
	Reordered        int                       `json:"reordered"`
	Misacked         int                       `json:"misacked"`
	BackwardsCommits int                       `json:"backwards_commits"`
	ReReads          int                       `json:"re_reads"`
	Unconsumed       int                       `json:"unconsumed"`
	Faults           map[string]int            `json:"faults"`
	Recovery         map[string]chaos.Recovery `json:"recovery"`          // worst case over the seeds, by fault kind
	IsolatedRecovery map[string]chaos.Recovery `json:"isolated_recovery"` // the same over the faults that overlapped no other
	ElectionDelayMs  int64                     `json:"election_delay_ms"`
	Rows             []*chaos.Result           `json:"rows"`
}

func main() {
	seeds := flag.Int("seeds", 20, "number of seeds")
	first := flag.Int64("seed", 1, "first seed")
	duration := flag.Duration("duration", 30*time.Second, "fault phase per seed")
	jsonOut := flag.Bool("json", false, "print one JSON document instead of a table")
	faults := flag.String("faults", "", "comma-separated fault kinds (default all: "+strings.Join(chaos.Kinds, ",")+")")
	planted := flag.Bool("planted-bug", false, "switch the engine's idempotent de-duplication off (the checker must fail)")
	producers := flag.Int("producers", 0, "producers (default 3)")
	members := flag.Int("members", 0, "group members (default 3)")
	rate := flag.Int("rate", 0, "records per second per producer (default 400)")
	election := flag.Duration("election-delay", 500*time.Millisecond, "engine election delay")
	verbose := flag.Bool("v", false, "engine and client diagnostics on stderr")
	flag.Parse()

	cfg := chaos.Config{Duration: *duration, PlantedBug: *planted, Producers: *producers, Members: *members, Rate: *rate, ElectionDelay: *election}
	if *faults != "" {
		cfg.Faults = strings.Split(*faults, ",")
	}
	if *verbose {
		cfg.Logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	rep := report{Seeds: *seeds, FirstSeed: *first, Duration: duration.String(), PlantedBug: *planted,
		Faults: map[string]int{}, Recovery: map[string]chaos.Recovery{}, IsolatedRecovery: map[string]chaos.Recovery{}, ElectionDelayMs: election.Milliseconds()}
	for i := 0; i < *seeds; i++ {
		cfg.Seed = *first + int64(i)
		res, err := chaos.Run(ctx, cfg)
		if err != nil {
			fmt.Fprintf(os.Stderr, "chaos: seed %d: %v\n", cfg.Seed, err)
			os.Exit(2)
		}
		if !*jsonOut {
			fmt.Fprintf(os.Stderr, "seed %d: acked %d, lost %d, duplicated %d, reordered %d, backwards commits %d\n",
				res.Seed, res.Acked, res.Lost, res.Duplicated, res.Reordered, res.BackwardsCommits)
		}
		rep.add(res)
	}
	if *jsonOut {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(&rep); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	} else {
		rep.table()
	}
	if rep.Lost+rep.Duplicated+rep.Reordered+rep.Misacked+rep.BackwardsCommits > 0 {
		os.Exit(1)
	}
}

func (r *report) add(res *chaos.Result) {
	r.Rows = append(r.Rows, res)
	r.Sent += res.Sent
	r.Acked += res.Acked
	r.Unacked += res.Unacked
	r.Read += res.Read
	r.Consumed += res.Consumed
	r.Lost += res.Lost
	r.Duplicated += res.Duplicated
	r.Reordered += res.Reordered
	r.Misacked += res.Misacked
	r.BackwardsCommits += res.BackwardsCommits
	r.ReReads += res.ReReads
	r.Unconsumed += res.Unconsumed
	for k, n := range res.Faults {
		r.Faults[k] += n
	}
	merge(r.Recovery, res.Recovery)
	merge(r.IsolatedRecovery, res.IsolatedRecovery)
}

// merge folds one seed's recoveries into the worst case over the seeds
// (p50: the worst seed's median).
func merge(into, from map[string]chaos.Recovery) {
	for k, rc := range from {
		w, ok := into[k]
		if !ok {
			w = chaos.Recovery{ProduceMaxMs: -1, FetchMaxMs: -1, ProduceP50Ms: -1, FetchP50Ms: -1}
		}
		w.Count += rc.Count
		w.ProduceMaxMs = max(w.ProduceMaxMs, rc.ProduceMaxMs)
		w.FetchMaxMs = max(w.FetchMaxMs, rc.FetchMaxMs)
		w.ProduceP50Ms = max(w.ProduceP50Ms, rc.ProduceP50Ms)
		w.FetchP50Ms = max(w.FetchP50Ms, rc.FetchP50Ms)
		w.Unrecovered += rc.Unrecovered
		w.MaxReReads = max(w.MaxReReads, rc.MaxReReads)
		into[k] = w
	}
}

func (r *report) table() {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "seed\tacked\tunacked\tread\tlost\tdup\treord\tmisack\tback\tre-reads\tfaults\tprod rec max ms\tfetch rec max ms\tparts\t")
	for _, res := range r.Rows {
		n := 0
		for _, c := range res.Faults {
			n += c
		}
		fmt.Fprintf(w, "%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", res.Seed, res.Acked, res.Unacked, res.Read,
			res.Lost, res.Duplicated, res.Reordered, res.Misacked, res.BackwardsCommits, res.ReReads, n,
			res.ProduceRecoveryMaxMs, res.FetchRecoveryMaxMs, res.Partitions)
	}
	fmt.Fprintf(w, "all\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\t\t\t\t\n", r.Acked, r.Unacked, r.Read, r.Lost, r.Duplicated, r.Reordered, r.Misacked, r.BackwardsCommits, r.ReReads)
	w.Flush()
	for _, t := range []struct {
		title string
		m     map[string]chaos.Recovery
	}{{"recovery after every fault", r.Recovery}, {"recovery after the faults that overlapped no other", r.IsolatedRecovery}} {
		fmt.Printf("\n%s (election delay %d ms)\n", t.title, r.ElectionDelayMs)
		w = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(w, "fault\tcount\tprod max ms\tprod p50 ms\tfetch max ms\tfetch p50 ms\tunrecovered\tmax re-reads\t")
		kinds := make([]string, 0, len(t.m))
		for k := range t.m {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		for _, k := range kinds {
			rc := t.m[k]
			fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", k, rc.Count, rc.ProduceMaxMs, rc.ProduceP50Ms, rc.FetchMaxMs, rc.FetchP50Ms, rc.Unrecovered, rc.MaxReReads)
		}
		w.Flush()
	}
	for _, res := range r.Rows {
		for _, ex := range res.Examples {
			fmt.Printf("seed %d: %s\n", res.Seed, ex)
		}
	}
}
