package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"ilinkdash/config"
	"ilinkdash/ilink"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ilink/numfmt"
	"ilinkdash/ilink/position"
	"ilinkdash/ilink/schema"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/common"
	"ilinkdash/ui/jsonl"
	"ilinkdash/ui/live"
	"ilinkdash/ui/sanitize"
)

// tailLeaveBudget bounds the final commit and the leave of the group when
// tail ends, whatever the cluster does (it is well inside the signal
// handler's stopGrace).
const tailLeaveBudget = time.Second

type tailFlags struct {
	group    string
	from     string
	count    int
	commit   string
	format   string
	output   string
	embedded bool
	// kcat-style scripting: one partition, one key, stop at the end.
	partition  int
	key        string
	keyChanged bool
	exitAtEnd  bool
	decode     decodeFlags
}

func (a *app) tailCommand() *cobra.Command {
	var f tailFlags
	cmd := &cobra.Command{
		Use:   "tail TOPIC_OR_PATTERN",
		Short: "Print the records of a topic or of every topic matching a pattern",
		Long: "Consumes a topic (or a glob pattern such as 'ORDER.*', where * also matches '.')\n" +
			"and prints one line per record. Without --group it reads as a temporary group\n" +
			"named ilinkdash-tail-<host>-<pid>-<n>, which leaves on every exit (--count reached,\n" +
			"SIGINT, SIGTERM, the reader of stdout gone as with | head), so tailing never moves\n" +
			"a real group's commits. Text output is sanitized for the terminal; json prints one\n" +
			"object per line (binary keys and values in base64, flagged by key_encoding /\n" +
			"value_encoding); hex prints keys and values as hex.\n" +
			"--from takes the positions of group seek --to and of the dashboard's jump: earliest,\n" +
			"latest, an offset (every partition), P@OFFSET (only partition P, from OFFSET, read\n" +
			"without joining a group), TOPIC:P@OFFSET (the same for one topic of a pattern:\n" +
			"'ORDER.*' --from ORDER.KR:2@1200; on a pattern P@OFFSET alone is refused), a time\n" +
			"(RFC 3339, a local date and time, HH:MM[:SS] today) or a relative time (-5m, -2h,\n" +
			"2h ago).\n" +
			"--embedded starts a fresh in-process engine with demo topics and records.",
		Example: "  ilinkdash tail ORDER.EVENT\n" +
			"  ilinkdash tail 'ORDER.*' --from earliest --count 100 --format json\n" +
			"  ilinkdash tail PAYMENT.RESULT --from -15m\n" +
			"  ilinkdash tail ORDER.EVENT --from 2@1200 --count 10\n" +
			"  ilinkdash tail 'ORDER.*' --from ORDER.KR:2@1200 --count 10\n" +
			"  ilinkdash tail ORDER.EVENT --embedded --count 5\n" +
			"  ilinkdash tail ORDER.EVENT --partition 2 --from earliest --exit-at-end\n" +
			"  ilinkdash tail ORDER.EVENT --key order-42 --from -1h --exit-at-end --format json",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.keyChanged = cmd.Flags().Changed("key")
			return a.runTail(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.group, "group", "", "consume as this (durable) group and commit its offsets (default: a temporary group)")
	fl.StringVar(&f.from, "from", "", "where to start without a commit: earliest, latest, OFFSET, P@OFFSET, TOPIC:P@OFFSET, a time or -5m (default latest; earliest with --embedded)")
	fl.IntVar(&f.count, "count", 0, "stop after this many records (0 = until interrupted)")
	fl.StringVar(&f.commit, "commit", "auto", "commit mode: auto, manual (commit each record once printed) or immediate")
	fl.StringVar(&f.format, "format", "text", "output format: text, json or hex")
	addOutputFlag(cmd, &f.output, "text", "same as --format (table = text)")
	fl.BoolVar(&f.embedded, "embedded", false, "start a fresh in-process engine with demo topics and records and tail it")
	fl.IntVar(&f.partition, "partition", 0, "only this partition (read directly, without joining a group; with --group its commits go to that group) (default: every partition)")
	fl.StringVar(&f.key, "key", "", "print only the records with exactly this key")
	fl.BoolVar(&f.exitAtEnd, "exit-at-end", false, "stop at the end offsets captured at the start (kcat -e)")
	f.decode.register(fl)
	return cmd
}

func parseTailCommit(s string) (consumer.CommitMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto":
		return consumer.CommitAuto, nil
	case "manual":
		return consumer.CommitManual, nil
	case "immediate":
		return consumer.CommitImmediate, nil
	}
	return 0, fmt.Errorf("--commit %q: want auto, manual or immediate", s)
}

