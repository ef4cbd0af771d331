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
// another and reports both. --mode e2e measures publish-to-receive latency
// at an open-loop offered rate instead (e2e.go). See bench/README.md.
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
	replicas                   string
	timeout, waitIdle          time.Duration
	idleBelow                  float64
	retryNoisy                 int
	consume, jsonOut, isolated bool
	seed                       uint64
	child                      string

	// --linger and --acks as given: one value, or (e2e mode) a comma list.
	lingerFlag, acksFlag string

	// e2e mode.
	rate                int
	duration, e2eWarmup time.Duration
	drain               time.Duration
	pacer               string
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
	fs.StringVar(&o.mode, "mode", "inproc", "inproc (client and engine in one process) | 2proc (engine and client in separate processes) | e2e (publish-to-receive latency at --rate, in-process)")
	fs.StringVar(&o.acksFlag, "acks", "all", "all (idempotent, both stacks) | leader (acks=1, idempotence off, both stacks); e2e mode: comma list, default leader,all")
	fs.StringVar(&o.replicas, "replicas", "1", "ilink topic replicas, comma-separated list; each value is its own row (e.g. 1,3)")
	fs.StringVar(&o.lingerFlag, "linger", "5ms", "producer linger; 0 = no linger on both stacks (ilink needs whole milliseconds); e2e mode: comma list, default 0,5ms")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "limit per measurement")
	fs.DurationVar(&o.waitIdle, "wait-idle", 0, "before each measurement, wait up to this long for the rest of the machine to go quiet (0 = do not wait)")
	fs.Float64Var(&o.idleBelow, "idle-below", 0.15, "quiet = other processes use less than this share of all CPUs (--wait-idle, --retry-noisy)")
	fs.IntVar(&o.retryNoisy, "retry-noisy", 0, "measure again, up to this many times, when other processes used more than --idle-below during a phase; the last attempt counts")
	fs.BoolVar(&o.consume, "consume", false, "also measure reading all records back with a direct (non-group) consumer")
	fs.BoolVar(&o.jsonOut, "json", false, "print one JSON document instead of the tables")
	fs.BoolVar(&o.isolated, "isolate", true, "inproc: run every (run, stack) in a fresh child process")
	fs.Uint64Var(&o.seed, "seed", 0, "seed for the order of stacks (0 = from the clock)")
	fs.StringVar(&o.child, "child", "", "internal: run one measurement described by this JSON")
	fs.IntVar(&o.rate, "rate", 20_000, "e2e: offered load in records/s (open loop, 1 ms ticks of rate/1000 records)")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "e2e: measured time at --rate")
	fs.DurationVar(&o.e2eWarmup, "e2e-warmup", 2*time.Second, "e2e: time at --rate before the measurement; its records are sent and read but not measured")
	fs.DurationVar(&o.drain, "drain", 10*time.Second, "e2e: after the last ack, how long to wait for the consumer to receive every record before counting the rest as lost")
	fs.StringVar(&o.pacer, "pacer", "ticker", "e2e: ticker (time.Ticker, 1 ms) | sleep (syscall.Nanosleep to each 1 ms tick; the Go runtime's timers wake 0-1 ms late)")
	_ = fs.Parse(os.Args[1:])
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if o.mode == "e2e" {
		if !set["linger"] {
			o.lingerFlag = "0,5ms"
		}
		if !set["acks"] {
			o.acksFlag = "leader,all"
		}
	}

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
	linger   time.Duration
	acks     string
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
	}
	lingers, err := parseLingers(o.lingerFlag)
	if err != nil {
		return nil, nil, err
	}
	acksList, err := parseAcks(o.acksFlag)
	if err != nil {
		return nil, nil, err
	}
	e2e := o.mode == "e2e"
	if !e2e && (len(lingers) != 1 || len(acksList) != 1) {
		return nil, nil, fmt.Errorf("--linger %q --acks %q: lists are for --mode e2e only", o.lingerFlag, o.acksFlag)
	}
	if e2e {
		switch {
		case o.rate < 1000:
			return nil, nil, fmt.Errorf("--rate %d: want >= 1000 records/s", o.rate)
		case o.duration < time.Second:
			return nil, nil, fmt.Errorf("--duration %v: want >= 1s", o.duration)
		case o.e2eWarmup < 0 || o.drain <= 0:
			return nil, nil, fmt.Errorf("--e2e-warmup must not be negative and --drain must be positive")
		case o.pacer != "ticker" && o.pacer != "sleep":
			return nil, nil, fmt.Errorf("--pacer %q: want ticker or sleep", o.pacer)
		case o.size < e2eMinSize:
			return nil, nil, fmt.Errorf("--size %d: e2e mode wants at least %d bytes", o.size, e2eMinSize)
		}
	}
	if !slices.Contains([]string{"none", "lz4", "zstd"}, o.compression) {
		return nil, nil, fmt.Errorf("--compression %q: want none, lz4 or zstd", o.compression)
	}
	if o.mode != "inproc" && o.mode != "2proc" && o.mode != "e2e" {
		return nil, nil, fmt.Errorf("--mode %q: want inproc, 2proc or e2e", o.mode)
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
	var stackRows []entry
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
			stackRows = append(stackRows, entry{label: "franz/kfake", impl: impl, replicas: 1})
			continue
		}
		for _, f := range strings.Split(o.replicas, ",") {
			r, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || r < 1 || r > o.nodes {
				return nil, nil, fmt.Errorf("--replicas %q: want values 1..%d", o.replicas, o.nodes)
			}
			stackRows = append(stackRows, entry{label: fmt.Sprintf("ilink r=%d", r), impl: impl, replicas: r})
		}
	}
	for _, l := range lingers {
		if l%time.Millisecond != 0 && slices.ContainsFunc(stackRows, func(e entry) bool { return e.impl == "ilink" }) {
			return nil, nil, fmt.Errorf("--linger %v: the ilink producer takes whole milliseconds", l)
		}
	}
	// One row per stack x linger x acks (more than one only in e2e mode).
	var es []entry
	for _, ak := range acksList {
		for _, l := range lingers {
			for _, e := range stackRows {
				e.linger, e.acks = l, ak
				if e2e {
					e.label = fmt.Sprintf("%s linger=%v acks=%s", e.label, l, acksLabel(ak))
				}
				es = append(es, e)
			}
		}
	}
	return es, warn, nil
}

