// Command sidebyside measures the same produce (and optionally consume)
// workload on two stacks in one run:
//
//   - franz: franz-go v1.22.3 (kgo) producing to a kfake cluster;
//   - ilink: the ilinkdash producer (package ilink) producing to the
//     in-process ilink engine (package ilink/engine).
//
// Every measurement gets a fresh engine. By default each (run, stack) runs in
// its own child process with the client and engine inside it (in-process
// mode), so peak RSS and heap numbers of one stack never include the other.
// --mode 2proc puts the engine in one child process and the client in
// another and reports both. See bench/README.md.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

type options struct {
	count, size, warmup, runs  int
	nodes, partitions          int
	batchBytes, bufferBytes    int
	compression, impl, mode    string
	acks, replicas             string
	linger, timeout, waitIdle  time.Duration
	idleBelow                  float64
	retryNoisy                 int
	consume, jsonOut, isolated bool
	seed                       uint64
	child                      string
}

func main() {
	var o options
	fs := flag.NewFlagSet("sidebyside", flag.ExitOnError)
	fs.IntVar(&o.count, "count", 1_000_000, "records per measured produce phase")
	fs.IntVar(&o.size, "size", 100, "value size in bytes (no key)")
	fs.IntVar(&o.warmup, "warmup", 50_000, "records produced to topic \"warmup\" first, not measured")
	fs.IntVar(&o.runs, "runs", 3, "runs per stack; the order of stacks is shuffled per run")
	fs.IntVar(&o.nodes, "nodes", 3, "engine nodes (brokers)")
	fs.IntVar(&o.partitions, "partitions", 6, "partitions of topic \"bench\"")
	fs.IntVar(&o.batchBytes, "batch-bytes", 256<<10, "max batch size (franz ProducerBatchMaxBytes, ilink BatchSize)")
	fs.IntVar(&o.bufferBytes, "buffer-bytes", 32<<20, "producer buffer (franz MaxBufferedBytes, ilink BufferMemory)")
	fs.StringVar(&o.compression, "compression", "lz4", "none | lz4 | zstd")
	fs.StringVar(&o.impl, "impl", "both", "franz | ilink | both")
	fs.StringVar(&o.mode, "mode", "inproc", "inproc (client and engine in one process) | 2proc (engine and client in separate processes)")
	fs.StringVar(&o.acks, "acks", "all", "all (idempotent, both stacks) | leader (idempotence off, both stacks)")
	fs.StringVar(&o.replicas, "replicas", "1", "ilink topic replicas, comma-separated list; each value is its own row (e.g. 1,3)")
	fs.DurationVar(&o.linger, "linger", 5*time.Millisecond, "producer linger (ilink needs whole milliseconds)")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "limit per measurement")
	fs.DurationVar(&o.waitIdle, "wait-idle", 0, "before each measurement, wait up to this long for the rest of the machine to go quiet (0 = do not wait)")
	fs.Float64Var(&o.idleBelow, "idle-below", 0.15, "quiet = other processes use less than this share of all CPUs (--wait-idle, --retry-noisy)")
	fs.IntVar(&o.retryNoisy, "retry-noisy", 0, "measure again, up to this many times, when other processes used more than --idle-below during a phase; the last attempt counts")
	fs.BoolVar(&o.consume, "consume", false, "also measure reading all records back with a direct (non-group) consumer")
	fs.BoolVar(&o.jsonOut, "json", false, "print one JSON document instead of the tables")
	fs.BoolVar(&o.isolated, "isolate", true, "inproc: run every (run, stack) in a fresh child process")
	fs.Uint64Var(&o.seed, "seed", 0, "seed for the order of stacks (0 = from the clock)")
	fs.StringVar(&o.child, "child", "", "internal: run one measurement described by this JSON")
	_ = fs.Parse(os.Args[1:])

	if o.child != "" {
		os.Exit(runChild(o.child))
	}
	if err := orchestrate(o); err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}

// entry is one row of the comparison: a stack with its settings.
type entry struct {
	label    string
	impl     string
	replicas int
}