// tailFormat settles --format and its alias -o.
func tailFormat(cmd *cobra.Command, f tailFlags) (string, error) {
	format := f.format
	if cmd.Flags().Changed("output") {
		o := f.output
		if o == "table" {
			o = "text"
		}
		if cmd.Flags().Changed("format") && !strings.EqualFold(o, f.format) {
			return "", usageErr("--format %s and -o %s disagree (-o is --format)", f.format, f.output)
		}
		format = o
	}
	return format, nil
}

// tailPlan is what the flags of a tail say, checked before anything
// connects.
type tailPlan struct {
	print        *tailPrinter
	commit       consumer.CommitMode
	from         position.Position // --from, or the default start
	onePartition bool
	readTopic    string // the topic read: target, or TOPIC of --from TOPIC:P@OFFSET
}

// planTail checks the flags of a tail of target; embedded says whether it
// reads a fresh in-process engine (whose default start is its earliest).
func (a *app) planTail(cmd *cobra.Command, target string, f tailFlags, embedded bool) (tailPlan, error) {
	var p tailPlan
	format, err := tailFormat(cmd, f)
	if err != nil {
		return p, err
	}
	if p.print, err = newTailPrinter(format); err != nil {
		return p, usageErr("%v", err)
	}
	if p.commit, err = parseTailCommit(f.commit); err != nil {
		return p, usageErr("%v", err)
	}
	if f.count < 0 {
		return p, usageErr("--count %d: must not be negative", f.count)
	}
	if strings.TrimSpace(target) == "" {
		return p, usageErr("tail: empty topic or pattern")
	}
	p.from = position.Position{Kind: position.Latest, Partition: -1}
	if embedded {
		p.from.Kind = position.Earliest // a fresh engine: show its demo records
	}
	if cmd.Flags().Changed("from") {
		if p.from, err = position.Parse(f.from, a.now()); err != nil {
			return p, usageErr("--from: %v", err)
		}
	}
	from := &p.from
	p.onePartition = from.OnePartition()
	if p.onePartition {
		if err := from.CheckTarget(target, consumer.MatchPattern); err != nil {
			if consumer.IsPattern(target) && from.Topic == "" {
				return p, usageErr("--from %s: a partition offset on a pattern needs one topic: %v", f.from, err)
			}
			return p, usageErr("--from %s: %v", f.from, err)
		}
	}
	switch {
	case f.partition < -1:
		return p, usageErr("--partition %d: want a partition number", f.partition)
	case f.partition >= 0 && consumer.IsPattern(target):
		return p, usageErr("--partition needs a topic, not the pattern %s", target)
	case f.partition >= 0 && p.onePartition && from.Partition != int32(f.partition):
		return p, usageErr("--partition %d and --from %s name different partitions", f.partition, f.from)
	case f.partition >= 0:
		p.onePartition, from.Partition = true, int32(f.partition)
	}
	p.readTopic = target
	if p.onePartition && from.Topic != "" {
		p.readTopic = from.Topic // TOPIC:P@OFFSET: that partition of that topic
	}
	return p, nil
}

