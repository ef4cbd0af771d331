package cli

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"ilinkdash/ilink"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/loadgen/template"
	"ilinkdash/ilink/numfmt"
	"ilinkdash/ilink/schema"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/jsonl"
	"ilinkdash/ui/sanitize"
)

// queue create|delete|put|get|browse|move-back: definitions, browsing and
// dead-letter moves go through the admin connection; put and get open an
// auto-commit queue session on the data addresses (the context's, the
// embedded engine's, or the ones the service reports).

type headerJSON struct {
	Key           string  `json:"key"`
	Value         *string `json:"value"`
	ValueEncoding string  `json:"value_encoding,omitempty"`
}

type queueMessageJSON struct {
	Seq             *uint64      `json:"seq,omitempty"` // browse only
	ID              string       `json:"id"`
	PutTime         string       `json:"put_time"`
	Redeliveries    int          `json:"redeliveries"`
	InFlight        bool         `json:"in_flight"`
	Headers         []headerJSON `json:"headers"`
	Payload         *string      `json:"payload"`
	PayloadEncoding string       `json:"payload_encoding,omitempty"`
	// With a schema matching the queue (browse): the decoded body, or
	// why it did not decode.
	PayloadDecoded     json.RawMessage `json:"payload_decoded,omitempty"`
	PayloadDecodeError string          `json:"payload_decode_error,omitempty"`
	Bytes              int             `json:"bytes"`
}

type browseJSON struct {
	Queue    string             `json:"queue"`
	Depth    int64              `json:"depth"`
	More     bool               `json:"more"`
	Messages []queueMessageJSON `json:"messages"`
}

type queuePutJSON struct {
	Queue   string `json:"queue"`
	Put     int    `json:"put"`
	FirstID string `json:"first_id"`
	LastID  string `json:"last_id"`
	Headers int    `json:"headers"` // the --header count, on every message
}

type queueDeleteJSON struct {
	Queue    string `json:"queue"`
	Executed bool   `json:"executed"`
	Deleted  bool   `json:"deleted"` // the queue is gone (executed and accepted)
	// Depth and InFlight are what the queue holds at the plan: lost with it.
	Depth    int64 `json:"depth"`
	InFlight int64 `json:"in_flight"`
	// DeadLetterOf are the queues whose dead-letter queue this is: the
	// engine refuses the delete while there is one.
	DeadLetterOf []string `json:"dead_letter_of"`
}

type moveJSON struct {
	ID      string `json:"id"`
	To      string `json:"to"`
	Skipped string `json:"skipped"`
}

// moveBackJSON is a plan (executed false: what --plan reads back) or the
// result of executing one, read against it.
type moveBackJSON struct {
	Queue    string `json:"queue"`
	To       string `json:"to"` // "" = each message's source
	Executed bool   `json:"executed"`
	// Planned counts the messages the plan moves; NextSeq is the plan's
	// mark (messages after it arrived after the plan).
	Planned int64  `json:"planned"`
	NextSeq uint64 `json:"next_seq"`
	Moved   int64  `json:"moved"`
	// Arrived (executed): messages that arrived after the plan, left in
	// place; Beyond: messages not in the plan (a plan takes at most
	// admin.MaxMoveIDs), left in place.
	Arrived    int64      `json:"arrived_after_plan"`
	Beyond     int64      `json:"beyond_plan"`
	StopReason string     `json:"stop_reason"`
	Moves      []moveJSON `json:"moves"`
	// Missed (executed): the planned messages that did not move, and why.
	Missed []moveJSON `json:"missed"`
}

// bytesJSON is the JSON lines rule for bytes: a string when they are
// UTF-8, else base64 with an encoding field.
func bytesJSON(b []byte) (*string, string) {
	if b == nil {
		return nil, ""
	}
	if utf8.Valid(b) {
		s := string(b)
		return &s, ""
	}
	s := base64.StdEncoding.EncodeToString(b)
	return &s, "base64"
}

func messageJSON(m admin.QueueMessage, withSeq bool) queueMessageJSON {
	j := queueMessageJSON{ID: hex.EncodeToString(m.ID), PutTime: m.PutTime.UTC().Format(time.RFC3339Nano),
		Redeliveries: m.Redeliveries, InFlight: m.InFlight, Headers: []headerJSON{}, Bytes: len(m.Payload)}
	if withSeq {
		seq := m.Seq
		j.Seq = &seq
	}
	j.Payload, j.PayloadEncoding = bytesJSON(m.Payload)
	for _, h := range m.Headers {
		v, enc := bytesJSON(h.Value)
		j.Headers = append(j.Headers, headerJSON{h.Key, v, enc})
	}
	return j
}

