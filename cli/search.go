package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/position"
	"ilinkdash/ilink/schema"
	"ilinkdash/ilink/search"
	"ilinkdash/ui/common"
	"ilinkdash/ui/sanitize"
)

type searchFlags struct {
	key, valueContains, valueRegex, header string
	from, to                               string
	partition                              int
	max                                    int
	output                                 string
	embedded                               bool
	decode                                 decodeFlags
	fields                                 []string
}

func (a *app) searchCommand() *cobra.Command {
	var f searchFlags
	cmd := &cobra.Command{
		Use:   "search TOPIC_OR_PATTERN [--key K] [--value-contains S] [--value-regex R] [--header K=V] [--from X] [--to Y]",
		Short: "Scan a topic between two positions for records by key, value or header",
		Long: "Reads every record of the topic (or of every topic matching the pattern) from --from\n" +
			"(default earliest) to --to (default: the end when the scan starts) with a direct\n" +
			"consumer and no group, so nothing is committed and no group moves, and prints the\n" +
			"records that match every criterion given: -o text (the tail's sanitized line) or\n" +
			"json (the tail's JSON lines, replayable with publish --from-jsonl). Progress\n" +
			"(records scanned, rate, time left) goes to stderr; interrupt (ctrl+c) stops the scan.\n" +
			"Positions: " + position.Forms + ". A time --to is exclusive, an offset --to inclusive.\n" +
			"A P@OFFSET --from scans partition P alone; on a pattern write TOPIC:P@OFFSET (that\n" +
			"partition of that topic alone), as P@OFFSET names a partition of every topic.",
		Example: "  ilinkdash search ORDER.EVENT --key order-42 --from -1d\n" +
			"  ilinkdash search 'ORDER.*' --value-regex '\"amount\":[0-9]{6}' -o json > big.jsonl\n" +
			"  ilinkdash search PAYMENT.RESULT --header trace-id=t-000042 --from 2026-11-30 --to 2026-12-01\n" +
			"  ilinkdash search 'ORDER.*' --key order-42 --from ORDER.KR:2@1200",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runSearch(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.key, "key", "", "records with exactly this key")
	fl.StringVar(&f.valueContains, "value-contains", "", "records whose value contains this text")
	fl.StringVar(&f.valueRegex, "value-regex", "", "records whose value matches this regular expression (Go syntax)")
	fl.StringVar(&f.header, "header", "", "records with this header: NAME=VALUE, or NAME for any value")
	fl.StringVar(&f.from, "from", "", "where to start (default earliest)")
	fl.StringVar(&f.to, "to", "", "where to stop (default: the end offsets when the scan starts)")
	fl.IntVar(&f.partition, "partition", 0, "only this partition (default: every partition)")
	fl.IntVar(&f.max, "max", 0, "stop after this many matches (0 = no limit)")
	fl.StringVarP(&f.output, "output", "o", "text", "output format: text or json")
	fl.BoolVar(&f.embedded, "embedded", false, "start a fresh in-process engine with demo topics and records and search it")
	fl.StringArrayVar(&f.fields, "field", nil, "records whose decoded value has this field: PATH=VALUE (customer.address.city=Seoul; repeatable, all must match; needs a value schema)")
	f.decode.register(fl)
	return cmd
}

func (f searchFlags) spec(cmd *cobra.Command, target string, now time.Time) (search.Spec, error) {
	s := search.Spec{Target: target, Max: f.max}
	fl := cmd.Flags()
	if strings.TrimSpace(target) == "" {
		return s, errors.New("search: empty topic or pattern")
	}
	if fl.Changed("key") {
		s.Key = []byte(f.key)
	}
	s.ValueContains = []byte(f.valueContains)
	if f.valueRegex != "" {
		re, err := regexp.Compile(f.valueRegex)
		if err != nil {
			return s, fmt.Errorf("--value-regex %q: %v", f.valueRegex, err)
		}
		s.ValueRegex = re
	}
	for _, t := range f.fields {
		ft, err := schema.ParseFieldTerm(t)
		if err != nil {
			return s, fmt.Errorf("--field: %v", err)
		}
		s.Fields = append(s.Fields, ft)
	}
	if fl.Changed("header") {
		h, err := search.ParseHeader(f.header)
		if err != nil {
			return s, fmt.Errorf("--header: %v", err)
		}
		s.Header = h
	}
	for _, p := range []struct {
		name, v string
		dst     **position.Position
	}{{"--from", f.from, &s.From}, {"--to", f.to, &s.To}} {
		if p.v == "" {
			continue
		}
		pos, err := position.Parse(p.v, now)
		if err != nil {
			return s, fmt.Errorf("%s: %v", p.name, err)
		}
		if err := pos.CheckTarget(target, consumer.MatchPattern); err != nil {
			return s, fmt.Errorf("%s: %v", p.name, err)
		}
		*p.dst = &pos
	}
	switch {
	case f.max < 0:
		return s, fmt.Errorf("--max %d: must not be negative", f.max)
	case f.partition < -1:
		return s, fmt.Errorf("--partition %d: want a partition number", f.partition)
	case f.partition >= 0 && consumer.IsPattern(target):
		return s, errors.New("--partition needs a topic, not a pattern")
	case f.partition >= 0:
		s.Partitions = []int32{int32(f.partition)}
	}
	return s, nil
}

func (a *app) runSearch(cmd *cobra.Command, target string, f searchFlags) error {
	ctx := cmd.Context()
	stderr := cmd.ErrOrStderr()
	if o := strings.ToLower(f.output); o != "text" && o != "json" {
		return usageErr("-o %q: want text or json", f.output)
	}
	var err error
	if f.partition, err = partitionFlag(cmd, f.partition); err != nil {
		return err
	}
	printer, err := newTailPrinter(f.output)
	if err != nil {
		return usageErr("%v", err)
	}
	spec, err := f.spec(cmd, target, time.Now())
	if err != nil {
		return usageErr("%v", err)
	}
	r, hub, err := a.resolveTarget(cmd)
	if err != nil {
		return err
	}
	addrs := strings.Join(r.Context.Addresses, ",")
	r.Embedded = r.Embedded || f.embedded
	if printer.set, err = schemas(r, &f.decode); err != nil {
		return err
	}
	spec.Schemas = printer.set
	if len(spec.Fields) > 0 && !consumer.IsPattern(target) && spec.Schemas.Topic(target).Value.Codec == nil {
		return usageErr("--field %s: %s has no value schema to find fields in (give --value-proto, --value-avro or a decode: rule)", spec.Fields[0].String()[len("field:"):], target)
	}
	if !consumer.IsPattern(target) {
		// A field the schema lacks would match nothing, silently.
		for _, t := range spec.Fields {
			if err := schema.CheckFieldPath(spec.Schemas.Topic(target).Value.Codec, t.Path); err != nil {
				return usageErr("--field %s: %v", t.String()[len("field:"):], err)
			}
		}
	}
	if r.Embedded {
		var stop func()
		if addrs, stop, err = tailDemo(stderr, target, !f.embedded, "searching"); err != nil {
			return err
		}
		defer stop()
	}
	if addrs == "" {
		return usageErr("no data address: give --addr, a context with addresses, or --embedded")
	}
	out := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
	defer out.Flush()
	// The live progress line writes a carriage return and an erase of its
	// own, so it goes to the raw stream, and only on a terminal; its text
	// is sanitized (progressLine).
	raw := a.io.rawErr
	if raw == nil {
		raw = stderr
	}
	live := isTerminal(raw)
	last := time.Now()
	opt := search.Options{ClientName: r.Context.ClientName, Hub: hub, ProgressEvery: 250 * time.Millisecond, OnProgress: func(p search.Progress) {
		switch {
		case p.Finished:
			if live {
				fmt.Fprint(raw, "\r\033[K")
			}
		case live:
			fmt.Fprint(raw, "\r\033[K"+progressLine(p))
		case time.Since(last) >= 2*time.Second: // a log, not a live line
			last = time.Now()
			fmt.Fprintln(stderr, progressLine(p))
		}
	}}
	res, err := search.Run(ctx, addrs, spec, opt, func(rec *consumer.Record) error {
		if err := printer.write(out, rec); err != nil {
			return err
		}
		if live || out.Buffered() > 32<<10 {
			return out.Flush()
		}
		return nil
	})
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return topicNotFound(err)
	}
	if res.Cancelled && context.Cause(ctx) == errStdoutClosed {
		return errStdoutClosed // the reader went away (| head): no summary, exit 0, as tail
	}
	fmt.Fprintln(stderr, "ilinkdash: "+summaryLine(res))
	if res.Cancelled {
		return &exitError{code: 130, err: errors.New("search: interrupted")}
	}
	return nil
}