func (o options) validate() ([]entry, []string, error) {
	var warn []string
	switch {
	case o.count < 1:
		return nil, nil, fmt.Errorf("--count %d: want >= 1", o.count)
	case o.runs < 1:
		return nil, nil, fmt.Errorf("--runs %d: want >= 1", o.runs)
	case o.warmup < 0:
		return nil, nil, fmt.Errorf("--warmup %d: want >= 0", o.warmup)
	case o.size < minSize:
		return nil, nil, fmt.Errorf("--size %d: want >= %d", o.size, minSize)
	case o.partitions < 1 || o.nodes < 1:
		return nil, nil, fmt.Errorf("--partitions and --nodes must be >= 1")
	case o.linger < 0:
		return nil, nil, fmt.Errorf("--linger %v: must not be negative", o.linger)
	}
	if !slices.Contains([]string{"none", "lz4", "zstd"}, o.compression) {
		return nil, nil, fmt.Errorf("--compression %q: want none, lz4 or zstd", o.compression)
	}
	if o.acks != "all" && o.acks != "leader" {
		return nil, nil, fmt.Errorf("--acks %q: want all or leader", o.acks)
	}
	if o.mode != "inproc" && o.mode != "2proc" {
		return nil, nil, fmt.Errorf("--mode %q: want inproc or 2proc", o.mode)
	}
	var impls []string
	switch o.impl {
	case "franz", "ilink":
		impls = []string{o.impl}
	case "both":
		impls = []string{"franz", "ilink"}
	default:
		return nil, nil, fmt.Errorf("--impl %q: want franz, ilink or both", o.impl)
	}
	var es []entry
	for _, impl := range impls {
		if stacks[impl] == nil {
			msg := fmt.Sprintf("the %s stack is not compiled in", impl)
			if o.impl != "both" {
				return nil, nil, fmt.Errorf("%s", msg)
			}
			warn = append(warn, msg+"; measuring the other stack only")
			continue
		}
		if impl == "franz" {
			es = append(es, entry{label: "franz/kfake", impl: impl, replicas: 1})
			continue
		}
		for _, f := range strings.Split(o.replicas, ",") {
			r, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || r < 1 || r > o.nodes {
				return nil, nil, fmt.Errorf("--replicas %q: want values 1..%d", o.replicas, o.nodes)
			}
			es = append(es, entry{label: fmt.Sprintf("ilink r=%d", r), impl: impl, replicas: r})
		}
	}
	return es, warn, nil
}

func (o options) spec(e entry, run int) *spec {
	return &spec{
		Role: "inproc", Impl: e.impl, Label: e.label, Run: run, Replicas: e.replicas,
		Nodes: o.nodes, Partitions: o.partitions, Count: o.count, Warmup: o.warmup, Size: o.size,
		Compression: o.compression, Linger: o.linger, BatchBytes: o.batchBytes,
		BufferBytes: o.bufferBytes, Acks: o.acks, Consume: o.consume, Timeout: o.timeout,
	}
}

// runResult is one (run, stack) measurement.
type runResult struct {
	Run      int           `json:"run"`
	Order    int           `json:"order"` // position within the run
	Label    string        `json:"label"`
	Impl     string        `json:"impl"`
	Replicas int           `json:"replicas,omitempty"`
	Phases   []phaseResult `json:"phases"`
	Err      string        `json:"error,omitempty"`
	Attempts int           `json:"attempts"` // > 1: earlier attempts were noisy (--retry-noisy)
}

func orchestrate(o options) error {
	entries, warns, err := o.validate()
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return fmt.Errorf("nothing to measure")
	}
	if o.seed == 0 {
		o.seed = uint64(time.Now().UnixNano())
	}
	rnd := rand.New(rand.NewPCG(o.seed, 0x51de))
	pool, err := newValuePool(o.size)
	if err != nil {
		return err
	}
	ratios := poolRatios(pool)

	notes := header(o, ratios)
	notes = append(notes, warns...)
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.impl] {
			continue
		}
		seen[e.impl] = true
		notes = append(notes, stacks[e.impl].notes(o.spec(e, 0))...)
		if o.consume && stacks[e.impl].newConsumer == nil {
			notes = append(notes, fmt.Sprintf("%s: consume phase NOT MEASURED: no consumer built in (TODO: package ilinkdash/ilink/consumer)", e.impl))
		}
	}
	if !o.jsonOut {
		for _, n := range notes {
			fmt.Println("#", n)
		}
		fmt.Println()
	}

	var results []runResult
	for run := 1; run <= o.runs; run++ {
		order := slices.Clone(entries)
		rnd.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for pos, e := range order {
			s := o.spec(e, run)
			var r runResult
			for attempt := 0; ; attempt++ {
				r = o.measureOnce(s)
				r.Order = pos + 1
				r.Attempts = attempt + 1
				if attempt >= o.retryNoisy || !r.noisy(o.idleBelow) {
					break
				}
				if !o.jsonOut {
					fmt.Printf("run %d  %-12s  noisy (other processes above %.0f%% of all CPUs): measuring again\n", run, e.label, 100*o.idleBelow)
				}
			}
			results = append(results, r)
			if !o.jsonOut {
				progress(r)
			}
		}

	}

	sum := summarize(entries, results)
	if o.jsonOut {
		doc := map[string]any{
			"config":  o.publicConfig(),
			"notes":   notes,
			"pool":    ratios,
			"runs":    results,
			"summary": sum,
			"ratios":  ratioTable(entries, sum),
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			return err
		}
	} else {
		printTables(os.Stdout, o, entries, sum)
	}
	for _, r := range results {
		if r.Err != "" {
			return fmt.Errorf("%d measurement(s) failed (first: run %d %s: %s)", countErrs(results), r.Run, r.Label, r.Err)
		}
	}
	return nil
}