// decodeBody decodes a queue message's body with the value schema of
// pair: the JSON document (escaped as the JSON lines format escapes), or
// why it did not decode; neither without a schema or for a null body.
func decodeBody(pair schema.Pair, body []byte) (json.RawMessage, string) {
	rec := jsonl.Record{Value: body}
	rec.Decode(schema.Pair{Value: pair.Value})
	if rec.ValueDecoded == nil {
		return nil, rec.ValueError
	}
	doc, err := jsonl.AppendJSON(nil, rec.ValueDecoded)
	if err != nil {
		return nil, "decoded form is not JSON: " + err.Error()
	}
	return doc, ""
}

// bodyPreview is a one-line sanitized preview of a body, at most n cells.
func bodyPreview(b []byte, n int) string {
	if b == nil {
		return "<null>"
	}
	if sanitize.LooksBinary(b) {
		return sanitize.Truncate("hex:"+hex.EncodeToString(b[:min(len(b), n)]), n)
	}
	return sanitize.Truncate(sanitize.Bytes(b), n)
}

func (a *app) queueCommand() *cobra.Command {
	var f adminFlags
	cmd := &cobra.Command{
		Use:   "queue",
		Short: "Define, delete, put to, get from and browse queues; move dead letters back",
		Long: "Queue definitions, browse and moves use the admin connection; put and get open an\n" +
			"auto-commit queue session on the data addresses. Queue properties: " + admin.QueuePropsSyntax + ".",
	}
	f.register(cmd)
	cmd.AddCommand(a.queueCreateCommand(&f), a.queueDeleteCommand(&f), a.queuePutCommand(&f),
		a.queueGetCommand(&f), a.queueBrowseCommand(&f), a.queueMoveBackCommand(&f))
	return cmd
}

// Bounds of a queue's numbers, as ParseQueueDefinition reads them in
// --props (and the engine checks them).
const (
	maxQueueDepthProp      = 1 << 40
	maxQueueRedeliveryProp = 1_000_000
)

// checkQueueDefinition checks what queue create sends, as the engine
// would, naming the flag or the --props key that is wrong (a usage
// error, as a bad --props is): the numbers of the single flags (--props
// checks its own), and a dead-letter queue with its redelivery count.
func checkQueueDefinition(fl *pflag.FlagSet, queue string, def admin.QueueDefinition) error {
	for _, n := range []struct {
		flag string
		v    int64
		max  int64
		note string
	}{
		{"max-depth", def.MaxDepth, maxQueueDepthProp, " (0 = unlimited)"},
		{"max-redeliveries", int64(def.MaxRedeliveries), maxQueueRedeliveryProp, ""},
	} {
		switch {
		case !fl.Changed(n.flag):
		case n.v < 0:
			return usageErr("--%s %d: must not be negative%s", n.flag, n.v, n.note)
		case n.v > n.max:
			return usageErr("--%s %d: at most %d", n.flag, n.v, n.max)
		}
	}
	dlq := "--props dlq=" + def.DeadLetterQueue
	if fl.Changed("dlq") {
		dlq = "--dlq " + def.DeadLetterQueue
	}
	redeliveries := "--props maxRedeliveries=" + strconv.Itoa(def.MaxRedeliveries)
	if fl.Changed("max-redeliveries") {
		redeliveries = "--max-redeliveries " + strconv.Itoa(def.MaxRedeliveries)
	}
	switch {
	case def.DeadLetterQueue != "" && def.MaxRedeliveries == 0:
		if fl.Changed("max-redeliveries") {
			dlq += " with " + redeliveries
		}
		return usageErr("%s needs maxRedeliveries=N, N >= 1 (--max-redeliveries N): the returns after which a message moves to it", dlq)
	case def.DeadLetterQueue == "" && def.MaxRedeliveries > 0:
		if fl.Changed("dlq") {
			redeliveries += ` with --dlq ""`
		}
		return usageErr("%s needs dlq=QUEUE (--dlq QUEUE): the queue the messages move to", redeliveries)
	case def.DeadLetterQueue == queue:
		return usageErr("%s: queue %s cannot be its own dead-letter queue", dlq, queue)
	}
	return nil
}

