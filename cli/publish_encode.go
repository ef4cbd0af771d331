package cli

import (
	"bufio"
	"errors"
	"fmt"
	"os"

	"ilinkdash/ilink"
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
		return e.precheckFile(f.file, b, rec)
	}
	b.build(&rec, 0, []byte(f.value))
	if err := e.encode(&rec); err != nil {
		return &exitError{code: 2, err: fmt.Errorf("publish: nothing sent: %w", err)}
	}
	return nil
}

// precheckFile encodes every line of file in a first pass.
func (e *recordEncoder) precheckFile(file string, b *recordBuilder, rec ilink.ProducerRecord) error {
	fh, err := os.Open(file)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 64<<10), wire.DefaultMaxFrame)
	for line := 1; sc.Scan(); line++ {
		b.build(&rec, int64(line-1), sc.Bytes())
		if err := e.encode(&rec); err != nil {
			return &exitError{code: 2, err: fmt.Errorf("publish: nothing sent: --file %s line %d: %w", file, line, err)}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &exitError{code: 2, err: fmt.Errorf("publish: nothing sent: --file %s: a line longer than %d bytes", file, wire.DefaultMaxFrame)}
		}
		return fmt.Errorf("--file %s: %w", file, err)
	}
	return nil
}
