package cli

import (
	"bufio"
	"errors"
	"fmt"

	"ilinkdash/ilink"
	"ilinkdash/ilink/loadgen/template"
	"ilinkdash/ilink/schema"
	"ilinkdash/ilink/wire"
)

// recordEncoder encodes the JSON of publish's keys and values with the
// schemas matching the topic (the flags', the context's decode: rules or
// the demo's), so an operator types JSON and the topic gets what its
// readers decode. A side without a codec is sent as it is.
type recordEncoder struct {
	pair schema.Pair
}

// publishEncoder is the encoder of a publish to topic, nil when nothing
// is to be encoded: no schema matches, --raw, or --from-jsonl (saved
// records are their bytes already). It refuses --size on a topic with a
// value schema: generated filler would not decode there.
func publishEncoder(set *schema.Set, topic string, f publishFlags) (*recordEncoder, error) {
	pair := set.Topic(topic)
	if !pair.Decodes() || f.raw || f.fromJSONL != "" {
		return nil, nil
	}
	if f.size > 0 && pair.Value.Codec != nil {
		return nil, usageErr("--size generates raw values, but %s is encoded as %s (%s): give --value JSON (a template), or --raw to send raw bytes anyway",
			topic, pair.Value.Codec.Name(), pair.Rule)
	}
	return &recordEncoder{pair: pair}, nil
}

// encode replaces rec's key and value (JSON) by their encoded bytes. The
// error names the side and, through the codec, the field that does not
// fit.
func (e *recordEncoder) encode(rec *ilink.ProducerRecord) error {
	if c := e.pair.Key.Codec; c != nil && rec.Key != nil {
		b, err := c.Encode(rec.Key)
		if err != nil {
			return fmt.Errorf("key: %w", err)
		}
		rec.Key = b
	}
	if c := e.pair.Value.Codec; c != nil && rec.Value != nil {
		b, err := c.Encode(rec.Value)
		if err != nil {
			return fmt.Errorf("value: %w", err)
		}
		rec.Value = b
	}
	return nil
}

// precheck encodes what the first record will be before anything
// connects, so JSON that does not fit the schema is refused with nothing
// sent: the --value and --key templates expanded for record 0, or every
// line of a --file that is a file (stdin is checked line by line as it is
// read, the run stopping at the first line that does not fit).
func (e *recordEncoder) precheck(f publishFlags, b *recordBuilder, rec ilink.ProducerRecord) error {
	if f.file != "" {
		if f.file == "-" {
			return nil
		}
		return e.precheckFile(f.file, f.count, b, rec)
	}
	b.build(&rec, 0, []byte(f.value))
	if err := e.encode(&rec); err != nil {
		return &exitError{code: 2, err: fmt.Errorf("publish: nothing sent: %w", err)}
	}
	return nil
}

// precheckFile encodes the lines of file the run will send (the first
// count, 0 = every one) in a first pass.
func (e *recordEncoder) precheckFile(file string, count int, b *recordBuilder, rec ilink.ProducerRecord) error {
	return eachLine(file, count, func(line int, text []byte) error {
		b.build(&rec, int64(line-1), text)
		if err := e.encode(&rec); err != nil {
			return &exitError{code: 2, err: fmt.Errorf("publish: nothing sent: --file %s line %d: %w", file, line, err)}
		}
		return nil
	})
}

// eachLine calls fn with the first limit lines of file (0 = every line;
// numbered from 1), stopping at its first error; a line longer than a
// frame is an error (exit 2).
func eachLine(file string, limit int, fn func(line int, text []byte) error) error {
	fh, err := openInputFile("--file", file)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 64<<10), wire.DefaultMaxFrame)
	for line := 1; (limit == 0 || line <= limit) && sc.Scan(); line++ {
		if err := fn(line, sc.Bytes()); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &exitError{code: 2, err: fmt.Errorf("--file %s: a line longer than %d bytes; nothing was sent", file, wire.DefaultMaxFrame)}
		}
		return fmt.Errorf("--file %s: %w", file, err)
	}
	return nil
}

// queueCodec is what queue put encodes bodies with: the value schema of
// the queue's rule (the flags', the context's decode: rules or the
// demo's), as publish encodes a topic's values; nil with --raw or when no
// rule gives the queue a value codec.
func queueCodec(set *schema.Set, queue string, raw bool) schema.Codec {
	if raw {
		return nil
	}
	return set.Queue(queue).Value.Codec
}

// precheckBodies encodes what queue put will put before the queue is
// opened, so JSON that does not fit is refused with nothing put: the
// --value template expanded for message 0, or every line of a --file
// that is a file, up to count (stdin is checked message by message as it
// is read).
func precheckBodies(c schema.Codec, tmpl *template.Template, file string, count int) error {
	refuse := func(where string, err error) error {
		return &exitError{code: 2, err: fmt.Errorf("queue put: nothing put: %svalue: %w", where, err)}
	}
	if tmpl != nil {
		if _, err := c.Encode(template.NewExpander().Append(nil, tmpl, 0)); err != nil {
			return refuse("", err)
		}
		return nil
	}
	if file == "" || file == "-" {
		return nil
	}
	return eachLine(file, count, func(line int, text []byte) error {
		if _, err := c.Encode(text); err != nil {
			return refuse(fmt.Sprintf("--file %s line %d: ", file, line), err)
		}
		return nil
	})
}