func (a *app) queueCreateCommand(f *adminFlags) *cobra.Command {
	var props, dlq, desc string
	var maxDepth int64
	var maxRedeliveries int
	c := &cobra.Command{
		Use:   "create NAME [--max-depth N] [--dlq QUEUE --max-redeliveries N] [--props PROPS]",
		Short: "Define a queue (or change an existing queue's properties; its messages stay)",
		Long: "Defines NAME with its properties: --props in the engine's syntax (" + admin.QueuePropsSyntax + "),\n" +
			"and/or the single flags, which override --props. A dead-letter queue that does not exist is created.",
		Example: "  ilinkdash queue create ORDERS --max-depth 1000 --dlq ORDERS.DLQ --max-redeliveries 3\n" +
			"  ilinkdash queue create ORDERS --props maxDepth=1000,dlq=ORDERS.DLQ,maxRedeliveries=3",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			def, err := admin.ParseQueueDefinition(props)
			if err != nil {
				return usageErr("--props: %v", err)
			}
			fl := cmd.Flags()
			if fl.Changed("max-depth") {
				def.MaxDepth = maxDepth
			}
			if fl.Changed("dlq") {
				def.DeadLetterQueue = dlq
			}
			if fl.Changed("max-redeliveries") {
				def.MaxRedeliveries = maxRedeliveries
			}
			if fl.Changed("description") {
				def.Description = desc
			}
			if err := checkQueueDefinition(fl, args[0], def); err != nil {
				return err
			}
			t, err := a.openAdmin(cmd, f)
			if err != nil {
				return err
			}
			defer t.close()
			p, err := t.qm.DefineQueue(t.ctx, args[0], def)
			if err != nil {
				return err
			}
			out := queueToJSON(admin.QueueInfo{Name: p.Name, Property: p})
			return t.emit(out, func(w *table) { printQueueProperty(w, out) })
		},
	}
	fl := c.Flags()
	fl.StringVar(&props, "props", "", "properties: "+admin.QueuePropsSyntax)
	fl.Int64Var(&maxDepth, "max-depth", 0, "maximum depth (0 = unlimited); a put beyond it fails with MIMQE_QUEUE_FULL")
	fl.StringVar(&dlq, "dlq", "", "dead-letter queue (needs --max-redeliveries)")
	fl.IntVar(&maxRedeliveries, "max-redeliveries", 0, "returns to the queue (rollback, lost session) after which a message moves to the dead-letter queue")
	fl.StringVar(&desc, "description", "", "description")
	return c
}

func printQueueProperty(w *table, q queueJSON) {
	w.row("QUEUE", sanitize.String(q.Name))
	w.row("DESCRIPTION", sanitize.String(q.Description))
	md := "unlimited"
	if q.MaxDepth > 0 {
		md = strconv.FormatInt(q.MaxDepth, 10)
	}
	w.row("MAX-DEPTH", md)
	dlq := "-"
	if q.DeadLetterQueue != "" {
		dlq = sanitize.String(q.DeadLetterQueue)
	}
	w.row("DEAD-LETTER-QUEUE", dlq)
	w.row("MAX-REDELIVERIES", q.MaxRedeliveries)
	w.row("MAX-MSG-SIZE", q.MaxMsgSize)
	w.row("CREATED", q.Created)
}

func (a *app) queueDeleteCommand(f *adminFlags) *cobra.Command {
	return a.plannedCommand(f, "delete", "Plan (or, with --execute, make) the deletion of a queue with its messages",
		"queue delete prints what the deletion takes (the queue's messages, and whether it is\n"+
			"another queue's dead-letter queue, which the engine refuses) and changes nothing unless\n"+
			"--execute. This cannot be undone.",
		"delete the queue (default: only print the plan)",
		func(t *adminTarget, name string, execute bool) error { return t.queueDelete(name, execute) })
}

// queueDelete plans the deletion of queue from the queue list and, with
// execute, makes it; the output says what the plan saw either way.
func (t *adminTarget) queueDelete(name string, execute bool) error {
	if _, err := t.qm.QueueProperty(t.ctx, name); err != nil {
		return err // an unknown queue: "queue X: no such queue" (notFound)
	}
	qs, err := t.qm.Queues(t.ctx)
	if err != nil {
		return err
	}
	out := queueDeleteJSON{Queue: name, DeadLetterOf: []string{}}
	for _, q := range qs {
		if q.Name == name {
			out.Depth, out.InFlight = q.Depth, q.InFlight
		}
		if q.Property.DeadLetterQueue == name && q.Name != name {
			out.DeadLetterOf = append(out.DeadLetterOf, q.Name)
		}
	}
	if execute {
		if err := t.qm.DeleteQueue(t.ctx, name); err != nil {
			return err
		}
		out.Executed, out.Deleted = true, true
	}
	return t.emit(out, func(w *table) {
		head := "planned (nothing changed; add --execute to delete it)"
		if out.Executed {
			head = "deleted"
		}
		w.row(fmt.Sprintf("queue %s: delete %s (%s in flight); %s", name,
			numfmt.Plural(out.Depth, "message"), numfmt.Thousands(out.InFlight), head))
		if len(out.DeadLetterOf) > 0 {
			w.row(fmt.Sprintf("it is the dead-letter queue of %s: the engine refuses the delete until they name another",
				strings.Join(out.DeadLetterOf, ", ")))
		}
	})
}

