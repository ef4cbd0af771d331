package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"ilinkdash/config"
	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/loadgen"
	"ilinkdash/ilink/loadgen/template"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/jsonl"
	"ilinkdash/ui/sanitize"
)

// publishGrace is how long publish waits, after an interrupt, for the
// acknowledgements of records already sent; then the producer closes and
// what is left counts as sent but not acknowledged. It is well inside the
// 2 s the signal handler allows (stopGrace).
const publishGrace = time.Second

type publishFlags struct {
	key         string
	value       string
	file        string
	headers     []string
	count       int
	size        int
	rate        int
	compression string
	acks        string
	partitions  int
	replicas    int
	embedded    bool
	json        bool
	output      string
	lingerMs    int
	batchSize   int
	timeout     time.Duration
	fromJSONL   string
	keepTimes   bool
	raw         bool
	decode      decodeFlags
}

func (a *app) publishCommand() *cobra.Command {
	var f publishFlags
	cmd := &cobra.Command{
		Use:   "publish TOPIC",
		Short: "Publish records to a topic (and measure throughput and latency)",
		Long: "Publishes records with the idempotent iLink producer: one --value (repeated --count\n" +
			"times), one record per line of --file (- = stdin), or --count generated values of\n" +
			"--size bytes, or the records of a JSON lines file (--from-jsonl: keys, values and\n" +
			"headers as tail --format json saved them; --keep-timestamps keeps their timestamps).\n" +
			"--key, --value and --header values are templates, expanded per record:\n" +
			"{{seq}} (0, 1, 2, ...), {{now}} (RFC 3339 UTC), {{uuid}}, {{rand N}} (N random\n" +
			"alphanumerics); --file lines are sent as they are. Acknowledgement defaults to all\n" +
			"(the in-sync replicas). Prints records acknowledged, errors, records/s, MB/s and ack\n" +
			"latency p50/p99 (-o json: one JSON object). SIGINT or SIGTERM stops within 2 s and\n" +
			"says how many records were sent but not acknowledged; a second one exits at once.\n" +
			"--embedded starts a fresh in-process 3-node engine first.",
		Example: "  ilinkdash publish ORDER.EVENT --value '{\"id\":1}' --key order-1 --header trace-id=abc\n" +
			"  ilinkdash publish ORDER.EVENT --count 100 --key 'order-{{seq}}' --value '{\"id\":\"{{uuid}}\",\"at\":\"{{now}}\"}'\n" +
			"  ilinkdash publish bench --embedded --count 1000000 --size 100 --compression lz4 -o json\n" +
			"  ilinkdash tail ORDER.EVENT --from earliest --exit-at-end --format json > saved.jsonl\n" +
			"  ilinkdash publish ORDER.REPLAY --from-jsonl saved.jsonl --keep-timestamps",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runPublish(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.key, "key", "", "record key, a template (default: none, records spread uniform-sticky)")
	fl.StringVar(&f.value, "value", "", "record value, a template ({{seq}}, {{now}}, {{uuid}}, {{rand N}})")
	fl.StringVar(&f.file, "file", "", "read one record value per line from this file (- = stdin), sent as is")
	fl.StringArrayVar(&f.headers, "header", nil, "record header key=value, the value a template (repeatable)")
	fl.IntVar(&f.count, "count", 0, "records to send (default 1 with --value; with --file: 0 = every line)")
	fl.IntVar(&f.size, "size", 0, "generate values of this many bytes (pre-generated pool)")
	fl.IntVar(&f.rate, "rate", 0, "records per second (0 = as fast as possible)")
	fl.StringVar(&f.compression, "compression", "none", "batch compression: none, lz4 or zstd")
	fl.StringVar(&f.acks, "acks", ilink.DefaultToolAcks, "acknowledgement: 0 (none), 1 (the leader) or all (the in-sync replicas)")
	fl.IntVar(&f.partitions, "partitions", 0, "create the topic with this many partitions if it is missing (--embedded: default 6)")
	fl.IntVar(&f.replicas, "replicas", 0, "replicas of a topic created here (0 = engine default)")
	fl.BoolVar(&f.embedded, "embedded", false, "start a fresh in-process 3-node engine and publish to it")
	addOutputFlag(cmd, &f.output, "table", "table (lines of text) or json (one object)")
	fl.BoolVar(&f.json, "json", false, "same as -o json")
	fl.IntVar(&f.lingerMs, "linger-ms", 0, "producer linger in ms (0 = default 5, -1 = none)")
	fl.IntVar(&f.batchSize, "batch-size", 0, "producer batch size in bytes (0 = default 262144)")
	fl.DurationVar(&f.timeout, "timeout", 0, "give up waiting for acknowledgements after this long (0 = the delivery timeout)")
	fl.StringVar(&f.fromJSONL, "from-jsonl", "", "re-publish the records of this JSON lines file (what tail --format json, search -o json or the dashboard's save wrote; - = stdin) with their keys and headers")
	fl.BoolVar(&f.keepTimes, "keep-timestamps", false, "with --from-jsonl: give each record its saved timestamp (default: the time it is sent)")
	fl.BoolVar(&f.raw, "raw", false, "send values as given, without encoding them with the topic's schema")
	f.decode.registerSchemas(fl)
	// What a value that does not parse is told it wants (flagValueError).
	setWant(fl, "rate", "a whole number of records per second")
	setWant(fl, "count", "a whole number of records")
	setWant(fl, "size", "a whole number of bytes")
	setWant(fl, "linger-ms", "a whole number of milliseconds")
	setWant(fl, "batch-size", "a whole number of bytes")
	return cmd
}

// publishSummary is the -o json output.
type publishSummary struct {
	Topic           string   `json:"topic"`
	Records         int64    `json:"records"`
	Errors          int64    `json:"errors"`
	Sent            int64    `json:"sent"`
	NotAcknowledged int64    `json:"not_acknowledged"`
	Interrupted     bool     `json:"interrupted"`
	RecordsPerSec   float64  `json:"records_per_sec"`
	MBPerSec        float64  `json:"mb_per_sec"`
	P50Ms           float64  `json:"p50_ms"`
	P99Ms           float64  `json:"p99_ms"`
	MaxMs           float64  `json:"max_ms"`
	ElapsedSec      float64  `json:"elapsed_sec"`
	Bytes           int64    `json:"bytes"`
	Compression     string   `json:"compression"`
	Acks            string   `json:"acks"`
	Embedded        bool     `json:"embedded"`
	AllocsPerRecord float64  `json:"allocs_per_record"`
	CPUUsPerRecord  float64  `json:"cpu_us_per_record"`
	PeakRSSMB       float64  `json:"peak_rss_mb"`
	FirstErrors     []string `json:"first_errors,omitempty"`
	Batches         int64    `json:"batches"`
	Retries         int64    `json:"retries"`

	unknownTopic int64 // failures that were MIMQE_UNKNOWN_TOPIC (not in the JSON)
}

// headerTemplate is one --header: a literal key and a templated value.
type headerTemplate struct {
	key string
	val *template.Template
}

func parseHeaders(hs []string) ([]headerTemplate, error) {
	var out []headerTemplate
	for _, h := range hs {
		k, v, ok := strings.Cut(h, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("--header %q: want key=value with a non-empty key", h)
		}
		t, err := template.Parse("--header "+k, v)
		if err != nil {
			return nil, err
		}
		out = append(out, headerTemplate{key: k, val: t})
	}
	return out, nil
}

// recordBuilder fills the reused record of a run: static parts are set
// once, templated ones are expanded per record into reused buffers (the
// producer copies a record in Send).
type recordBuilder struct {
	key, value *template.Template // nil: no key / the value comes from the source
	headers    []headerTemplate
	exp        *template.Expander
	keyBuf     []byte
	valBuf     []byte
	hdrBufs    [][]byte
	static     bool // nothing to expand per record (the fast path)
}

func newRecordBuilder(rec *ilink.ProducerRecord, key, value *template.Template, headers []headerTemplate) *recordBuilder {
	b := &recordBuilder{key: key, value: value, headers: headers, hdrBufs: make([][]byte, len(headers)), static: true}
	if key != nil {
		if key.Static() {
			rec.Key = key.Literal()
			if rec.Key == nil {
				rec.Key = []byte{}
			}
		} else {
			b.static = false
		}
	}
	for _, h := range headers {
		if !h.val.Static() {
			b.static = false
		}
		rec.Headers = append(rec.Headers, wire.RecordHeader{Key: h.key, Value: h.val.Literal()})
	}
	if value != nil && !value.Static() {
		b.static = false
	}
	if !b.static {
		b.exp = template.NewExpander()
	}
	return b
}

// build sets the templated parts of rec for record seq; v is the value
// from the source (used when the value is not a template).
func (b *recordBuilder) build(rec *ilink.ProducerRecord, seq int64, v []byte) {
	rec.Value = v
	if b.static {
		return
	}
	if b.key != nil && !b.key.Static() {
		b.keyBuf = b.exp.Append(b.keyBuf[:0], b.key, seq)
		rec.Key = b.keyBuf
	}
	if b.value != nil && !b.value.Static() {
		b.valBuf = b.exp.Append(b.valBuf[:0], b.value, seq)
		rec.Value = b.valBuf
	}
	for i, h := range b.headers {
		if !h.val.Static() {
			b.hdrBufs[i] = b.exp.Append(b.hdrBufs[i][:0], h.val, seq)
			rec.Headers[i].Value = b.hdrBufs[i]
		}
	}
}

// afterGrace returns a context that ends d after parent ends (and never
// before), and its release function.
func afterGrace(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	stop := context.AfterFunc(parent, func() {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			cancel()
		case <-ctx.Done():
		}
	})
	return ctx, func() { stop(); cancel() }
}

