package main

// --mode e2e: publish-to-receive latency at an open-loop offered load.
//
// One measurement (one stack, one fresh engine, in-process):
//
//  1. start the engine with a fresh topic "bench";
//  2. start the consumer on every partition of "bench" from the earliest
//     offset (the topic is still empty, so that is "everything produced from
//     now on") and poll it in its own goroutine;
//  3. create the producer and run the pacer in another goroutine: a 1 ms
//     time.Ticker (--pacer ticker), or syscall.Nanosleep to the next tick
//     (--pacer sleep: the Go runtime sleeps in epoll_wait with a whole
//     millisecond timeout, so a ticker wakes up 0-1 ms late). The schedule
//     is the publish driver's (loadgen.Pacer with 1 ms ticks): record n is
//     due n/rate after the start, rounded up to its tick's end (tick k at
//     start + k ms, k = 0..K). On every wake-up the pacer sends all records
//     of every tick that is due, so a late wake-up or a blocking Send
//     delays records without moving their scheduled time (no coordinated
//     omission);
//  4. every value carries its scheduled time (8 bytes, unix nanos, little
//     endian), its sequence number (8 bytes), the time Send was called
//     (8 bytes) and padding from the value pool;
//  5. the consumer records receive time - scheduled time per record (the
//     headline) and receive time - Send-call time; the producer callback
//     records ack time - scheduled time; the pacer records Send-call time -
//     scheduled time. Records of the first --e2e-warmup are sent and read
//     but not recorded;
//  6. after the last tick: Flush, wait for every ack, then wait up to
//     --drain for the consumer to have every record. Sequence numbers give
//     the loss and duplicate counts.

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"ilinkdash/ilink/loadgen"
)

// e2eMinSize: scheduled time, sequence number and Send-call time.
const e2eMinSize = 24

func e2eSched(v []byte) int64 {
	if len(v) < 8 {
		return 0
	}
	return int64(binary.LittleEndian.Uint64(v))
}

// e2eAcker collects producer completions: ack time - scheduled time for
// the measured records.
type e2eAcker struct {
	measureFrom int64 // scheduled times above this are measured (unix nanos)
	acked       atomic.Int64
	errs        atomic.Int64
	firstErr    atomic.Pointer[string]
	hist        histogram // safe for concurrent use
}

func (a *e2eAcker) ack(sched int64, err error) {
	now := time.Now().UnixNano()
	if err != nil {
		a.errs.Add(1)
		msg := err.Error()
		a.firstErr.CompareAndSwap(nil, &msg)
	} else if sched > a.measureFrom {
		a.hist.Record(time.Duration(now - sched))
	}
	a.acked.Add(1)
}

// e2eReceiver is the consumer side; record runs on the polling goroutine
// only.
type e2eReceiver struct {
	pool         *valuePool
	size         int
	total, warmN int64
	seen         []uint64  // bit per sequence number
	hist         histogram // receive - scheduled
	fromSend     histogram // receive - Send call
	got          int64     // distinct records received
	gotMeasured  int64
	dups, bad    int64
	done         chan struct{} // closed when got == total
	exited       chan struct{}
	err          error
}

func newE2EReceiver(pool *valuePool, size int, total, warmN int64) *e2eReceiver {
	return &e2eReceiver{
		pool: pool, size: size, total: total, warmN: warmN,
		seen: make([]uint64, (total+63)/64),
		done: make(chan struct{}), exited: make(chan struct{}),
	}
}

func (r *e2eReceiver) record(_ int32, _ int64, v []byte) {
	now := time.Now().UnixNano()
	if len(v) != r.size {
		r.bad++
		return
	}
	sched := e2eSched(v)
	seq := int64(binary.LittleEndian.Uint64(v[8:]))
	if seq < 0 || seq >= r.total || !bytes.Equal(v[e2eMinSize:], r.pool.get(int(seq))[e2eMinSize:]) {
		r.bad++
		return
	}
	w, bit := seq/64, uint64(1)<<(seq%64)
	if r.seen[w]&bit != 0 {
		r.dups++
		return
	}
	r.seen[w] |= bit
	r.got++
	if seq >= r.warmN {
		r.gotMeasured++
		r.hist.Record(time.Duration(now - sched))
		r.fromSend.Record(time.Duration(now - int64(binary.LittleEndian.Uint64(v[16:]))))
	}
	if r.got == r.total {
		close(r.done)
	}
}