// openQueue opens queue in an auto-commit session on the target's data
// addresses (learned from the admin handshake when none is configured).
func (t *adminTarget) openQueue(queue string) (*ilink.Queue, *ilink.Session, error) {
	addrs := t.addrs
	if len(addrs) == 0 {
		for _, n := range t.svc.Hello().Nodes {
			if n.Addr != "" {
				addrs = append(addrs, n.Addr)
			}
		}
	}
	if len(addrs) == 0 {
		return nil, nil, usageErr("no data address: give --addr or a context with addresses")
	}
	return ilink.DialQueue(t.ctx, strings.Join(addrs, ","), ilink.Options{ClientName: t.client, AutoCommit: true, ReadOnly: t.readOnly, Hub: t.hub}, queue)
}

func (a *app) queuePutCommand(f *adminFlags) *cobra.Command {
	var value, file string
	var headerFlags []string
	var count int
	var df decodeFlags
	var raw bool
	c := &cobra.Command{
		Use:   "put NAME (--value V | --file F) [--header K=V]... [--count N]",
		Short: "Put messages on a queue: a templated --value (--count times) or one message per line of --file",
		Long: "--value is a template: {{seq}} (0, 1, ...), {{now}} (RFC 3339), {{uuid}}, {{rand N}}\n" +
			"(N random alphanumerics). --file puts one message per line as is (- = stdin);\n" +
			"--count then stops after N lines (0 = every line). Every message carries the\n" +
			"--header key=value properties (repeatable), their values templates as for publish\n" +
			"({{seq}} is the message's number, with --file too); queue browse shows them.\n" +
			"A queue with a value schema (the decode: rules, the flags) gets each body as JSON and\n" +
			"puts what the schema encodes; JSON that does not fit is refused naming the field, with\n" +
			"nothing put (--raw puts the bodies as given).",
		Example: "  ilinkdash queue put ORDERS --value '{\"order\":{{seq}}}' --count 100\n" +
			"  ilinkdash queue put ORDERS --file orders.txt --header source=batch --header trace-id={{uuid}}",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			hasValue := cmd.Flags().Changed("value")
			switch {
			case hasValue == (file != ""):
				return usageErr("give exactly one of --value and --file")
			case count < 0:
				return usageErr("--count %d: must not be negative", count)
			}
			headers, err := parseQueueHeaders(headerFlags)
			if err != nil {
				return usageErr("%v", err)
			}
			var tmpl *template.Template
			if hasValue {
				if tmpl, err = template.Parse("value", value); err != nil {
					return usageErr("--value: %v", err)
				}
				if count == 0 {
					count = 1
				}
			}
			var lines *bufio.Scanner
			if file != "" {
				r := cmd.InOrStdin()
				if file != "-" {
					fh, err := openInputFile("--file", file)
					if err != nil {
						return err
					}
					defer fh.Close()
					r = fh
				}
				lines = bufio.NewScanner(r)
				lines.Buffer(make([]byte, 64<<10), 128<<20)
			}
			set, err := a.adminSchemas(cmd, f, &df)
			if err != nil {
				return err
			}
			codec := queueCodec(set, args[0], raw)
			if codec != nil {
				if err := precheckBodies(codec, tmpl, file, count); err != nil {
					return err
				}
			}
			return a.withAdmin(cmd, f, func(t *adminTarget) error { return t.queuePut(args[0], tmpl, lines, count, headers, codec) })
		},
	}
	c.Flags().StringVar(&value, "value", "", "message body template ({{seq}}, {{now}}, {{uuid}}, {{rand N}})")
	c.Flags().StringArrayVar(&headerFlags, "header", nil, "message header key=value on every message, the value a template (repeatable)")
	c.Flags().StringVar(&file, "file", "", "put one message per line of this file (- = stdin)")
	c.Flags().IntVar(&count, "count", 0, "messages to put (default 1 with --value; with --file 0 = every line)")
	c.Flags().BoolVar(&raw, "raw", false, "put the bodies as given, without encoding them with the queue's schema")
	df.registerSchemas(c.Flags())
	return c
}

// parseQueueHeaders reads the --header flags of queue put with publish's
// parser (the same words and templates), then the queue's own rules for
// put headers, those of the dashboard's put form: at most
// admin.MaxPutHeaders, and keys without control characters.
func parseQueueHeaders(hs []string) ([]headerTemplate, error) {
	headers, err := parseHeaders(hs)
	if err != nil {
		return nil, err
	}
	if len(headers) > admin.MaxPutHeaders {
		return nil, fmt.Errorf("--header given %d times: a message carries at most %d headers", len(headers), admin.MaxPutHeaders)
	}
	for i, h := range headers {
		if strings.IndexFunc(h.key, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
			return nil, fmt.Errorf("--header %q: the key holds control characters", hs[i])
		}
	}
	return headers, nil
}