func (a *app) runTail(cmd *cobra.Command, target string, f tailFlags) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	var err error
	if f.partition, err = partitionFlag(cmd, f.partition); err != nil {
		return err
	}
	r, hub, err := a.resolveTarget(cmd)
	if err != nil {
		return err
	}
	embedded := f.embedded || r.Embedded
	p, err := a.planTail(cmd, target, f, embedded)
	if err != nil {
		return err
	}
	r.Embedded = embedded // --embedded: the demo's topics decode as on the embedded default
	if p.print.set, err = schemas(r, &f.decode); err != nil {
		return err
	}
	addrs := strings.Join(r.Context.Addresses, ",")
	if embedded {
		var stop func()
		if addrs, stop, err = tailDemo(cmd.ErrOrStderr(), target, !f.embedded, "tailing"); err != nil {
			return err
		}
		defer stop()
		hub = nil
	}
	c, canCommit, err := openTailConsumer(ctx, addrs, target, f, p, r.Context, embedded, hub)
	if err != nil {
		if ctx.Err() != nil {
			return nil // interrupted while connecting
		}
		if ilink.HasName(err, wire.ErrReadOnly) {
			return fmt.Errorf("tail %s: %w (omit --group to tail with a temporary group)", target, err)
		}
		if nf := topicNotFound(err); nf != err {
			return nf
		}
		return fmt.Errorf("tail %s: %w", target, err)
	}
	// Every way out passes here: --count reached, SIGINT/SIGTERM, the
	// reader of stdout gone, an error. The leave gets its own short budget
	// (the run's context may be over), so a temporary group goes at once.
	defer func() {
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), tailLeaveBudget)
		defer cancel()
		c.CloseContext(lctx)
	}()
	var ends *endOffsets
	if f.exitAtEnd {
		if ends, err = endsAtStart(ctx, c, target, f.group, cmd.ErrOrStderr()); err != nil {
			return err
		}
	} else if consumer.IsPattern(target) && len(c.Topics()) == 0 {
		// Waiting is right (a matching topic may yet be created), waiting
		// in silence is not: a mistyped pattern looked like a quiet topic.
		fmt.Fprintf(cmd.ErrOrStderr(), "ilinkdash: tail: no topic matches %s yet; waiting for one (checked every %s; ctrl+c stops)\n",
			sanitize.String(target), common.Dur(consumer.DefaultPatternRefresh))
	}
	out := lineWriter(cmd.OutOrStdout())
	err = tailLoop(ctx, c, tailRun{target: target, f: f, p: p, ends: ends, canCommit: canCommit, out: out, stderr: cmd.ErrOrStderr()})
	if err == nil {
		err = out.Flush()
	}
	if errors.Is(err, syscall.EPIPE) || (err != nil && ctx.Err() != nil) {
		return nil // the reader went away (| head) or we were stopped while writing
	}
	return err
}

// openTailConsumer connects the tail's consumer: one partition assigned
// directly, or a subscription with --group or a temporary group.
// canCommit says whether it has a group to commit to.
func openTailConsumer(ctx context.Context, addrs, target string, f tailFlags, p tailPlan, cc config.Context, embedded bool, hub *ilink.HubRoute) (c *consumer.Consumer, canCommit bool, err error) {
	opt := consumer.NewOptions()
	opt.Hub = hub
	opt.Group = f.group
	if err := opt.StartFrom(p.from); err != nil {
		return nil, false, err
	}
	opt.Commit = p.commit
	opt.ReadOnly = cc.ReadOnly && !embedded // a fresh engine of its own is no one else's group
	opt.ClientName = "ilinkdash-tail"
	if cc.ClientName != "" {
		opt.ClientName = cc.ClientName
	}
	if p.onePartition {
		// Only partition P, from OFFSET: read it directly, without joining
		// a group (with --group, commits go to that group).
		c, err = consumer.Assign(ctx, addrs, p.readTopic, []int32{p.from.Partition}, opt)
		return c, opt.Group != "", err
	}
	if opt.Group == "" {
		opt.Group = live.TempGroupName()
		opt.Durable = false
	}
	c, err = consumer.Subscribe(ctx, addrs, target, opt)
	return c, true, err
}