func (a *app) runPublish(cmd *cobra.Command, topic string, f publishFlags) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	stderr := cmd.ErrOrStderr()
	pl, err := parsePublishFlags(cmd, &f)
	if err != nil {
		return err
	}
	acks, codec, headers, keyT, valueT, count := pl.acks, pl.codec, pl.headers, pl.keyT, pl.valueT, pl.count
	r, hub, err := a.resolveTarget(cmd)
	if err != nil {
		return err
	}
	readOnly := r.Context.ReadOnly
	pcfg := ilink.ProducerConfig{
		Hub:         hub,
		ClientName:  r.Context.ClientName,
		Acks:        acks,
		Compression: codec,
		ReadOnly:    readOnly,
		LingerMs:    f.lingerMs,
		BatchSize:   f.batchSize,
	}
	if err := checkValueSize(pcfg, topic, f, keyT, valueT, headers); err != nil {
		return err
	}
	sr := r
	sr.Embedded = r.Embedded || f.embedded
	set, err := schemas(sr, &f.decode)
	if err != nil {
		return err
	}
	enc, err := publishEncoder(set, topic, f)
	if err != nil {
		return err
	}
	if enc != nil {
		rec := ilink.ProducerRecord{Topic: topic}
		if err := enc.precheck(f, newRecordBuilder(&rec, keyT, valueT, headers), rec); err != nil {
			return err
		}
	}

	addrs, closeEngine, err := publishTarget(ctx, r, &pcfg, f, topic, stderr)
	if err != nil {
		return err
	}
	defer closeEngine()
	p, err := ilink.NewProducer(ctx, strings.Join(addrs, ","), pcfg)
	if err != nil {
		return err
	}
	// graceCtx ends publishGrace after an interrupt: then the producer
	// closes, failing what is not acknowledged, which also releases a Send
	// blocked on full buffer memory or on a dead cluster's metadata.
	graceCtx, releaseGrace := afterGrace(ctx, publishGrace)
	defer releaseGrace()
	defer p.CloseContext(graceCtx)
	stopClose := context.AfterFunc(graceCtx, func() { p.CloseContext(graceCtx) })
	defer stopClose()

	src, err := newRecordSource(f, cmd.InOrStdin(), count)
	if err != nil {
		return err
	}
	defer src.close()

	wait := ackWait(f.timeout)
	// The loop is loadgen's (Run.Drive), the one the dashboard's publish
	// runs too; the sender below is the producer and the record source.
	run := loadgen.NewRun(loadgen.Spec{Count: int64(count), Rate: float64(f.rate)})
	st := &pubStats{run: run}
	stopProgress := a.startProgress(st)
	s := &publishSender{p: p, run: run, st: st, src: src, rec: ilink.ProducerRecord{Topic: topic}, graceCtx: graceCtx, wait: wait, enc: enc}
	s.build = newRecordBuilder(&s.rec, keyT, valueT, headers)
	s.cb = s.callback // one callback for every record: no closure per record
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0 := loadgen.ProcessCPU(0)
	st.start = time.Now()
	res := run.Drive(ctx, s)
	interrupted := res.Cancelled || ctx.Err() != nil
	end := time.Now()
	cpu := loadgen.ProcessCPU(0) - cpu0
	runtime.ReadMemStats(&m1)
	stopProgress()
	pst := p.Stats()

	sum := summarizePublish(topic, f, codec, res, interrupted, run, st, pst, end, m0, m1, cpu)
	err = publishOutcome(cmd.OutOrStdout(), f, &sum, res, interrupted, wait)
	if s.srcErr != nil {
		// A bad line (--from-jsonl, or stdin that does not fit the schema)
		// stopped the run: the summary above says what went before it.
		return s.srcErr
	}
	return err
}