// queuePut puts count messages (0: every line), each body encoded by
// codec when there is one.
func (t *adminTarget) queuePut(queue string, tmpl *template.Template, lines *bufio.Scanner, count int, headers []headerTemplate, codec schema.Codec) error {
	q, sess, err := t.openQueue(queue)
	if err != nil {
		return err
	}
	defer sess.Close()
	exp := template.NewExpander()
	var buf []byte
	// The headers are reused: static values are set once, templated ones
	// expanded per message into their own buffers (a put has sent its
	// request when it returns). "k=" is an empty value, not a null one,
	// as in the dashboard's put form.
	hdrs := make([]wire.RecordHeader, len(headers))
	for i, h := range headers {
		hdrs[i] = wire.RecordHeader{Key: h.key, Value: append([]byte{}, h.val.Literal()...)}
	}
	out := queuePutJSON{Queue: queue, Headers: len(headers)}
	// A put that fails (an interrupt, the --timeout, a full queue) after
	// others were put prints those first, then why it stopped.
	var putErr error
	for seq := 0; count == 0 || seq < count; seq++ {
		if lines != nil {
			if !lines.Scan() {
				if err := lines.Err(); err != nil {
					return fmt.Errorf("--file: %w", err)
				}
				break
			}
			buf = append(buf[:0], lines.Bytes()...)
		} else {
			buf = exp.Append(buf[:0], tmpl, int64(seq))
		}
		for i, h := range headers {
			if !h.val.Static() {
				hdrs[i].Value = exp.Append(hdrs[i].Value[:0], h.val, int64(seq))
			}
		}
		body := buf
		if codec != nil {
			if body, err = codec.Encode(buf); err != nil {
				return &exitError{code: 2, err: fmt.Errorf("message %d of %s does not fit its schema (%d put before it): value: %w", out.Put+1, queue, out.Put, err)}
			}
		}
		id, err := q.PutHeaders(t.ctx, body, hdrs)
		if err != nil {
			putErr = fmt.Errorf("put %d of %s: %w", out.Put+1, queue, err)
			break
		}
		if out.Put == 0 {
			out.FirstID = id.String()
		}
		out.LastID = id.String()
		out.Put++
	}
	if putErr != nil && out.Put == 0 && !t.json {
		return putErr // the error says it all; -o json still prints put 0, as a script reads it
	}
	err = t.emit(out, func(w *table) {
		line := fmt.Sprintf("put %s on %s", numfmt.Plural(out.Put, "message"), queue)
		if out.Put == 1 {
			line += fmt.Sprintf(" (id %s)", out.FirstID)
		} else if out.Put > 1 {
			line += fmt.Sprintf(" (ids %s .. %s)", out.FirstID, out.LastID)
		}
		if out.Headers > 0 {
			line += fmt.Sprintf(", %s each", numfmt.Plural(out.Headers, "header"))
		}
		w.row(line)
	})
	if err != nil {
		return err
	}
	return putErr
}

func (a *app) queueGetCommand(f *adminFlags) *cobra.Command {
	var count int
	var wait time.Duration
	c := &cobra.Command{
		Use:   "get NAME [--count N] [--wait D]",
		Short: "Take messages from a queue (they are removed: use browse to look without taking)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if count < 1 || wait < 0 {
				return usageErr("--count %d, --wait %v: want a count of at least 1 and a wait of 0 or more", count, wait)
			}
			return a.withAdmin(cmd, f, func(t *adminTarget) error { return t.queueGet(args[0], count, wait) })
		},
	}
	c.Flags().IntVar(&count, "count", 1, "messages to take at most")
	c.Flags().DurationVar(&wait, "wait", 0, "wait this long for each message (0 = take only what is there)")
	return c
}

func (t *adminTarget) queueGet(queue string, count int, wait time.Duration) error {
	q, sess, err := t.openQueue(queue)
	if err != nil {
		return err
	}
	defer sess.Close()
	p := takenPrinter{queue: queue}
	if t.json {
		p.json = &jsonArray{w: t.out}
	} else {
		p.tb = newTable(t.out)
	}
	// A failure (an interrupt, the --timeout) after messages were taken
	// still ends their listing before it is reported: taken, they are off
	// the queue, and each was printed as it was taken.
	var getErr error
	for p.n < count {
		m, err := q.Get(t.ctx, wait)
		if ilink.IsNoMessage(err) {
			break
		}
		if err != nil {
			getErr = fmt.Errorf("get from %s: %w", queue, err)
			break
		}
		redeliveries := 0
		if m.Redelivered {
			redeliveries = 1 // GET says only whether it came back at least once
		}
		if err := p.add(messageJSON(admin.QueueMessage{ID: m.ID[:], PutTime: m.PutTime, Redeliveries: redeliveries, Payload: m.Payload}, false)); err != nil {
			return err
		}
	}
	if getErr != nil && p.n == 0 {
		return getErr
	}
	if err := p.close(); err != nil {
		return err
	}
	return getErr
}

// takenBlock is how many table rows queue get aligns and prints at a time.
const takenBlock = 1000