// tailRun is what the read loop of a tail needs.
type tailRun struct {
	target    string
	f         tailFlags
	p         tailPlan
	ends      *endOffsets
	canCommit bool
	out       *bufio.Writer
	stderr    io.Writer
}

// fetchWatch says on stderr when fetching has failed for fetchQuiet (all
// nodes down, partitions without a leader) and when it works again, one
// line each: an outage printed nothing and looked like a quiet topic.
type fetchWatch struct{ said bool }

// fetchQuiet is how long fetching fails before the tail says so.
const fetchQuiet = 5 * time.Second

func (w *fetchWatch) check(h consumer.FetchHealth, now time.Time, stderr io.Writer) {
	switch {
	case h.Err != nil && !w.said && now.Sub(h.FailingSince) >= fetchQuiet:
		w.said = true
		fmt.Fprintf(stderr, "ilinkdash: tail: no fetch since %s: %s (still trying)\n", h.FailingSince.Format("15:04:05"), sanitize.Error(h.Err))
	case h.Err == nil && w.said:
		w.said = false
		fmt.Fprintln(stderr, "ilinkdash: tail: fetching again")
	}
}

// manualCommits commits each record printed (--commit manual). A commit
// the group's coordinator cannot take now (its failover: a session error,
// MIMQE_NOT_AVAILABLE) is said once and kept, the latest offset per
// partition (commit = next offset: a later one covers it), and tried
// again at most every commitRetry while records go on printing; it ended
// the tail (exit 1) at every coordinator failover. A refusal (a
// rebalance took the partition) still ends it.
type manualCommits struct {
	pending map[tailTP]int64 // not taken yet; at most one per partition
	failing bool             // said, not yet taken again
	tried   time.Time        // the last attempt while failing
}

// commitRetry is how often commits not taken are tried again.
const commitRetry = 2 * time.Second

// commitFunc commits offset off of (topic, part): Consumer.CommitOffset.
type commitFunc func(ctx context.Context, topic string, part int32, off int64) error

func (m *manualCommits) commit(ctx context.Context, c commitFunc, t tailRun, topic string, part int32, off int64) error {
	if m.pending == nil {
		m.pending = map[tailTP]int64{}
	}
	m.pending[tailTP{topic, part}] = off
	return m.retry(ctx, c, t)
}

// retry commits what is pending (not while failing until commitRetry
// has passed).
func (m *manualCommits) retry(ctx context.Context, c commitFunc, t tailRun) error {
	if len(m.pending) == 0 || (m.failing && time.Since(m.tried) < commitRetry) {
		return nil
	}
	m.tried = time.Now()
	for k, off := range m.pending {
		err := c(ctx, k.topic, k.partition, off)
		switch {
		case ctx.Err() != nil:
			return nil // interrupted: the close commits what it can
		case err == nil:
			delete(m.pending, k)
			continue
		case !coordinatorBusy(err):
			return fmt.Errorf("tail %s: commit %s/%d@%d: %w", t.target, k.topic, k.partition, off, err)
		}
		if !m.failing {
			m.failing = true
			fmt.Fprintf(t.stderr, "ilinkdash: tail: commit %s/%d@%d not taken: %s (still trying; records go on printing)\n", sanitize.String(k.topic), k.partition, off, sanitize.Error(err))
		}
		return nil
	}
	if m.failing {
		m.failing = false
		fmt.Fprintln(t.stderr, "ilinkdash: tail: commits taken again")
	}
	return nil
}

// coordinatorBusy reports a commit error of a coordinator that is moving
// or unreachable for now, worth committing again.
func coordinatorBusy(err error) bool {
	return (ilink.IsSessionError(err) && !ilink.HasName(err, ilink.NameSessionClosed)) ||
		ilink.HasName(err, wire.ErrNotAvailable) || ilink.HasName(err, wire.ErrNotCoordinator) || ilink.HasName(err, wire.ErrLoading)
}

