package queues

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/loadgen/template"
	"ilinkdash/ilink/schema"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/sanitize"
	"ilinkdash/ui/views/tab"
)

// The put dialog (P in a queue's detail). A queue whose decode rule gives
// its values a codec (schema.Set.Queue) gets its bodies as JSON encoded
// with it, after the templates are expanded, as the publish form and
// `queue put` do (issue 25); the dialog's Encode choice "raw" puts the
// text as typed, as the CLI's --raw.

// The put dialog's fields, in order; putEncode is there only when the
// queue has a codec.
const (
	putBody = iota
	putCount
	putHeaders
	putEncode
)

func (v *View) openPut() {
	codec := v.codec(v.qd.name)
	d := &components.Dialog{
		Title:       "Put messages on " + common.S(v.qd.name),
		Body:        []string{"The body is a template: {{seq}} (0, 1, …), {{now}}, {{uuid}}, {{rand N}}. Messages are put in an auto-commit session."},
		SubmitLabel: "put",
		Fields: []*components.Field{
			components.TextField("Body", "", `e.g. {"order":"order-{{seq}}"}`),
			components.TextField("Count", "1", "1.."+common.Thousands(maxQueuePut)),
			components.TextField("Headers", "", "k=v, k2=v2 (or one per line; \\, is a comma); the same on every message"),
		},
	}
	if codec != nil {
		rule := v.Ctx.Schemas.Queue(v.qd.name).Rule
		d.Body = append(d.Body, fmt.Sprintf("Encoded: %s, the queue's decode rule (%s), after the templates are expanded; JSON that does not fit is refused and nothing is put. Encode raw puts the text as typed.",
			tab.EncodedWith(codec), common.S(rule)))
		d.Fields = append(d.Fields, components.ChoiceField("Encode", "with the schema", "raw: the text as typed"))
	}
	v.OpenDialog(d)
	v.qd.flow = queueFlow{stage: qflowPut, codec: codec}
}

// putCodec is what the dialog encodes bodies with: nil for a queue
// without a codec or with Encode set to raw.
func (v *View) putCodec() schema.Codec {
	if f := v.Dlg.Fields; len(f) > putEncode && f[putEncode].Choice != 0 {
		return nil
	}
	return v.qd.flow.codec
}

func (v *View) submitPut() tea.Cmd {
	f := v.Dlg.Fields
	body, err := template.Parse("body", f[putBody].Input.Value())
	if err != nil {
		v.Dlg.Err = err.Error()
		return nil
	}
	n, err := strconv.Atoi(strings.ReplaceAll(f[putCount].Value(), ",", ""))
	if err != nil || n < 1 || n > maxQueuePut {
		v.Dlg.Err = "count: a whole number from 1 to " + common.Thousands(maxQueuePut)
		return nil
	}
	headers, err := admin.ParsePutHeaders(f[putHeaders].Value())
	if err != nil {
		v.Dlg.Err = "headers: " + sanitize.String(err.Error())
		return nil
	}
	codec := v.putCodec()
	busy, encoded := "putting "+common.Plural(n, "message"), ""
	if codec != nil {
		// The first body is checked here, so JSON that does not fit is
		// refused in the dialog; every body is encoded in the command.
		if _, err := tab.EncodeJSON(codec, template.NewExpander().Append(nil, body, 0)); err != nil {
			v.Dlg.Err = "body " + sanitize.Error(err) + "; nothing is put"
			v.Dlg.Focus(putBody)
			return nil
		}
		encoded = codec.Name()
		busy += ", encoded with " + common.S(encoded)
	}
	v.Dlg.Err, v.Dlg.Busy = "", busy+"…"
	src, gen, name := v.src, v.DlgGen, v.qd.name
	return v.Call(func(ctx context.Context) any {
		m := queueActionMsg{verb: "put", name: name, n: n, dlgGen: gen, encoded: encoded}
		bodies, err := putBodies(body, n, codec)
		if err == nil {
			m.sent = true
			m.put, err = src.PutMessages(ctx, name, bodies, headers)
		}
		m.err = err
		return m
	})
}

// putBodies is the n bodies of a put: body expanded for each {{seq}} and,
// with a codec, encoded. A body that does not fit (a template can make a
// later one stop fitting) stops it before anything is put, naming the
// message.
func putBodies(body *template.Template, n int, codec schema.Codec) ([][]byte, error) {
	exp := template.NewExpander()
	bodies := make([][]byte, n)
	var doc []byte
	for i := range bodies {
		if codec == nil {
			bodies[i] = exp.Append(nil, body, int64(i))
			continue
		}
		doc = exp.Append(doc[:0], body, int64(i))
		b, err := tab.EncodeJSON(codec, doc)
		if err != nil {
			return nil, fmt.Errorf("message %d ({{seq}} %d): body %w; nothing was put", i+1, i, err)
		}
		bodies[i] = b
	}
	return bodies, nil
}