// takenPrinter prints the messages queue get takes as it takes them, so
// it holds one message's body at a time whatever --count is: -o json as
// one array written element by element, a table in blocks of takenBlock
// aligned rows (a body preview each).
type takenPrinter struct {
	queue string
	json  *jsonArray
	tb    *table
	n     int
}

func (p *takenPrinter) add(m queueMessageJSON) error {
	p.n++
	if p.json != nil {
		return p.json.add(m)
	}
	if p.n == 1 {
		p.header()
	}
	body := "<null>"
	if m.Payload != nil {
		if m.PayloadEncoding == "" {
			body = bodyPreview([]byte(*m.Payload), 80)
		} else {
			raw, _ := base64.StdEncoding.DecodeString(*m.Payload)
			body = bodyPreview(raw, 80)
		}
	}
	p.tb.row(m.ID, m.PutTime, m.Redeliveries > 0, m.Bytes, body)
	if p.n%takenBlock == 0 {
		return p.tb.flush()
	}
	return nil
}

func (p *takenPrinter) header() { p.tb.row("ID", "PUT-TIME", "REDELIVERED", "BYTES", "BODY") }

// close ends the listing; a table of no message says so.
func (p *takenPrinter) close() error {
	if p.json != nil {
		return p.json.close()
	}
	if p.n == 0 {
		p.header()
		p.tb.row("no message on " + p.queue)
	}
	return p.tb.flush()
}

func (a *app) queueBrowseCommand(f *adminFlags) *cobra.Command {
	var count int
	var from uint64
	var df decodeFlags
	c := &cobra.Command{
		Use:   "browse NAME [--count N] [--from SEQ]",
		Short: "Show a queue's messages without taking them (id, put time, redeliveries, headers, body)",
		Long: "Reads the messages in queue order without locking or removing them. SEQ is a message's\n" +
			"position (the SEQ column); --from starts there. Dead letters carry the headers\n" +
			"dlq.source, dlq.reason and dlq.time. -o json prints bodies in full (base64 when binary).\n" +
			"A body whose queue has a schema (the decode: rules, the flags) shows decoded, or as hex\n" +
			"with its decode error.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if count < 0 {
				return usageErr("--count %d: must not be negative", count)
			}
			set, err := a.adminSchemas(cmd, f, &df)
			if err != nil {
				return err
			}
			return a.withAdmin(cmd, f, func(t *adminTarget) error { return t.queueBrowse(args[0], from, count, set.Queue(args[0])) })
		},
	}
	c.Flags().IntVar(&count, "count", 100, "messages to show at most (0 = all)")
	c.Flags().Uint64Var(&from, "from", 0, "first message position (SEQ) to show")
	df.register(c.Flags())
	return c
}

func (t *adminTarget) queueBrowse(queue string, from uint64, count int, pair schema.Pair) error {
	out := browseJSON{Queue: queue, Messages: []queueMessageJSON{}}
	var msgs []admin.QueueMessage
	for {
		page := 1000
		if count > 0 {
			page = min(page, count-len(msgs))
		}
		b, err := t.qm.BrowseQueue(t.ctx, queue, from, page)
		if err != nil {
			return err
		}
		out.Depth, out.More = b.Depth, b.More
		msgs = append(msgs, b.Messages...)
		from = b.NextSeq(from)
		if !b.More || (count > 0 && len(msgs) >= count) {
			break
		}
	}
	bodies := make([]string, len(msgs))
	for i, m := range msgs {
		j := messageJSON(m, true)
		bodies[i] = bodyPreview(m.Payload, 60)
		j.PayloadDecoded, j.PayloadDecodeError = decodeBody(pair, m.Payload)
		switch {
		case j.PayloadDecoded != nil:
			bodies[i] = sanitize.Truncate(sanitize.Bytes(j.PayloadDecoded), 60)
		case j.PayloadDecodeError != "":
			bodies[i] = sanitize.Truncate("hex:"+hex.EncodeToString(m.Payload[:min(len(m.Payload), 16)])+" decode-error="+strconv.Quote(j.PayloadDecodeError), 60)
		}
		out.Messages = append(out.Messages, j)
	}
	return t.emit(out, func(w *table) {
		head := fmt.Sprintf("queue %s: depth %d, showing %d", queue, out.Depth, len(msgs))
		if out.More {
			head += fmt.Sprintf(" (more follow: --from %d)", from)
		}
		w.row(head)
		w.row("SEQ", "ID", "PUT-TIME", "REDELIV", "IN-FLIGHT", "BYTES", "HEADERS", "BODY")
		for i, m := range msgs {
			hs := make([]string, len(m.Headers))
			for i, h := range m.Headers {
				hs[i] = sanitize.String(h.Key) + "=" + bodyPreview(h.Value, 40)
			}
			hdr := "-"
			if len(hs) > 0 {
				hdr = strings.Join(hs, " ")
			}
			w.row(m.Seq, hex.EncodeToString(m.ID), m.PutTime.UTC().Format("2006-01-02T15:04:05.000Z"), m.Redeliveries, m.InFlight,
				len(m.Payload), hdr, bodies[i])
		}
	})
}