// ackWait is how long publish waits for the acknowledgements at the end:
// --timeout, else the delivery timeout and 30 s.
func ackWait(timeout time.Duration) time.Duration {
	if timeout > 0 {
		return timeout
	}
	return time.Duration(ilink.DefaultDeliveryTimeoutMs)*time.Millisecond + 30*time.Second
}

// startProgress draws the run's progress on a terminal's stderr until
// the returned stop, which clears the line.
func (a *app) startProgress(st *pubStats) (stop func()) {
	if !isTerminal(a.io.rawErr) {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		st.progressLoop(a.io.rawErr, done)
	}()
	return func() {
		close(done)
		wg.Wait()
		fmt.Fprint(a.io.rawErr, "\r\033[K")
	}
}

// publishOutcome prints the summary and says how the run ended: nil, an
// interrupt (its own exit code), records not acknowledged in time, or
// failures.
func publishOutcome(out io.Writer, f publishFlags, sum *publishSummary, res loadgen.Result, interrupted bool, wait time.Duration) error {
	sent, ferr := res.Sent, res.Err
	acked, failed := res.Acked, res.Failed
	if f.output == "json" {
		if err := writeJSON(out, *sum, false); err != nil {
			return err
		}
	} else {
		printSummary(out, sum)
	}
	switch {
	case interrupted:
		failedText := ""
		if failed > 0 {
			failedText = fmt.Sprintf(", %d failed", failed)
		}
		return &exitError{code: exitInterrupted, err: fmt.Errorf("publish: interrupted: %d records sent, %d acknowledged%s, %d sent but not acknowledged", sent, acked, failedText, sent-acked-failed)}
	case ferr != nil:
		return fmt.Errorf("publish: %d of %d records not acknowledged within %v", sent-acked-failed, sent, wait)
	case failed > 0 && sum.unknownTopic == failed && acked == 0:
		return fmt.Errorf("publish: topic %s: no such topic (--partitions N creates it); %d of %d records failed (first: %s)",
			sum.Topic, failed, sent, strings.Join(sum.FirstErrors, "; ")) // report sanitizes the line
	case failed > 0:
		return fmt.Errorf("publish: %d of %d records failed (first: %s)", failed, sent, strings.Join(sum.FirstErrors, "; "))
	}
	return nil
}