// partitionFlag is --partition's value, -1 when it was not given (its
// default shows no "(default -1)" in help); a negative one is a usage
// error.
func partitionFlag(cmd *cobra.Command, p int) (int, error) {
	switch {
	case !cmd.Flags().Changed("partition"):
		return -1, nil
	case p < 0:
		return 0, usageErr("--partition %d: want a partition number, 0 or more", p)
	}
	return p, nil
}

// tailLoop reads and writes records until --count, the end offsets
// (--exit-at-end), the context's end or an error.
func tailLoop(ctx context.Context, c *consumer.Consumer, t tailRun) error {
	var key []byte
	if t.f.keyChanged {
		key = []byte(t.f.key)
	}
	printed := 0
	var mc manualCommits
	var fw fetchWatch
	for (t.f.count == 0 || printed < t.f.count) && !t.ends.reached(c) {
		max := 500
		if t.f.count > 0 {
			max = min(max, t.f.count-printed)
		}
		recs, err := c.ReadBatch(ctx, max, 500*time.Millisecond)
		fw.check(c.FetchHealth(), time.Now(), t.stderr)
		if err != nil {
			switch {
			case ilink.IsNoMessage(err):
				if ferr := t.out.Flush(); ferr != nil {
					return ferr
				}
				if err := mc.retry(ctx, c.CommitOffset, t); err != nil {
					return err
				}
				continue
			case ctx.Err() != nil:
				return nil // interrupted: the deferred close commits (auto) and leaves
			case ilink.IsSessionError(err) && !ilink.HasName(err, ilink.NameSessionClosed):
				fmt.Fprintf(t.stderr, "ilinkdash: tail: %s (still trying)\n", sanitize.Error(err))
				continue
			}
			return fmt.Errorf("tail %s: %w", t.target, err)
		}
		for _, rec := range recs {
			if t.ends.beyond(rec) || (key != nil && !bytes.Equal(rec.Key, key)) {
				continue
			}
			if t.f.count > 0 && printed >= t.f.count {
				break
			}
			printed++
			if err := t.p.print.write(t.out, rec); err != nil {
				return err
			}
			if t.p.commit == consumer.CommitManual && t.canCommit {
				if err := t.out.Flush(); err != nil {
					return err
				}
				if err := mc.commit(ctx, c.CommitOffset, t, rec.Topic, rec.Partition, rec.Offset); err != nil {
					return err
				}
			}
		}
		if err := t.out.Flush(); err != nil {
			return err
		}
	}
	return mc.last(ctx, c.CommitOffset, t)
}

// last tries once more, at the end, what is still pending, and says what
// was not taken: the group reads those records again.
func (m *manualCommits) last(ctx context.Context, c commitFunc, t tailRun) error {
	m.tried = time.Time{}
	if err := m.retry(ctx, c, t); err != nil || len(m.pending) == 0 {
		return err
	}
	fmt.Fprintf(t.stderr, "ilinkdash: tail: the commits of %s not taken at the end: the group reads their last records again\n", numfmt.Plural(len(m.pending), "partition"))
	return nil
}

// shareWait bounds how long --exit-at-end waits for the group to give
// its member a partition: a member stopped without leaving holds its
// share until the engine expires it.
var shareWait = time.Minute