// progressLine is `search ORDER.EVENT: 120,000 of 1,000,000 records (12%),
// 480,000/s, 2s left, 1 match`.
func progressLine(p search.Progress) string {
	pct := ""
	if p.Total > 0 {
		pct = fmt.Sprintf(" (%d%%)", p.Scanned*100/p.Total)
	}
	left := "-"
	if p.ETA > 0 {
		left = common.Dur(p.ETA)
	}
	topic := sanitize.String(p.Topic)
	if p.Topics > 1 {
		topic += fmt.Sprintf(" [topic %d of %d]", p.Done+1, p.Topics)
	}
	return fmt.Sprintf("search %s: %s of %s records%s, %s/s, %s left, %s",
		topic, common.Thousands(p.Scanned), common.Thousands(p.Total), pct, common.Thousands(int64(p.Rate)), left, common.PluralOf(p.Matches, "match", "matches"))
}

func summaryLine(p search.Progress) string {
	what := "scanned"
	if p.Cancelled {
		what = "interrupted after"
	}
	return fmt.Sprintf("search: %s %s records in %s (%s/s), %s", what, common.Thousands(p.Scanned),
		common.Dur(p.Elapsed), common.Thousands(int64(p.Rate)), common.PluralOf(p.Matches, "match", "matches"))
}