// publishPlan is what publish's flags say, checked before anything
// connects.
type publishPlan struct {
	acks         int
	codec        wire.Codec
	headers      []headerTemplate
	keyT, valueT *template.Template
	count        int
}

// parsePublishFlags checks the flags (-o, acks, compression, headers, the
// templates, one record source) and says how many records to send.
func parsePublishFlags(cmd *cobra.Command, f *publishFlags) (publishPlan, error) {
	var pl publishPlan
	var err error
	if cmd.Flags().Changed("json") && f.json {
		if cmd.Flags().Changed("output") && f.output != "json" {
			return pl, usageErr("--json and -o %s disagree (--json is -o json)", f.output)
		}
		f.output = "json"
	}
	if err := outputFormat(f.output, "table", "json"); err != nil {
		return pl, err
	}
	pl.acks, err = ilink.ParseAcks(f.acks)
	if err != nil {
		return pl, usageErr("--acks %q: want 0, 1 or all", f.acks)
	}
	pl.codec, err = wire.ParseCodec(f.compression)
	if err != nil {
		return pl, usageErr("--compression: %v", err)
	}
	pl.headers, err = parseHeaders(f.headers)
	if err != nil {
		return pl, usageErr("%v", err)
	}
	if cmd.Flags().Changed("key") {
		if pl.keyT, err = template.Parse("--key", f.key); err != nil {
			return pl, usageErr("%v", err)
		}
	}
	for _, n := range []struct {
		flag string
		v    int
	}{{"--count", f.count}, {"--size", f.size}, {"--rate", f.rate}, {"--partitions", f.partitions}, {"--replicas", f.replicas}, {"--batch-size", f.batchSize}} {
		if n.v < 0 {
			return pl, usageErr("%s %d: must not be negative", n.flag, n.v)
		}
	}
	sources := 0
	for _, set := range []bool{cmd.Flags().Changed("value"), f.file != "", f.size > 0, f.fromJSONL != ""} {
		if set {
			sources++
		}
	}
	switch {
	case sources == 0:
		return pl, usageErr("nothing to publish: give --value, --file, --size or --from-jsonl")
	case sources > 1:
		return pl, usageErr("--value, --file, --size and --from-jsonl are exclusive")
	case f.fromJSONL != "" && (cmd.Flags().Changed("key") || len(f.headers) > 0):
		return pl, usageErr("--key and --header with --from-jsonl: the records keep their own keys and headers")
	case f.keepTimes && f.fromJSONL == "":
		return pl, usageErr("--keep-timestamps needs --from-jsonl")
	}
	if cmd.Flags().Changed("value") {
		if pl.valueT, err = template.Parse("--value", f.value); err != nil {
			return pl, usageErr("%v", err)
		}
	}
	pl.count = f.count
	if pl.count == 0 && f.file == "" && f.fromJSONL == "" {
		pl.count = 1
	}
	return pl, nil
}