// endsAtStart captures the end offsets --exit-at-end reads to. Nothing to
// read to the end of is an error, not an empty save: a pattern matching
// no topic (a typo; search says the same), or a group member given no
// partition within shareWait (another member holds them all: a tail
// still running, or one killed and not yet expired). That member exited
// 0 at once, having printed nothing.
func endsAtStart(ctx context.Context, c *consumer.Consumer, target, group string, stderr io.Writer) (*endOffsets, error) {
	if consumer.IsPattern(target) && len(c.Topics()) == 0 {
		return nil, fmt.Errorf("tail: no topic matches %s", target)
	}
	if group != "" && !hasPartitions(c) {
		fmt.Fprintf(stderr, "ilinkdash: tail: group %s gave this member no partition of %s yet (another member holds them); waiting up to %s\n",
			sanitize.String(group), sanitize.String(target), common.Dur(shareWait))
		deadline := time.Now().Add(shareWait)
		for !hasPartitions(c) {
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("tail %s: group %s gave this member no partition within %s: another member holds them all; nothing was read", target, group, common.Dur(shareWait))
			}
			select {
			case <-ctx.Done():
				return nil, nil // interrupted: nothing to read to
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	ends, err := captureEnds(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("tail %s: end offsets: %w", target, err)
	}
	return ends, nil
}

// hasPartitions reports whether the consumer was assigned a partition.
func hasPartitions(c *consumer.Consumer) bool {
	for _, a := range c.Assignment() {
		if len(a.Partitions) > 0 {
			return true
		}
	}
	return false
}

// endOffsets are the end offsets captured at the start (--exit-at-end):
// the tail stops once every partition's position reaches its end.
type endOffsets struct {
	end map[tailTP]int64
}

type tailTP struct {
	topic     string
	partition int32
}

func captureEnds(ctx context.Context, c *consumer.Consumer) (*endOffsets, error) {
	offs, err := c.OffsetsAt(ctx, wire.ListLatest)
	if err != nil {
		return nil, err
	}
	e := &endOffsets{end: make(map[tailTP]int64, len(offs))}
	for _, o := range offs {
		e.end[tailTP{o.Topic, o.Partition}] = o.Offset
	}
	return e, nil
}

// reached reports whether every partition was read up to its end.
func (e *endOffsets) reached(c *consumer.Consumer) bool {
	if e == nil {
		return false
	}
	for k, end := range e.end {
		if c.Position(k.topic, k.partition) < end {
			return false
		}
	}
	return true
}

// beyond reports whether r was written after the end was captured.
func (e *endOffsets) beyond(r *consumer.Record) bool {
	if e == nil {
		return false
	}
	end, ok := e.end[tailTP{r.Topic, r.Partition}]
	return !ok || r.Offset >= end
}

// tailPrinter prints records in a --format, decoding them with the
// schemas of their topics (set; nil decodes nothing).
type tailPrinter struct {
	format string // text, json or hex
	set    *schema.Set
	pairs  map[string]schema.Pair // set.Topic by topic, for the run
	rec    jsonl.Record           // reused per record
	buf    []byte
}

// tailPairsMax bounds the printer's cache of matched topics (a pattern
// tail may see many); past it the cache starts over.
const tailPairsMax = 4096

func newTailPrinter(format string) (*tailPrinter, error) {
	f := strings.ToLower(strings.TrimSpace(format))
	switch f {
	case "text", "json", "hex":
		return &tailPrinter{format: f, pairs: map[string]schema.Pair{}}, nil
	}
	return nil, fmt.Errorf("--format %q: want text, json or hex", format)
}

// pair is how records of topic decode.
func (p *tailPrinter) pair(topic string) schema.Pair {
	if p.set == nil {
		return schema.Pair{}
	}
	pr, ok := p.pairs[topic]
	if !ok {
		if len(p.pairs) >= tailPairsMax {
			clear(p.pairs)
		}
		pr = p.set.Topic(topic)
		p.pairs[topic] = pr
	}
	return pr
}

// write prints r: hex shows the bytes as they are; text and json decode
// first when a schema matches r's topic.
func (p *tailPrinter) write(w io.Writer, r *consumer.Record) error {
	p.rec = live.TailRecordOf(r)
	pr := schema.Pair{}
	if p.format != "hex" {
		pr = p.pair(r.Topic)
		p.rec.Decode(pr)
	}
	switch p.format {
	case "json":
		p.buf = jsonl.Append(p.buf[:0], &p.rec)
	case "hex":
		p.buf = appendTailLine(p.buf[:0], &p.rec, pr, "value=", hex.EncodeToString)
	default:
		p.buf = appendTailLine(p.buf[:0], &p.rec, pr, "", sanitize.Bytes)
	}
	_, err := w.Write(p.buf)
	return err
}

func tailStamp(r *jsonl.Record) string {
	return r.Timestamp.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// appendTailLine appends `time topic/partition@offset key=… h:k=… value`,
// with the record's bytes rendered by enc (the topic and header names are
// always sanitized; a text line goes through the dashboard's sanitizer,
// so no escape sequence, control character or bidi override reaches the
// terminal). A decoded side shows as its JSON; one that did not decode
// shows as hex followed by its error, never silently as text.
func appendTailLine(b []byte, r *jsonl.Record, pr schema.Pair, valueLabel string, enc func([]byte) string) []byte {
	b = append(b, tailStamp(r)...)
	b = append(b, ' ')
	b = append(b, sanitize.String(r.Topic)...)
	b = fmt.Appendf(b, "/%d@%d", r.Partition, r.Offset)
	if r.Key != nil {
		b = append(b, " key="...)
		b = appendTailSide(b, r.Key, r.KeyDecoded, r.KeyError, sideEnc(pr.Key.Format, enc))
	}
	for _, h := range r.Headers {
		b = append(b, " h:"...)
		b = append(b, sanitize.String(h.Key)...)
		b = append(b, '=')
		b = append(b, enc(h.Value)...)
	}
	b = append(b, ' ')
	b = append(b, valueLabel...)
	if r.Value == nil {
		b = append(b, "<null>"...)
	} else {
		b = appendTailSide(b, r.Value, r.ValueDecoded, r.ValueError, sideEnc(pr.Value.Format, enc))
	}
	return append(b, '\n')
}

// sideEnc is how a side without a schema shows, as its rule's format says
// (docs/CLI.md, decode rules): hex as hex, json as its JSON on one line
// (bytes that are not JSON as enc would), text, or no rule, by enc.
func sideEnc(format string, enc func([]byte) string) func([]byte) string {
	switch format {
	case schema.KindHex:
		return hex.EncodeToString
	case schema.KindJSON:
		return func(b []byte) string {
			var one bytes.Buffer
			if json.Compact(&one, b) != nil {
				return enc(b)
			}
			return sanitize.Bytes(one.Bytes())
		}
	}
	return enc
}

// appendTailSide appends one side of a record: its decoded JSON, or hex
// and the decode error, or its bytes by enc.
func appendTailSide(b, raw, decoded []byte, why string, enc func([]byte) string) []byte {
	if decoded != nil {
		doc, err := jsonl.AppendJSON(nil, decoded)
		if err == nil {
			return append(b, sanitize.Bytes(doc)...)
		}
		why = "decoded form is not JSON: " + err.Error()
	}
	if why == "" {
		return append(b, enc(raw)...)
	}
	b = append(b, hex.EncodeToString(raw)...)
	return append(append(b, " decode-error="...), sanitize.String(strconv.Quote(why))...)
}

// tailDemo starts a fresh 3-node engine seeded with demo.TailSet (its
// topics, and target when it names a topic that is not one of them, with
// records, and one more per topic every 250 ms) for a tail or a search
// (verb: "tailing", "searching"), saying so on w when the user did not
// ask for it (unasked: nothing is configured). stop ends the traffic and
// the engine.
func tailDemo(w io.Writer, target string, unasked bool, verb string) (addrs string, stop func(), err error) {
	if unasked {
		fmt.Fprintf(w, "ilinkdash: no address configured: %s a fresh in-process engine (--embedded)\n", verb)
	}
	e, err := engine.Start(engine.Config{ElectionDelay: 500 * time.Millisecond})
	if err != nil {
		return "", nil, err
	}
	stopDemo, err := demo.Seed(e, demo.TailSet(target))
	if err != nil {
		e.Close()
		return "", nil, err
	}
	return strings.Join(e.DataAddrs(), ","), func() { stopDemo(); e.Close() }, nil
}