func (a *app) queueMoveBackCommand(f *adminFlags) *cobra.Command {
	var to, planFile string
	var ids []string
	var execute bool
	c := &cobra.Command{
		Use:   "move-back DLQ [--id ID]... [--to QUEUE] [--execute [--plan FILE]]",
		Short: "Plan (or, with --execute, make) the move of dead letters back to their source queue",
		Long: "Without --id every message of DLQ is selected (the first " + strconv.Itoa(admin.MaxMoveIDs) + "; the rest are counted\n" +
			"and stay); each goes back to the queue it was dead-lettered from (its dlq.source header),\n" +
			"or to --to. The plan lists every message with its target or why it is skipped (in flight,\n" +
			"no source); a full target stops the move. Nothing changes unless --execute is given.\n" +
			"A move executes a plan by message id, never \"whatever is in DLQ now\": --execute --plan FILE\n" +
			"moves exactly the messages of a plan saved with -o json (- = stdin); --execute alone plans\n" +
			"and executes that plan at once. The result is read against the plan: planned, moved, the\n" +
			"planned ones that did not move (gone since, locked) and the messages that arrived after the\n" +
			"plan (left in place). Moved messages are appended at the target's tail with their id and a\n" +
			"redelivery count of 0.",
		Example: "  ilinkdash queue move-back ORDERS.DLQ -o json > plan.json\n" +
			"  ilinkdash queue move-back ORDERS.DLQ --execute --plan plan.json\n" +
			"  ilinkdash queue move-back ORDERS.DLQ --id 6f1c2a... --execute",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if planFile != "" && !execute {
				return usageErr("--plan executes a saved plan: add --execute (without it, move-back prints a plan)")
			}
			if planFile != "" && len(ids) > 0 {
				return usageErr("--plan and --id: give one (the plan names its messages)")
			}
			if len(ids) > admin.MaxMoveIDs {
				return usageErr("--id given %d times; at most %d messages per move", len(ids), admin.MaxMoveIDs)
			}
			var raw [][]byte
			for _, s := range ids {
				id, err := hex.DecodeString(strings.TrimSpace(s))
				if err != nil || len(id) == 0 {
					return usageErr("--id %q: want a message id in hex (the ID column of queue browse)", s)
				}
				raw = append(raw, id)
			}
			var saved *admin.MoveResult
			if planFile != "" {
				p, err := readMovePlan(cmd, planFile, args[0], to)
				if err != nil {
					return err
				}
				saved = &p
			}
			t, err := a.openAdmin(cmd, f)
			if err != nil {
				return err
			}
			defer t.close()
			plan := saved
			if plan == nil {
				p, err := t.qm.PlanMoveMessages(t.ctx, args[0], to, raw)
				if err != nil {
					return err
				}
				plan = &p
			}
			out := moveBackJSON{Queue: args[0], To: to, Planned: int64(len(plan.Planned())), NextSeq: plan.NextSeq,
				Moved: plan.Moved, StopReason: plan.StopReason, Moves: movesJSON(plan.Moves), Missed: []moveJSON{}}
			if raw == nil {
				out.Beyond = plan.Unselected
			}
			if execute && out.Planned > 0 {
				sel := plan.Execution()
				res, err := t.qm.MoveMessages(t.ctx, args[0], to, sel.IDs, sel.PlanNext)
				if err != nil {
					return err
				}
				o := res.Against(*plan)
				out.Executed, out.Moved, out.Arrived, out.StopReason = true, o.Moved, o.Arrived, o.StopReason
				out.Moves, out.Missed = movesJSON(res.Moves), movesJSON(o.Missed)
				if out.Beyond > 0 {
					out.Beyond = o.Unplanned
				}
			} else if execute {
				out.Executed = true // nothing to move: nothing was sent
				out.Moved = 0
			}
			return t.emit(out, func(w *table) { printMoves(w, out) })
		},
	}
	c.Flags().StringVar(&to, "to", "", "target queue (default: each message's source queue)")
	c.Flags().StringArrayVar(&ids, "id", nil, "only this message (hex id; repeatable, at most "+strconv.Itoa(admin.MaxMoveIDs)+")")
	c.Flags().BoolVar(&execute, "execute", false, "move (default: only print the plan)")
	c.Flags().StringVar(&planFile, "plan", "", "with --execute: move exactly the messages of this plan (the -o json of a move-back without --execute; - = stdin)")
	return c
}

func movesJSON(ms []admin.MessageMove) []moveJSON {
	out := []moveJSON{}
	for _, m := range ms {
		out = append(out, moveJSON{hex.EncodeToString(m.ID), m.To, m.Skipped})
	}
	return out
}