// publishTarget is where publish sends: a fresh in-process engine with the
// topic (--embedded), or the context's data addresses, the topic created
// first when --partitions asks for it. closeEngine ends the engine.
func publishTarget(ctx context.Context, r config.Resolved, pcfg *ilink.ProducerConfig, f publishFlags, topic string, stderr io.Writer) (addrs []string, closeEngine func(), err error) {
	readOnly := r.Context.ReadOnly
	closeEngine = func() {}
	if f.embedded {
		if readOnly {
			return nil, closeEngine, fmt.Errorf("publish --embedded: creating topic %s is refused in read-only mode", topic)
		}
		e, err := engine.Start(engine.Config{ElectionDelay: 500 * time.Millisecond})
		if err != nil {
			return nil, closeEngine, err
		}
		closeEngine = func() { e.Close() }
		parts := f.partitions
		if parts == 0 {
			parts = 6
		}
		props := "partitions=" + strconv.Itoa(parts)
		if f.replicas > 0 {
			props += ",replicas=" + strconv.Itoa(f.replicas)
		}
		if err := e.CreateTopic(topic, props); err != nil {
			return nil, closeEngine, fmt.Errorf("create topic %s (%s): %w", topic, props, err)
		}
		addrs, pcfg.Hub = e.DataAddrs(), nil // its own engine, not the spoke
	} else {
		addrs = r.Context.Addresses
		if len(addrs) == 0 {
			return nil, closeEngine, usageErr("no data address: give --addr, --context or --embedded")
		}
		if f.partitions > 0 {
			if err := createTopicIfMissing(ctx, addrs, *pcfg, topic, f.partitions, f.replicas, stderr); err != nil {
				return nil, closeEngine, err
			}
		}
	}

	return addrs, closeEngine, nil
}

// summarizePublish makes the run's figures: counts, rate, latency, and the
// load-test figures (allocations and CPU per record, peak RSS).
func summarizePublish(topic string, f publishFlags, codec wire.Codec, res loadgen.Result, interrupted bool, run *loadgen.Run, st *pubStats, pst ilink.ProducerStats, end time.Time, m0, m1 runtime.MemStats, cpu time.Duration) publishSummary {
	sent := res.Sent
	elapsed := end.Sub(st.start)
	acked, failed := res.Acked, res.Failed
	sum := publishSummary{
		Topic:           topic,
		Records:         acked,
		Errors:          failed,
		Sent:            sent,
		NotAcknowledged: sent - acked - failed, // no answer at all: a failure was answered
		Interrupted:     interrupted,
		ElapsedSec:      elapsed.Seconds(),
		Bytes:           st.ackedBytes.Load(),
		Compression:     codec.String(),
		Acks:            f.acks,
		Embedded:        f.embedded,
		P50Ms:           run.Latency().Quantile(0.50).Seconds() * 1e3,
		P99Ms:           run.Latency().Quantile(0.99).Seconds() * 1e3,
		MaxMs:           run.Latency().Max().Seconds() * 1e3,
		FirstErrors:     st.firstErrors(),
		unknownTopic:    st.unknownTopic.Load(),
		PeakRSSMB:       float64(loadgen.ProcessMemory(0, loadgen.PeakRSS)) / (1 << 20),
		Batches:         pst.BatchesSent,
		Retries:         pst.Retries,
	}
	if secs := elapsed.Seconds(); secs > 0 {
		sum.RecordsPerSec = float64(acked) / secs
		sum.MBPerSec = float64(sum.Bytes) / secs / 1e6
	}
	if sent > 0 {
		sum.AllocsPerRecord = float64(m1.Mallocs-m0.Mallocs) / float64(sent)
		sum.CPUUsPerRecord = float64(cpu.Microseconds()) / float64(sent)
	}
	return sum
}