// measureOnce waits for a quiet machine when asked, then runs one
// measurement in the configured mode.
func (o options) measureOnce(s *spec) runResult {
	if o.waitIdle > 0 {
		if share, ok := waitIdle(o.waitIdle, o.idleBelow); !ok && !o.jsonOut {
			fmt.Printf("run %d  %-12s  machine still busy after %v (other processes %.0f%% of all CPUs); measuring anyway\n", s.Run, s.Label, o.waitIdle, 100*share)
		}
	}
	var r runResult
	switch {
	case o.mode == "2proc":
		r = runTwoProc(s)
	case o.isolated:
		r = runIsolated(s)
	default:
		r = runHere(s)
	}
	for i := range r.Phases {
		r.Phases[i].setOtherCPU()
	}
	return r
}

// noisy reports whether other processes used more than share of all CPUs
// during any phase.
func (r *runResult) noisy(share float64) bool {
	for _, p := range r.Phases {
		if p.OtherCPU > share {
			return true
		}
	}
	return false
}

func countErrs(rs []runResult) int {
	n := 0
	for _, r := range rs {
		if r.Err != "" {
			n++
		}
	}
	return n
}

func (o options) publicConfig() map[string]any {
	return map[string]any{
		"count": o.count, "size": o.size, "warmup": o.warmup, "runs": o.runs,
		"nodes": o.nodes, "partitions": o.partitions, "batch_bytes": o.batchBytes,
		"buffer_bytes": o.bufferBytes, "compression": o.compression, "impl": o.impl,
		"mode": o.mode, "isolated": o.isolated, "acks": o.acks, "idempotent": o.acks == "all",
		"replicas": o.replicas, "linger": o.linger.String(), "consume": o.consume, "seed": o.seed,
		"wait_idle": o.waitIdle.String(), "idle_below": o.idleBelow, "retry_noisy": o.retryNoisy,
		"go": runtime.Version(), "gomaxprocs": runtime.GOMAXPROCS(0), "numcpu": runtime.NumCPU(),
		"gogc": os.Getenv("GOGC"),
	}
}

func header(o options, ratios map[string]float64) []string {
	mode := "in-process: client and engine share one process (one fresh child process per run and stack); allocations, CPU and RSS cover client + engine"
	if !o.isolated {
		mode = "in-process, NOT isolated: all runs share this process; RSS peaks are reset per phase (clear_refs) but heaps overlap"
	}
	if o.mode == "2proc" {
		mode = "2-process: engine in one child process, client in another; client and server columns are separate"
	}
	return []string{
		fmt.Sprintf("sidebyside %s GOMAXPROCS=%d NumCPU=%d GOGC=%q seed=%d", runtime.Version(), runtime.GOMAXPROCS(0), runtime.NumCPU(), os.Getenv("GOGC"), o.seed),
		"mode: " + mode,
		fmt.Sprintf("workload: %d records x %d B values (no key) to topic %q, %d partitions on %d nodes, %d warm-up records to %q first; fresh engine per measurement",
			o.count, o.size, benchTopic, o.partitions, o.nodes, o.warmup, warmupTopic),
		fmt.Sprintf("producer: acks=%s, idempotent=%v, linger=%v, compression=%s, max batch %d B, buffer %d B, async send with one shared callback, wait for every ack, errors must be 0",
			o.acks, o.acks == "all", o.linger, o.compression, o.batchBytes, o.bufferBytes),
		fmt.Sprintf("values: pool of %d JSON-ish values (pre-generated); per 64 KiB of values lz4 ratio %.2f, zstd ratio %.2f", poolSize, ratios["lz4"], ratios["zstd"]),
		"rec/s and MB/s (value bytes, 10^6) from the first send to the last ack; allocs, B, CPU per record from runtime.MemStats and getrusage deltas around the phase (they include one harness record struct per send); peak RSS = VmHWM reset at the start of the phase",
	}
}

func progress(r runResult) {
	if r.Err != "" {
		fmt.Printf("run %d  %-12s  ERROR: %s\n", r.Run, r.Label, r.Err)
	}
	for _, p := range r.Phases {
		line := fmt.Sprintf("run %d  %-12s  %-7s  %9.0f rec/s  %6.1f MB/s  %5.2f allocs/rec  %6.0f B/rec  %5.2f CPU-us/rec  RSS %4.0f MB  GC %d",
			r.Run, r.Label, p.Phase, p.RecPerSec, p.MBPerSec, p.Client.AllocsPerRec, p.Client.BytesPerRec,
			p.Client.CPUMicrosPerRc, float64(p.Client.PeakRSS)/1e6, p.Client.GCCycles)
		line += fmt.Sprintf("  other-procs %2.0f%%", 100*p.OtherCPU)
		if p.Server != nil {
			line += fmt.Sprintf("  | server %5.2f allocs/rec %5.2f CPU-us/rec RSS %4.0f MB", p.Server.AllocsPerRec, p.Server.CPUMicrosPerRc, float64(p.Server.PeakRSS)/1e6)
		}
		fmt.Println(line)
		if p.Verified != "" {
			fmt.Printf("      verified: %s\n", p.Verified)
		}
	}
}

// ctxFor returns the context of one measurement.
func ctxFor(s *spec) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.Timeout)
}