func (r *e2eReceiver) run(ctx context.Context, c consumer) {
	defer close(r.exited)
	for {
		if err := c.poll(ctx, r.record); err != nil {
			if ctx.Err() == nil {
				r.err = err
			}
			return
		}
	}
}

// pacer sends the schedule: the records 0..total-1 of sched, on wake-ups
// every 1 ms tick.
type pacer struct {
	p           producer
	a           *e2eAcker
	pool        *valuePool
	size        int
	sleep       bool // syscall.Nanosleep instead of a time.Ticker
	sched       *loadgen.Pacer
	total       int64
	warmN       int64
	lag         histogram // Send call time - scheduled time, measured records
	sent        int64
	lastSend    time.Time
	maxBacklogT int64 // most ticks handled in one wake-up (1 = never behind)
}

func (pc *pacer) run(ctx context.Context) error {
	var tk *time.Ticker
	if !pc.sleep {
		tk = time.NewTicker(time.Millisecond)
		defer tk.Stop()
	}
	start := pc.sched.Start()
	k := int64(-1) // last tick sent
	for {
		tick := int64(time.Since(start) / time.Millisecond)
		if tick > k {
			pc.maxBacklogT = max(pc.maxBacklogT, tick-k)
			k = tick
			for due := min(pc.sched.Due(start.Add(time.Duration(tick)*time.Millisecond)), pc.total); pc.sent < due; {
				seq := pc.sent
				sched := pc.sched.At(seq)
				schedNs := sched.UnixNano()
				v := make([]byte, pc.size)
				binary.LittleEndian.PutUint64(v, uint64(schedNs))
				binary.LittleEndian.PutUint64(v[8:], uint64(seq))
				copy(v[e2eMinSize:], pc.pool.get(int(seq))[e2eMinSize:])
				now := time.Now().UnixNano()
				binary.LittleEndian.PutUint64(v[16:], uint64(now))
				if seq >= pc.warmN {
					pc.lag.Record(time.Duration(now - schedNs))
				}
				pc.p.sendTimed(benchTopic, v, sched, pc.a)
				pc.sent++
			}
		}
		if pc.sent >= pc.total {
			break
		}
		if pc.sleep {
			// Not a spin: one blocking sleep per tick (early wake-ups by a
			// signal just loop).
			if d := time.Until(start.Add(time.Duration(k+1) * time.Millisecond)); d > 0 {
				ts := syscall.NsecToTimespec(int64(d))
				_ = syscall.Nanosleep(&ts, nil)
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		} else {
			select {
			case <-tk.C:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	pc.lastSend = time.Now()
	return nil
}

// e2eResult is one e2e measurement.
type e2eResult struct {
	Rate           int      `json:"rate"`
	Seconds        float64  `json:"seconds"`
	WarmupSeconds  float64  `json:"warmup_seconds"`
	Sent           int64    `json:"sent"`     // measured records sent
	Received       int64    `json:"received"` // measured records received (distinct)
	Lost           int64    `json:"lost"`
	WarmupSent     int64    `json:"warmup_sent"`
	WarmupReceived int64    `json:"warmup_received"`
	Duplicates     int64    `json:"duplicates"`
	Unknown        int64    `json:"unknown_values"`
	AckErrors      int64    `json:"ack_errors"`
	FirstAckError  string   `json:"first_ack_error,omitempty"`
	AchievedRate   float64  `json:"achieved_rate"` // measured records / (last Send - measurement start)
	MaxBacklogMs   int64    `json:"max_backlog_ticks"`
	Pacer          string   `json:"pacer"`
	E2E            latStats `json:"e2e"`           // receive - scheduled
	E2EFromSend    latStats `json:"e2e_from_send"` // receive - Send call
	Ack            latStats `json:"ack"`           // producer callback - scheduled
	SendLag        latStats `json:"send_lag"`      // Send call - scheduled
	CPUCorePct     float64  `json:"cpu_core_pct"`
	DrainTimedOut  bool     `json:"drain_timed_out"`
}

// lightSnap is beginPhase without the forced GC and RSS reset, which would
// disturb the latencies of a pipeline that is running.
type lightSnap struct {
	at        time.Time
	mem       runtime.MemStats
	user, sys time.Duration
	hostBusy  float64
}

func takeLight() lightSnap {
	var s lightSnap
	runtime.ReadMemStats(&s.mem)
	s.user, s.sys = cpuTimes()
	s.hostBusy = hostBusySeconds()
	s.at = time.Now()
	return s
}

func (b lightSnap) delta(n int64) processDelta {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	u, s := cpuTimes()
	d := processDelta{
		WallSec:      time.Since(b.at).Seconds(),
		HostBusySec:  hostBusySeconds() - b.hostBusy,
		Mallocs:      m.Mallocs - b.mem.Mallocs,
		AllocBytes:   m.TotalAlloc - b.mem.TotalAlloc,
		CPUUserSec:   (u - b.user).Seconds(),
		CPUSysSec:    (s - b.sys).Seconds(),
		GCCycles:     m.NumGC - b.mem.NumGC,
		GCPauseMs:    float64(m.PauseTotalNs-b.mem.PauseTotalNs) / 1e6,
		PeakRSS:      vmHWM(),
		HeapInuseEnd: m.HeapInuse,
	}
	if n > 0 {
		d.AllocsPerRec = float64(d.Mallocs) / float64(n)
		d.BytesPerRec = float64(d.AllocBytes) / float64(n)
		d.CPUMicrosPerRc = (d.CPUUserSec + d.CPUSysSec) * 1e6 / float64(n)
	}
	return d
}

func sleepUntil(ctx context.Context, t time.Time) error {
	tm := time.NewTimer(time.Until(t))
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// measureE2E runs one e2e measurement against addrs.
func measureE2E(ctx context.Context, st *stackImpl, s *spec, addrs []string) ([]phaseResult, error) {
	if st.newConsumer == nil {
		return nil, fmt.Errorf("%s: no consumer built in", st.name)
	}
	pool, err := newValuePool(s.Size)
	if err != nil {
		return nil, err
	}
	if s.Size < e2eMinSize {
		return nil, fmt.Errorf("--size %d: e2e wants at least %d", s.Size, e2eMinSize)
	}
	warmTicks := int64(s.E2EWarmup / time.Millisecond)
	ticks := warmTicks + int64(s.Duration/time.Millisecond)
	// The schedule starts when the producer is up; how many records it
	// holds does not depend on when (ticks 0..ticks, the warm-up's first).
	var origin time.Time
	plan := loadgen.NewPacer(float64(s.Rate), origin).WithTick(time.Millisecond)
	total := plan.Due(origin.Add(time.Duration(ticks) * time.Millisecond))
	warmN := plan.Due(origin.Add(time.Duration(warmTicks) * time.Millisecond))

	// The consumer first, on the empty topic: it reads everything produced.
	c, err := st.newConsumer(ctx, s, addrs, benchTopic)
	if err != nil {
		return nil, fmt.Errorf("%s consumer: %w", st.name, err)
	}
	rx := newE2EReceiver(pool, s.Size, total, warmN)
	cctx, ccancel := context.WithCancel(ctx)
	go rx.run(cctx, c)
	defer func() {
		ccancel()
		<-rx.exited
		_ = c.close()
	}()

	p, err := st.newProducer(ctx, s, addrs)
	if err != nil {
		return nil, fmt.Errorf("%s producer: %w", st.name, err)
	}
	defer func() { _ = p.close() }()

	start := time.Now()
	measureAt := start.Add(time.Duration(warmTicks) * time.Millisecond)
	a := &e2eAcker{measureFrom: measureAt.UnixNano()}
	pc := &pacer{p: p, a: a, pool: pool, size: s.Size, sleep: s.Pacer == "sleep",
		sched: loadgen.NewPacer(float64(s.Rate), start).WithTick(time.Millisecond), total: total, warmN: warmN}
	paced := make(chan error, 1)
	go func() { paced <- pc.run(ctx) }()

	if err := sleepUntil(ctx, measureAt); err != nil {
		return nil, err
	}
	b := takeLight()
	if err := <-paced; err != nil {
		return nil, fmt.Errorf("pacer after %d of %d records: %w", pc.sent, total, err)
	}
	measured := total - warmN
	d := b.delta(measured)
	window := pc.lastSend.Sub(measureAt)

	timedOut, err := awaitDelivery(ctx, s.Drain, p, a, rx, total)
	ccancel()
	<-rx.exited
	if err == nil && rx.err != nil {
		err = fmt.Errorf("consumer after %d records: %w", rx.got, rx.err)
	}
	if err != nil {
		return nil, err
	}

	ackStats := histStats(&a.hist)
	res := &e2eResult{
		Rate: s.Rate, Seconds: s.Duration.Seconds(), WarmupSeconds: s.E2EWarmup.Seconds(),
		Sent: measured, Received: rx.gotMeasured, Lost: measured - rx.gotMeasured,
		WarmupSent: warmN, WarmupReceived: rx.got - rx.gotMeasured,
		Duplicates: rx.dups, Unknown: rx.bad, AckErrors: a.errs.Load(),
		MaxBacklogMs: pc.maxBacklogT,
		Pacer:        s.Pacer, E2E: histStats(&rx.hist), E2EFromSend: histStats(&rx.fromSend), Ack: ackStats, SendLag: histStats(&pc.lag),
		DrainTimedOut: timedOut,
	}
	if e := a.firstErr.Load(); e != nil {
		res.FirstAckError = *e
	}
	if window > 0 {
		res.AchievedRate = float64(measured) / window.Seconds()
	}
	if d.WallSec > 0 {
		res.CPUCorePct = 100 * (d.CPUUserSec + d.CPUSysSec) / d.WallSec
	}
	pr := phaseResult{Phase: "e2e", Records: measured, Errors: res.AckErrors, FirstError: res.FirstAckError, Client: d, E2E: res}
	pr.finish(window, s.Size)
	pr.Verified = fmt.Sprintf("received %d/%d measured records (+%d/%d warm-up), %d lost, %d duplicates, %d unknown values",
		res.Received, res.Sent, res.WarmupReceived, res.WarmupSent, res.Lost, res.Duplicates, res.Unknown)
	return []phaseResult{pr}, nil
}

// awaitDelivery flushes p, waits for every one of total records to be
// acknowledged, then for the receiver to have them all (or to stop), at
// most drain; timedOut says the drain ran out.
func awaitDelivery(ctx context.Context, drain time.Duration, p producer, a *e2eAcker, rx *e2eReceiver, total int64) (timedOut bool, err error) {
	if err := p.flush(ctx); err != nil {
		return false, fmt.Errorf("flush: %w", err)
	}
	for a.acked.Load() < total {
		if err := sleepUntil(ctx, time.Now().Add(time.Millisecond)); err != nil {
			return false, fmt.Errorf("waiting for acks: %d of %d: %w", a.acked.Load(), total, err)
		}
	}
	t := time.NewTimer(drain)
	defer t.Stop()
	select {
	case <-rx.done:
	case <-rx.exited:
	case <-t.C:
		timedOut = true
	case <-ctx.Done():
	}
	return timedOut, nil
}

// ---- orchestrator side ------------------------------------------------------

func e2eHeader(o options, ratios map[string]float64) []string {
	iso := "one fresh child process (and engine) per run and row"
	if !o.isolated {
		iso = "NOT isolated: all runs share this process (fresh engine per run)"
	}
	return []string{
		fmt.Sprintf("sidebyside e2e %s GOMAXPROCS=%d NumCPU=%d GOGC=%q seed=%d", runtime.Version(), runtime.GOMAXPROCS(0), runtime.NumCPU(), os.Getenv("GOGC"), o.seed),
		"mode: e2e, in-process (producer, consumer and engine in one process; " + iso + ")",
		fmt.Sprintf("load: open loop, %d records/s = every 1 ms tick (pacer %s) sends %g records, each stamped with its tick's scheduled time; %v warm-up (sent, read, not recorded), then %v measured",
			o.rate, pacerDesc(o.pacer), float64(o.rate)/1000, o.e2eWarmup, o.duration),
		fmt.Sprintf("records: %d B values, no key: 8 B scheduled unix-nanos + 8 B sequence number + 8 B Send-call unix-nanos + pool padding; record timestamp = scheduled time; topic %q, %d partitions on %d nodes, compression %s",
			o.size, benchTopic, o.partitions, o.nodes, o.compression),
		"producer: acks=1 (leader) rows: idempotence off; acks=all rows: idempotent, both stacks; linger 0 = no linger on both stacks (kgo ProducerLinger(0), ilink LingerMs=NoLinger)",
		"consumer (own goroutine, started before the first record): franz = kgo.ConsumePartitions AtStart on every partition (FetchMinBytes 1, FetchMaxWait 5 s defaults); ilink = consumer.Assign on every partition, StartEarliest (topic empty at start), ReadBatch(8192, wait); fetches long-poll and return as soon as data arrives",
		"e2e = receive time - scheduled time (headline); from send = receive time - Send call; ack = producer callback - scheduled time; send lag = Send call - scheduled time (pacer wake-up lateness + Send blocking); histograms with <= 0.8% bucket error, max exact",
		fmt.Sprintf("after the last tick: Flush, wait for every ack, then up to %v for the consumer; lost = measured sent - measured received (by sequence number)", o.drain),
		"CPU % = client + engine CPU over the measured window as a share of one core",
	}
}

func e2eProgress(r runResult, p phaseResult) {
	e := p.E2E
	fmt.Printf("run %d  %-30s  e2e p50 %6.3f p99 %7.3f p99.9 %7.3f max %7.3f ms  recv %d/%d  from-send p50 %6.3f  ack p50 %6.3f p99 %7.3f  lag p50 %6.3f p99 %6.3f  %5.0f rec/s  CPU %3.0f%%  GC %d  other-procs %2.0f%%\n",
		r.Run, r.Label, e.E2E.P50, e.E2E.P99, e.E2E.P999, e.E2E.Max, e.Received, e.Sent, e.E2EFromSend.P50,
		e.Ack.P50, e.Ack.P99, e.SendLag.P50, e.SendLag.P99, e.AchievedRate, e.CPUCorePct, p.Client.GCCycles, 100*p.OtherCPU)
	if e.Lost != 0 || e.Duplicates != 0 || e.Unknown != 0 || e.AckErrors != 0 || e.DrainTimedOut {
		fmt.Printf("      PROBLEM: %s; ack errors %d (first: %s); drain timed out: %v\n", p.Verified, e.AckErrors, e.FirstAckError, e.DrainTimedOut)
	}
}

type e2eMetric struct {
	key, title string
	get        func(p *phaseResult) float64
}

var e2eMetrics = []e2eMetric{
	{"e2e_p50_ms", "p50", func(p *phaseResult) float64 { return p.E2E.E2E.P50 }},
	{"e2e_p90_ms", "p90", func(p *phaseResult) float64 { return p.E2E.E2E.P90 }},
	{"e2e_p99_ms", "p99", func(p *phaseResult) float64 { return p.E2E.E2E.P99 }},
	{"e2e_p99_9_ms", "p99.9", func(p *phaseResult) float64 { return p.E2E.E2E.P999 }},
	{"e2e_max_ms", "max", func(p *phaseResult) float64 { return p.E2E.E2E.Max }},
	{"ack_p50_ms", "ack p50", func(p *phaseResult) float64 { return p.E2E.Ack.P50 }},
	{"ack_p99_ms", "ack p99", func(p *phaseResult) float64 { return p.E2E.Ack.P99 }},
	{"ack_max_ms", "ack max", func(p *phaseResult) float64 { return p.E2E.Ack.Max }},
	{"from_send_p50_ms", "from send p50", func(p *phaseResult) float64 { return p.E2E.E2EFromSend.P50 }},
	{"from_send_p99_ms", "from send p99", func(p *phaseResult) float64 { return p.E2E.E2EFromSend.P99 }},
	{"lag_p50_ms", "send lag p50", func(p *phaseResult) float64 { return p.E2E.SendLag.P50 }},
	{"lag_p99_ms", "send lag p99", func(p *phaseResult) float64 { return p.E2E.SendLag.P99 }},
	{"lag_max_ms", "send lag max", func(p *phaseResult) float64 { return p.E2E.SendLag.Max }},
	{"achieved_rate", "rec/s", func(p *phaseResult) float64 { return p.E2E.AchievedRate }},
	{"cpu_core_pct", "CPU %core", func(p *phaseResult) float64 { return p.E2E.CPUCorePct }},
	{"allocs_per_rec", "allocs/rec", func(p *phaseResult) float64 { return p.Client.AllocsPerRec }},
	{"gc_cycles", "GC", func(p *phaseResult) float64 { return float64(p.Client.GCCycles) }},
	{"gc_pause_ms", "GC pause ms", func(p *phaseResult) float64 { return p.Client.GCPauseMs }},
	{"other_cpu_pct", "other-procs %", func(p *phaseResult) float64 { return 100 * p.OtherCPU }},
}

// e2eRow is one row of the e2e summary.
type e2eRow struct {
	Label    string          `json:"label"`
	Runs     int             `json:"runs"`
	Sent     int64           `json:"sent"`     // summed over runs
	Received int64           `json:"received"` // summed over runs
	Lost     int64           `json:"lost"`
	Dups     int64           `json:"duplicates"`
	Unknown  int64           `json:"unknown_values"`
	AckErrs  int64           `json:"ack_errors"`
	Stats    map[string]stat `json:"stats"` // median [min-max] over runs
}

func summarizeE2E(entries []entry, results []runResult) []e2eRow {
	var rows []e2eRow
	for _, e := range entries {
		row := e2eRow{Label: e.label, Stats: map[string]stat{}}
		vals := map[string][]float64{}
		for i := range results {
			r := &results[i]
			if r.Label != e.label || r.Err != "" {
				continue
			}
			for j := range r.Phases {
				p := &r.Phases[j]
				if p.E2E == nil {
					continue
				}
				row.Runs++
				row.Sent += p.E2E.Sent
				row.Received += p.E2E.Received
				row.Lost += p.E2E.Lost
				row.Dups += p.E2E.Duplicates
				row.Unknown += p.E2E.Unknown
				row.AckErrs += p.E2E.AckErrors
				for _, m := range e2eMetrics {
					vals[m.key] = append(vals[m.key], m.get(p))
				}
			}
		}
		for k, vs := range vals {
			row.Stats[k] = statOf(vs)
		}
		rows = append(rows, row)
	}
	return rows
}

func (r e2eRow) problems() bool {
	return r.Lost != 0 || r.Dups != 0 || r.Unknown != 0 || r.AckErrs != 0
}

func printE2E(w io.Writer, o options, rows []e2eRow) {
	fmt.Fprintf(w, "\n== e2e latency at %d rec/s, ms: median [min-max] over %d run(s) ==\n", o.rate, o.runs)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "row\tp50\tp99\tp99.9\tmax\treceived/sent (all runs)")
	for _, r := range rows {
		fmt.Fprint(tw, r.Label)
		for _, k := range []string{"e2e_p50_ms", "e2e_p99_ms", "e2e_p99_9_ms", "e2e_max_ms"} {
			if st, ok := r.Stats[k]; ok {
				fmt.Fprintf(tw, "\t%.3f [%.3f-%.3f]", st.Median, st.Min, st.Max)
			} else {
				fmt.Fprint(tw, "\t-")
			}
		}
		fmt.Fprintf(tw, "\t%d/%d", r.Received, r.Sent)
		if r.problems() {
			fmt.Fprintf(tw, " LOST %d, dup %d, unknown %d, ack errors %d", r.Lost, r.Dups, r.Unknown, r.AckErrs)
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush()

	fmt.Fprintf(w, "\n== where the time goes, and cost: median over runs ==\n")
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprint(tw, "row")
	keys := []string{"e2e_p90_ms", "from_send_p50_ms", "from_send_p99_ms", "ack_p50_ms", "ack_p99_ms", "ack_max_ms", "lag_p50_ms", "lag_p99_ms", "lag_max_ms", "achieved_rate", "cpu_core_pct", "allocs_per_rec", "gc_cycles", "gc_pause_ms", "other_cpu_pct"}
	titles := map[string]string{}
	for _, m := range e2eMetrics {
		titles[m.key] = m.title
	}
	for _, k := range keys {
		fmt.Fprintf(tw, "\t%s", titles[k])
	}
	fmt.Fprintln(tw)
	for _, r := range rows {
		fmt.Fprint(tw, r.Label)
		for _, k := range keys {
			st, ok := r.Stats[k]
			switch {
			case !ok:
				fmt.Fprint(tw, "\t-")
			case k == "achieved_rate" || k == "gc_cycles" || k == "cpu_core_pct" || k == "other_cpu_pct":
				fmt.Fprintf(tw, "\t%.0f", st.Median)
			case k == "allocs_per_rec" || k == "gc_pause_ms":
				fmt.Fprintf(tw, "\t%.1f", st.Median)
			default:
				fmt.Fprintf(tw, "\t%.3f", st.Median)
			}
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "\nfrom send = receive - Send call (the stack alone, without pacer lateness); ack = producer callback - scheduled; send lag = Send call - scheduled (pacer and Send blocking); e2e - ack is roughly the fetch path (engine to consumer).")
	fmt.Fprintf(w, "CPU %%core is client + engine in one process; allocs/rec include the harness's value (1 per record) and consumer-side allocations.\n")
}

// finishE2E prints (or encodes) the e2e summary and fails when a run failed
// or lost, duplicated or corrupted records.
func finishE2E(o options, notes []string, entries []entry, results []runResult) error {
	rows := summarizeE2E(entries, results)
	if o.jsonOut {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"config": o.publicConfig(), "notes": notes, "runs": results, "summary": rows}); err != nil {
			return err
		}
	} else {
		printE2E(os.Stdout, o, rows)
	}
	for _, r := range results {
		if r.Err != "" {
			return fmt.Errorf("%d measurement(s) failed (first: run %d %s: %s)", countErrs(results), r.Run, r.Label, r.Err)
		}
	}
	for _, r := range rows {
		if r.problems() {
			return fmt.Errorf("%s: %d of %d measured records lost, %d duplicates, %d unknown values, %d ack errors", r.Label, r.Lost, r.Sent, r.Dups, r.Unknown, r.AckErrs)
		}
	}
	return nil
}

func pacerDesc(p string) string {
	if p == "sleep" {
		return "sleep: syscall.Nanosleep to the next tick"
	}
	return "ticker: time.NewTicker(1ms)"
}