// checkValueSize makes a --size (or a --value template) larger than one
// record can carry a usage error, before any value is generated: the
// producer would fail every record with MIMQE_MSG_SIZE_OVER (and --size
// values are pre-generated). The bound is the producer's
// (ilink.ProducerConfig.MaxValueSize: its request and frame caps, less the
// record, batch and request envelope), with the key and headers at the
// longest their templates expand to.
func checkValueSize(cfg ilink.ProducerConfig, topic string, f publishFlags, key, value *template.Template, headers []headerTemplate) error {
	size, flag := f.size, "--size"
	if value != nil {
		size, flag = value.MaxLen(), "--value"
	}
	if size <= 0 {
		return nil
	}
	keyLen := -1
	if key != nil {
		keyLen = key.MaxLen()
	}
	hl := make([]wire.HeaderLen, len(headers))
	for i, h := range headers {
		hl[i] = wire.HeaderLen{Key: len(h.key), Value: h.val.MaxLen()}
	}
	limit, err := cfg.MaxValueSize(topic, keyLen, hl)
	if err != nil {
		return err
	}
	if size > limit {
		what := strconv.Itoa(size)
		if flag == "--value" {
			what = "expands to up to " + what + " bytes"
		}
		return usageErr("%s %s: a record to %s carries a value of at most %d bytes (a produce request is at most %d bytes, within the %d-byte frame cap; the record, batch and request envelope%s take the rest)",
			flag, what, topic, max(limit, 0), ilink.DefaultMaxRequestSize, wire.DefaultMaxFrame, keyNote(key, headers))
	}
	return nil
}

// keyNote says that the key and headers count too, when there are any.
func keyNote(key *template.Template, headers []headerTemplate) string {
	if key == nil && len(headers) == 0 {
		return ""
	}
	return ", and the key and headers"
}

func printSummary(w io.Writer, s *publishSummary) {
	fmt.Fprintf(w, "topic %s: %d records acknowledged, %d errors in %.3fs\n", sanitize.String(s.Topic), s.Records, s.Errors, s.ElapsedSec)
	if s.NotAcknowledged > 0 {
		fmt.Fprintf(w, "%d of %d records sent but not acknowledged\n", s.NotAcknowledged, s.Sent)
	}
	fmt.Fprintf(w, "throughput: %.0f records/s, %.2f MB/s (keys+values)\n", s.RecordsPerSec, s.MBPerSec)
	fmt.Fprintf(w, "ack latency: p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", s.P50Ms, s.P99Ms, s.MaxMs)
	fmt.Fprintf(w, "compression %s, acks %s, %d batches, %d resends, %.2f allocs/record, %.2f CPU-us/record, peak RSS %.0f MB\n",
		s.Compression, sanitize.String(s.Acks), s.Batches, s.Retries, s.AllocsPerRecord, s.CPUUsPerRecord, s.PeakRSSMB)
	for _, e := range s.FirstErrors {
		fmt.Fprintf(w, "error: %s\n", sanitize.String(e))
	}
}

// createTopicIfMissing creates topic with parts partitions (and replicas
// when > 0) unless it exists; the client refuses it in read-only mode.
func createTopicIfMissing(ctx context.Context, addrs []string, pcfg ilink.ProducerConfig, topic string, parts, replicas int, stderr io.Writer) error {
	props := "partitions=" + strconv.Itoa(parts)
	if replicas > 0 {
		props += ",replicas=" + strconv.Itoa(replicas)
	}
	created, err := ilink.CreateTopicIfMissing(ctx, addrs, ilink.ConnConfig{ClientName: pcfg.ClientName, Mode: wire.ModeProducer, Hub: pcfg.Hub}, pcfg.ReadOnly, topic, props)
	if created {
		fmt.Fprintf(stderr, "ilinkdash: created topic %s (%s)\n", topic, props)
	}
	return err
}

// recordSource yields record values.
type recordSource struct {
	pool      [][]byte // generated or single value
	left      int      // records left; -1 = until the file ends
	i         int
	sc        *bufio.Scanner
	jl        *jsonl.Reader // --from-jsonl
	keepTimes bool
	close     func()
}

func newRecordSource(f publishFlags, stdin io.Reader, count int) (*recordSource, error) {
	s := &recordSource{left: count, close: func() {}, keepTimes: f.keepTimes}
	switch {
	case f.fromJSONL != "":
		r := stdin
		if f.fromJSONL != "-" {
			fh, err := openInputFile("--from-jsonl", f.fromJSONL)
			if err != nil {
				return nil, err
			}
			r = fh
			s.close = func() { fh.Close() }
		}
		s.jl = jsonl.NewReader(r)
		if count == 0 {
			s.left = -1
		}
	case f.file != "":
		var r io.Reader = stdin
		if f.file != "-" {
			fh, err := openInputFile("--file", f.file)
			if err != nil {
				return nil, err
			}
			r = fh
			s.close = func() { fh.Close() }
		}
		s.sc = bufio.NewScanner(r)
		s.sc.Buffer(make([]byte, 64<<10), wire.DefaultMaxFrame)
		if count == 0 {
			s.left = -1
		}
	case f.size > 0:
		s.pool = valuePool(f.size, valuePoolBytes)
	default:
		s.pool = [][]byte{[]byte(f.value)}
	}
	return s, nil
}