// parseLingers parses a comma list of non-negative durations ("0" is allowed
// without a unit).
func parseLingers(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		d, err := time.ParseDuration(f)
		if f == "0" {
			d, err = 0, nil
		}
		if err != nil || d < 0 {
			return nil, fmt.Errorf("--linger %q: want non-negative durations such as 0 or 5ms", s)
		}
		out = append(out, d)
	}
	return out, nil
}

func parseAcks(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f != "all" && f != "leader" {
			return nil, fmt.Errorf("--acks %q: want all or leader", s)
		}
		out = append(out, f)
	}
	return out, nil
}

// acksLabel is the Kafka spelling: leader = 1, all = all (-1).
func acksLabel(a string) string {
	if a == "leader" {
		return "1"
	}
	return a
}

func (o options) spec(e entry, run int) *spec {
	return &spec{
		Role: "inproc", Impl: e.impl, Label: e.label, Run: run, Replicas: e.replicas,
		Nodes: o.nodes, Partitions: o.partitions, Count: o.count, Warmup: o.warmup, Size: o.size,
		Compression: o.compression, Linger: e.linger, BatchBytes: o.batchBytes,
		BufferBytes: o.bufferBytes, Acks: e.acks, Consume: o.consume, Timeout: o.timeout,
		E2E: o.mode == "e2e", Rate: o.rate, Duration: o.duration, E2EWarmup: o.e2eWarmup, Drain: o.drain, Pacer: o.pacer,
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
	if o.mode == "e2e" {
		notes = e2eHeader(o, ratios)
	}
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
					fmt.Printf("run %d  %-30s  noisy (other processes above %.0f%% of all CPUs): measuring again\n", run, e.label, 100*o.idleBelow)
				}
			}
			results = append(results, r)
			if !o.jsonOut {
				progress(r)
			}
		}

	}

	if o.mode == "e2e" {
		return finishE2E(o, notes, entries, results)
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
		"mode": o.mode, "isolated": o.isolated, "acks": o.acksFlag, "idempotent_when_acks_all": true,
		"replicas": o.replicas, "linger": o.lingerFlag,
		"rate": o.rate, "duration": o.duration.String(), "e2e_warmup": o.e2eWarmup.String(), "drain": o.drain.String(), "pacer": o.pacer, "consume": o.consume, "seed": o.seed,
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
		fmt.Sprintf("producer: acks=%s, idempotent=%v, linger=%s, compression=%s, max batch %d B, buffer %d B, async send with one shared callback, wait for every ack, errors must be 0",
			o.acksFlag, o.acksFlag == "all", o.lingerFlag, o.compression, o.batchBytes, o.bufferBytes),
		fmt.Sprintf("values: pool of %d JSON-ish values (pre-generated); per 64 KiB of values lz4 ratio %.2f, zstd ratio %.2f", poolSize, ratios["lz4"], ratios["zstd"]),
		"rec/s and MB/s (value bytes, 10^6) from the first send to the last ack; allocs, B, CPU per record from runtime.MemStats and getrusage deltas around the phase (they include one harness record struct per send); peak RSS = VmHWM reset at the start of the phase",
	}
}

func progress(r runResult) {
	if r.Err != "" {
		fmt.Printf("run %d  %-12s  ERROR: %s\n", r.Run, r.Label, r.Err)
	}
	for _, p := range r.Phases {
		if p.E2E != nil {
			e2eProgress(r, p)
			continue
		}
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