// readMovePlan reads a plan saved with move-back -o json: its moves not
// skipped are the messages the execution names, its next_seq the mark.
func readMovePlan(cmd *cobra.Command, file, queue, to string) (admin.MoveResult, error) {
	b, err := readPlanFile(cmd, file)
	if err != nil {
		return admin.MoveResult{}, err
	}
	var p moveBackJSON
	if err := json.Unmarshal(b, &p); err != nil {
		return admin.MoveResult{}, usageErr("--plan %s: not a move-back plan (-o json): %v", file, err)
	}
	if miss := missingPlanFields(b, "queue", "to", "next_seq", "moves"); miss != "" {
		return admin.MoveResult{}, usageErr("--plan %s: not a move-back plan (-o json): it has no %s", file, miss)
	}
	switch {
	case p.Executed:
		return admin.MoveResult{}, usageErr("--plan %s: that is the result of an executed move, not a plan", file)
	case p.Queue != queue:
		return admin.MoveResult{}, usageErr("--plan %s: the plan is for %s, not %s", file, sanitize.String(p.Queue), sanitize.String(queue))
	case p.To != to:
		return admin.MoveResult{}, usageErr("--plan %s: the plan moves to %q, not --to %q", file, sanitize.String(p.To), sanitize.String(to))
	}
	plan := admin.MoveResult{NextSeq: p.NextSeq}
	for i, m := range p.Moves {
		id, err := hex.DecodeString(m.ID)
		if err != nil || len(id) == 0 {
			return admin.MoveResult{}, usageErr("--plan %s: move %d: id %q is not hex", file, i+1, sanitize.String(m.ID))
		}
		plan.Moves = append(plan.Moves, admin.MessageMove{ID: id, To: m.To, Skipped: m.Skipped})
		if m.Skipped == "" {
			plan.Moved++
		}
	}
	if plan.Moved > admin.MaxMoveIDs {
		return admin.MoveResult{}, usageErr("--plan %s: %d messages; at most %d per move", file, plan.Moved, admin.MaxMoveIDs)
	}
	return plan, nil
}

// missingPlanFields names the fields of a saved plan b (a JSON object)
// lacks, or null ("" when it has them all): an object that is not a plan
// ({} or another command's JSON) is said as such, not read as a plan for
// queue "".
func missingPlanFields(b []byte, fields ...string) string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(b, &m) // the caller's decode said whether it is an object
	var miss []string
	for _, f := range fields {
		if v, ok := m[f]; !ok || string(v) == "null" {
			miss = append(miss, strconv.Quote(f))
		}
	}
	switch len(miss) {
	case 0:
		return ""
	case 1:
		return miss[0]
	}
	return strings.Join(miss[:len(miss)-1], ", ") + " or " + miss[len(miss)-1]
}

// maxPlanFile bounds a saved plan: 1,000 entries of JSON are far below it.
const maxPlanFile = 16 << 20

// readPlanFile reads a saved plan (--plan FILE, - for stdin), at most
// maxPlanFile bytes: a larger one is refused, not read whole.
func readPlanFile(cmd *cobra.Command, file string) ([]byte, error) {
	var r io.Reader = cmd.InOrStdin()
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, usageErr("--plan: %v", err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxPlanFile+1))
	switch {
	case err != nil:
		return nil, usageErr("--plan: %v", err)
	case len(b) > maxPlanFile:
		return nil, usageErr("--plan %s: more than %d MiB: not a plan", file, maxPlanFile>>20)
	}
	return b, nil
}

func printMoves(w *table, out moveBackJSON) {
	if !out.Executed {
		head := fmt.Sprintf("%s: would move %d of %d messages (nothing changed; add --execute to move)", out.Queue, out.Moved, len(out.Moves))
		w.row(head)
		if out.Beyond > 0 {
			w.row(fmt.Sprintf("%d more messages are beyond this plan's %d and stay (move again after)", out.Beyond, admin.MaxMoveIDs))
		}
	} else {
		head := fmt.Sprintf("%s: %d planned, %d moved", out.Queue, out.Planned, out.Moved)
		if n := len(out.Missed); n > 0 {
			head += fmt.Sprintf("; %d planned did not move", n)
		}
		if out.Arrived > 0 {
			head += fmt.Sprintf("; %d arrived after the plan, left in place", out.Arrived)
		}
		if out.Beyond > 0 {
			head += fmt.Sprintf("; %d beyond the plan left in place", out.Beyond)
		}
		w.row(head)
	}
	if out.StopReason != "" {
		w.row("stopped: " + sanitize.String(out.StopReason))
	}
	w.row("ID", "TO", "SKIPPED")
	for _, m := range out.Moves {
		to, skip := sanitize.String(m.To), sanitize.String(m.Skipped)
		if to == "" {
			to = "-"
		}
		if skip == "" {
			skip = "-"
		}
		w.row(m.ID, to, skip)
	}
}