// openInputFile opens the file flag names for reading. os.Open takes a
// directory, whose first read then fails mid-run: it is a usage error
// naming the flag, as a file that cannot be opened is.
func openInputFile(flag, path string) (*os.File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, usageErr("%s: %v", flag, err)
	}
	if fi, err := fh.Stat(); err == nil && fi.IsDir() {
		fh.Close()
		return nil, usageErr("%s: %s is a directory, not a file", flag, path)
	}
	return fh, nil
}

// fillJSONL sets the next saved record's key, value, headers and (with
// --keep-timestamps) timestamp. It reports false after the last one.
func (s *recordSource) fillJSONL(rec *ilink.ProducerRecord) (bool, error) {
	if s.left == 0 {
		return false, nil
	}
	if s.left > 0 {
		s.left--
	}
	r, err := s.jl.Next()
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("--from-jsonl: %w", err)
	}
	rec.Key, rec.Value = r.Key, r.Value // a null value stays null (a tombstone)
	rec.Headers = rec.Headers[:0]
	for _, h := range r.Headers {
		rec.Headers = append(rec.Headers, wire.RecordHeader{Key: h.Key, Value: h.Value})
	}
	rec.Timestamp = time.Time{}
	if s.keepTimes {
		rec.Timestamp = r.Timestamp
	}
	return true, nil
}

// next returns the next value; the slice is valid until the following call
// (the producer copies it in Send).
func (s *recordSource) next() ([]byte, bool, error) {
	if s.left == 0 {
		return nil, false, nil
	}
	if s.left > 0 {
		s.left--
	}
	if s.sc != nil {
		if !s.sc.Scan() {
			return nil, false, s.sc.Err()
		}
		return s.sc.Bytes(), true, nil
	}
	v := s.pool[s.i]
	s.i++
	if s.i == len(s.pool) {
		s.i = 0
	}
	return v, true, nil
}

// The --size value pool: valuePoolValues distinct values, fewer when they
// would take more than valuePoolBytes together (at least one).
const (
	valuePoolValues = 8192
	valuePoolBytes  = 64 << 20
)

// valuePoolCount is how many values of size bytes the pool holds within
// maxBytes.
func valuePoolCount(size, maxBytes int) int {
	return min(valuePoolValues, max(1, maxBytes/max(size, 1)))
}

// valuePool pre-generates JSON-ish values of exactly size bytes, as many as
// fit in maxBytes (valuePoolCount), so that value generation is not
// measured (compressible like real payloads).
func valuePool(size, maxBytes int) [][]byte {
	n := valuePoolCount(size, maxBytes)
	words := []string{"order", "payment", "status", "created", "amount", "currency", "KRW", "USD", "customer", "region", "seoul", "busan", "item", "qty", "price", "ok", "pending", "shipped"}
	rng := uint64(0x9e3779b97f4a7c15)
	next := func() uint64 {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return rng
	}
	pool := make([][]byte, n)
	// Appended in place (no fmt: a 64 MiB pool of 1 MB values is built in
	// a fraction of a second); a value's last field may overshoot size by
	// a few bytes before it is cut, hence the slack.
	buf := make([]byte, 0, size*n+64)
	for i := range pool {
		start := len(buf)
		buf = append(buf, `{"id":`...)
		buf = strconv.AppendUint(buf, next()%1_000_000, 10)
		buf = append(buf, `,"seq":`...)
		buf = strconv.AppendInt(buf, int64(i), 10)
		for len(buf)-start < size {
			w := words[next()%uint64(len(words))]
			w2 := words[next()%uint64(len(words))]
			buf = append(append(append(append(append(buf, `,"`...), w...), `":"`...), w2...), '-')
			buf = append(strconv.AppendUint(buf, next()%1000, 10), '"')
		}
		buf = buf[:start+size]
		if size >= 2 {
			buf[start+size-1] = '}'
		}
		pool[i] = buf[start:len(buf):len(buf)]
	}
	return pool
}

