package cli

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"ilinkdash/ilink"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui"
	"ilinkdash/ui/live"
	"ilinkdash/ui/views"
)

type tailFlags struct {
	group    string
	from     string
	count    int
	commit   string
	format   string
	embedded bool
}

func (a *app) tailCommand() *cobra.Command {
	var f tailFlags
	cmd := &cobra.Command{
		Use:   "tail TOPIC_OR_PATTERN",
		Short: "Print the records of a topic or of every topic matching a pattern",
		Long: "Consumes a topic (or a glob pattern such as 'ORDER.*', where * also matches '.')\n" +
			"and prints one line per record. Without --group it reads as a temporary group\n" +
			"named ilinkdash-tail-<host>-<pid>-<n>, deleted when tail exits, so tailing never\n" +
			"moves a real group's commits. Text output is sanitized for the terminal; json\n" +
			"prints one object per line (binary keys and values in base64, flagged by\n" +
			"key_encoding / value_encoding); hex prints keys and values as hex.\n" +
			"--embedded starts a fresh in-process engine with demo topics and records.",
		Example: "  ilinkdash tail ORDER.EVENT\n" +
			"  ilinkdash tail 'ORDER.*' --from earliest --count 100 --format json\n" +
			"  ilinkdash tail PAYMENT.RESULT --from 2026-01-02T15:04:05Z\n" +
			"  ilinkdash tail ORDER.EVENT --embedded --count 5",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runTail(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.group, "group", "", "consume as this (durable) group and commit its offsets (default: a temporary group)")
	fl.StringVar(&f.from, "from", "", "where to start without a commit: earliest, latest, an offset or an RFC 3339 time (default latest; earliest with --embedded)")
	fl.IntVar(&f.count, "count", 0, "stop after this many records (0 = until interrupted)")
	fl.StringVar(&f.commit, "commit", "auto", "commit mode: auto, manual (commit each record once printed) or immediate")
	fl.StringVar(&f.format, "format", "text", "output format: text, json or hex")
	fl.BoolVar(&f.embedded, "embedded", false, "start a fresh in-process engine with demo topics and records and tail it")
	return cmd
}

// tailFrom is a parsed --from.
type tailFrom struct {
	mode   consumer.StartMode
	offset int64
	at     time.Time
}

func parseTailFrom(s string) (tailFrom, error) {
	v := strings.TrimSpace(s)
	switch strings.ToLower(v) {
	case "earliest":
		return tailFrom{mode: consumer.StartEarliest}, nil
	case "latest":
		return tailFrom{mode: consumer.StartLatest}, nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
		return tailFrom{mode: consumer.StartOffset, offset: n}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return tailFrom{mode: consumer.StartTime, at: t}, nil
	}
	return tailFrom{}, fmt.Errorf("--from %q: want earliest, latest, an offset (e.g. 1200) or an RFC 3339 time (e.g. 2026-01-02T15:04:05Z)", s)
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

func (a *app) runTail(cmd *cobra.Command, target string, f tailFlags) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	stderr := cmd.ErrOrStderr()
	write, err := tailWriter(f.format)
	if err != nil {
		return usageErr("%v", err)
	}
	commit, err := parseTailCommit(f.commit)
	if err != nil {
		return usageErr("%v", err)
	}
	if f.count < 0 {
		return usageErr("--count %d: must not be negative", f.count)
	}
	if strings.TrimSpace(target) == "" {
		return usageErr("tail: empty topic or pattern")
	}
	r, err := a.resolve(cmd)
	if err != nil {
		return err
	}
	embedded := f.embedded || r.Embedded
	from := tailFrom{mode: consumer.StartLatest}
	if embedded {
		from.mode = consumer.StartEarliest // a fresh engine: show its demo records
	}
	if cmd.Flags().Changed("from") {
		if from, err = parseTailFrom(f.from); err != nil {
			return usageErr("%v", err)
		}
	}
	if f.group != "" && r.Context.ReadOnly && !embedded {
		return usageErr("--group %s joins and commits to a real group, refused in read-only mode (omit --group to tail with a temporary group)", f.group)
	}

	var addrs string
	if embedded {
		if r.Embedded && !f.embedded {
			fmt.Fprintln(stderr, "ilinkdash: no address configured: tailing a fresh in-process engine (--embedded)")
		}
		e, stop, err := startTailDemo(target)
		if err != nil {
			return err
		}
		defer e.Close()
		defer stop()
		addrs = strings.Join(e.DataAddrs(), ",")
	} else {
		addrs = strings.Join(r.Context.Addresses, ",")
	}

	opt := consumer.NewOptions()
	opt.Group = f.group
	if opt.Group == "" {
		opt.Group = live.TempGroupName()
		opt.Durable = false
	}
	opt.Start, opt.StartOffset, opt.StartTime = from.mode, from.offset, from.at
	opt.Commit = commit
	opt.ClientName = "ilinkdash-tail"
	if r.Context.ClientName != "" {
		opt.ClientName = r.Context.ClientName
	}
	c, err := consumer.Subscribe(ctx, addrs, target, opt)
	if err != nil {
		return fmt.Errorf("tail %s: %w", target, err)
	}
	defer c.Close()

	out := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
	defer out.Flush()
	printed := 0
	for f.count == 0 || printed < f.count {
		max := 500
		if f.count > 0 {
			max = min(max, f.count-printed)
		}
		recs, err := c.ReadBatch(ctx, max, 500*time.Millisecond)
		if err != nil {
			switch {
			case ilink.IsNoMessage(err):
				if ferr := out.Flush(); ferr != nil {
					return ferr
				}
				continue
			case ctx.Err() != nil:
				return nil // interrupted: Close commits (auto) and leaves
			case ilink.IsSessionError(err) && !ilink.HasName(err, ilink.NameSessionClosed):
				fmt.Fprintf(stderr, "ilinkdash: tail: %v (still trying)\n", err)
				continue
			}
			return fmt.Errorf("tail %s: %w", target, err)
		}
		for _, rec := range recs {
			if err := write(out, rec); err != nil {
				return err
			}
			if commit == consumer.CommitManual {
				if err := out.Flush(); err != nil {
					return err
				}
				if err := c.Commit(ctx, rec); err != nil && ctx.Err() == nil {
					return fmt.Errorf("tail %s: commit %s/%d@%d: %w", target, rec.Topic, rec.Partition, rec.Offset, err)
				}
			}
		}
		printed += len(recs)
		if err := out.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// tailWriter returns the record printer of a --format.
func tailWriter(format string) (func(io.Writer, *consumer.Record) error, error) {
	switch strings.ToLower(strings.TrimSpace(format)) {
	case "text":
		return writeTailText, nil
	case "json":
		return writeTailJSON, nil
	case "hex":
		return writeTailHex, nil
	}
	return nil, fmt.Errorf("--format %q: want text, json or hex", format)
}

func tailStamp(r *consumer.Record) string {
	return r.Timestamp.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// writeTailText prints one sanitized line: every byte from the network
// goes through the dashboard's sanitizer, so no escape sequence, control
// character or bidi override reaches the terminal.
func writeTailText(w io.Writer, r *consumer.Record) error {
	return writeTailLine(w, r, "", ui.Sanitize)
}

// writeTailHex prints keys, header values and values as hex.
func writeTailHex(w io.Writer, r *consumer.Record) error {
	return writeTailLine(w, r, "value=", hex.EncodeToString)
}

// writeTailLine prints `time topic/partition@offset key=… h:k=… value`,
// with the record's bytes rendered by enc (the topic and header names are
// always sanitized).
func writeTailLine(w io.Writer, r *consumer.Record, valueLabel string, enc func([]byte) string) error {
	var b strings.Builder
	b.WriteString(tailStamp(r))
	b.WriteByte(' ')
	b.WriteString(ui.SanitizeString(r.Topic))
	fmt.Fprintf(&b, "/%d@%d", r.Partition, r.Offset)
	if r.Key != nil {
		b.WriteString(" key=")
		b.WriteString(enc(r.Key))
	}
	for _, h := range r.Headers {
		b.WriteString(" h:")
		b.WriteString(ui.SanitizeString(h.Key))
		b.WriteByte('=')
		b.WriteString(enc(h.Value))
	}
	b.WriteByte(' ')
	b.WriteString(valueLabel)
	if r.Value == nil {
		b.WriteString("<null>")
	} else {
		b.WriteString(enc(r.Value))
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTailJSON prints one JSON object per line, in the format the
// dashboard's tail saves (views.AppendTailJSON): binary keys and values in
// base64 with key_encoding / value_encoding, and characters a terminal may
// act on escaped.
func writeTailJSON(w io.Writer, r *consumer.Record) error {
	tr := live.TailRecordOf(r)
	_, err := w.Write(views.AppendTailJSON(nil, &tr))
	return err
}

// startTailDemo starts a fresh 3-node engine with demo topics (and target,
// when it names a topic that is not one of them), seeds records and keeps
// producing one every 250 ms per topic until stop is called.
func startTailDemo(target string) (*engine.Engine, func(), error) {
	e, err := engine.Start(engine.Config{ElectionDelay: 500 * time.Millisecond})
	if err != nil {
		return nil, nil, err
	}
	topics := []string{"ORDER.EVENT", "ORDER.KR.EVENT", "PAYMENT.RESULT"}
	if !consumer.IsPattern(target) && !strings.HasPrefix(target, "SYSTEM.") && !slices.Contains(topics, target) {
		topics = append(topics, target)
	}
	for _, t := range topics {
		if err := e.CreateTopic(t, "partitions=3"); err != nil {
			e.Close()
			return nil, nil, fmt.Errorf("create demo topic %s: %w", t, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := ilink.NewProducer(ctx, strings.Join(e.DataAddrs(), ","), ilink.ProducerConfig{ClientName: "ilinkdash-demo", LingerMs: 1})
	if err != nil {
		e.Close()
		return nil, nil, err
	}
	seq := 0
	send := func(t string) {
		seq++
		rec := &ilink.ProducerRecord{
			Topic:   t,
			Key:     []byte(fmt.Sprintf("id-%d", seq%17)),
			Value:   []byte(fmt.Sprintf(`{"seq":%d,"topic":%q,"amount":%d,"state":"created"}`, seq, t, (seq*7919)%100000)),
			Headers: []wire.RecordHeader{{Key: "trace-id", Value: []byte(fmt.Sprintf("t-%06d", seq))}},
		}
		if seq%10 == 0 {
			rec.Value = []byte{0x00, 0xff, 0x1b, '[', '2', 'J', 0xfe, byte(seq)} // binary: shows base64 / sanitizing
		}
		p.Send(rec, nil)
	}
	for i := 0; i < 20; i++ {
		for _, t := range topics {
			send(t)
		}
	}
	if err := p.Flush(ctx); err != nil {
		p.Close()
		e.Close()
		return nil, nil, fmt.Errorf("seed demo records: %w", err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				for _, t := range topics {
					send(t)
				}
			}
		}
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			p.Close()
		})
	}
	return e, stop, nil
}