// publishSender is publish's loadgen.Sender: records from the source,
// built by the templates, sent through the producer.
type publishSender struct {
	p        *ilink.Producer
	run      *loadgen.Run
	st       *pubStats
	src      *recordSource
	build    *recordBuilder
	rec      ilink.ProducerRecord // reused: the producer copies it in Send
	cb       func(ilink.RecordMetadata, error)
	srcErr   error
	enc      *recordEncoder       // nil: sent as built
	encoded  ilink.ProducerRecord // with enc: rec with its key and value encoded (rec keeps the JSON the builder reuses)
	graceCtx context.Context
	wait     time.Duration // for the acknowledgements, after the last record
	closing  atomic.Bool   // Close fails what is left: not a refusal
}

func (s *publishSender) Next(n int64) bool {
	var ok bool
	if s.src.jl != nil {
		ok, s.srcErr = s.src.fillJSONL(&s.rec)
	} else {
		var v []byte
		if v, ok, s.srcErr = s.src.next(); ok {
			s.build.build(&s.rec, n, v)
			if s.enc != nil {
				s.encoded = s.rec
				if err := s.enc.encode(&s.encoded); err != nil {
					s.srcErr = &exitError{code: 1, err: fmt.Errorf("publish: record %d not sent (nor any after it): %w", n, err)}
					return false
				}
			}
		}
	}
	return ok && s.srcErr == nil
}

func (s *publishSender) Send() {
	rec := &s.rec
	if s.enc != nil {
		rec = &s.encoded
	}
	if !rec.Timestamp.IsZero() {
		// A kept timestamp (--keep-timestamps) is not when the record was
		// sent: the latency is measured from here.
		at := time.Now()
		s.p.Send(rec, func(md ilink.RecordMetadata, err error) {
			md.Timestamp = at
			s.cb(md, err)
		})
		return
	}
	s.p.Send(rec, s.cb)
}

// callback takes every record's outcome; the producer stamped a record
// without a timestamp with the time it was sent.
func (s *publishSender) callback(md ilink.RecordMetadata, err error) {
	if err != nil && ilink.IsSessionError(err) {
		// No answer: the connection went (the cluster killed, down) or our
		// own Close ended the wait. The record may or may not be stored:
		// sent and not acknowledged, not refused. The reason is still
		// said, unless it is our own stop.
		if !s.closing.Load() || !ilink.HasName(err, ilink.NameSessionClosed) {
			s.st.noteError(err)
		}
		return
	}
	s.run.Done(md.Timestamp, err)
	if err != nil {
		s.st.noteError(err)
		return
	}
	s.st.ackedBytes.Add(int64(md.Size))
}

// Close waits for the acknowledgements (s.wait; publishGrace after an
// interrupt, graceCtx), then closes the producer.
func (s *publishSender) Close(bool) error {
	// After a bad line (srcErr) too: the records before it were sent, and
	// the summary says how many were acknowledged.
	fctx, cancel := context.WithTimeout(s.graceCtx, s.wait)
	err := s.p.Flush(fctx)
	cancel()
	// Every record had its chance (or the grace after an interrupt is
	// over): close without waiting more, failing what is left.
	ended, endNow := context.WithCancel(context.Background())
	endNow()
	s.closing.Store(true)
	s.p.CloseContext(ended)
	return err
}

// pubStats is what publish reports beyond the run's counts: the key and
// value bytes acknowledged, counted record by record (MB/s was the bytes
// sent scaled by the share acknowledged, wrong when sizes vary, as the
// lines of a --file do), and the first distinct errors.
type pubStats struct {
	run        *loadgen.Run
	start      time.Time // of the measured figures (the run's is before the memory statistics)
	ackedBytes atomic.Int64
	// unknownTopic counts the records refused MIMQE_UNKNOWN_TOPIC: all of
	// them is a topic that does not exist, said as such.
	unknownTopic atomic.Int64

	errMu  sync.Mutex
	errors []string
}

const maxDistinctErrors = 5

func (s *pubStats) noteError(err error) {
	if ilink.HasName(err, wire.ErrUnknownTopic) {
		s.unknownTopic.Add(1)
	}
	txt := err.Error()
	s.errMu.Lock()
	defer s.errMu.Unlock()
	if len(s.errors) >= maxDistinctErrors {
		return
	}
	for _, e := range s.errors {
		if e == txt {
			return
		}
	}
	s.errors = append(s.errors, txt)
}

func (s *pubStats) firstErrors() []string {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return append([]string(nil), s.errors...)
}

func (s *pubStats) progressLoop(w io.Writer, stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			el := time.Since(s.run.Start()).Seconds()
			acked := s.run.Acked()
			fmt.Fprintf(w, "\r\033[Ksent %d, acknowledged %d, errors %d, %.0f records/s", s.run.Sent(), acked, s.run.Failed(), float64(acked)/el)
		}
	}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
