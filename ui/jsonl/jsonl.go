// Package jsonl is the one JSON lines format of records: what `ilinkdash
// tail --format json` and `search -o json` print, what the dashboard's
// tail saves, and what `publish --from-jsonl` replays. One object per
// record, one record per line, fields in this order:
//
//		{"topic":"ORDER.EVENT","partition":3,"offset":1234,
//		 "timestamp":"2026-11-30T10:00:00.123Z",
//		 "key":"order-1","value":"{\"id\":1}",
//		 "headers":[{"key":"trace-id","value":"abc"}]}
//
//	  - timestamp: RFC 3339 in UTC with up to nanoseconds, trailing zeros
//	    trimmed (time.RFC3339Nano), exactly as encoding/json would print
//	    Timestamp.UTC().Format(time.RFC3339Nano).
//	  - key, value, header values: the bytes as a JSON string when they are
//	    valid UTF-8; otherwise base64 (standard, padded) with a sibling
//	    "key_encoding" / "value_encoding" set to "base64" (after the field).
//	    A null key, value or header value is JSON null.
//	  - headers: always an array, [] when there is none.
//
// Strings are escaped as encoding/json.Marshal escapes them (\", \\, \n,
// \r, \t, \b, \f, other C0 controls as \u00xx, <, > and & as \u003c,
// \u003e, \u0026, U+2028/U+2029), and, so that the output is safe to print
// on a terminal (`cat` of a saved file cannot move the cursor, retitle the
// window or reorder text), DEL, C1 controls and every character the
// sanitizer escapes (Unicode format characters such as bidi overrides and
// zero-width characters, tag characters, U+FE0E/U+FE0F) as \uxxxx
// (surrogate pairs above U+FFFF). It decodes to the exact bytes.
//
// The escaping uses the terminal sanitizer's rule of which characters are
// shown escaped (ui/sanitize.Escaped), so there is one list of them. The
// format is the dashboard's and the CLI's; no client package uses it.
package jsonl

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"ilinkdash/ui/sanitize"
)

// Header is one record header (an iLink record property).
type Header struct {
	Key   string
	Value []byte // nil = a header without a value
}

// Record is one record of the format.
type Record struct {
	Topic     string
	Partition int32
	Offset    int64
	Timestamp time.Time // zero = none
	Key       []byte    // nil = null key
	Value     []byte    // nil = null value (tombstone)
	Headers   []Header
	// The decoded forms, set when a schema matched the record's topic or
	// queue (package ilink/schema): the key's and the value's JSON
	// documents, or why one did not decode (then its Decoded is nil).
	// They are written after the raw field ("value_decoded",
	// "value_decode_error") and ignored by Parse: the raw bytes are the
	// record, so a saved file re-publishes exactly.
	KeyDecoded, ValueDecoded []byte
	KeyError, ValueError     string
}

// Append appends r as one JSON object and a newline to dst.
func Append(dst []byte, r *Record) []byte {
	dst = append(dst, `{"topic":`...)
	dst = AppendString(dst, r.Topic)
	dst = append(dst, `,"partition":`...)
	dst = strconv.AppendInt(dst, int64(r.Partition), 10)
	dst = append(dst, `,"offset":`...)
	dst = strconv.AppendInt(dst, r.Offset, 10)
	dst = append(dst, `,"timestamp":"`...)
	dst = r.Timestamp.UTC().AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, '"')
	dst = appendJSONBytes(dst, "key", r.Key)
	dst = appendDecoded(dst, "key", r.KeyDecoded, r.KeyError)
	dst = appendJSONBytes(dst, "value", r.Value)
	dst = appendDecoded(dst, "value", r.ValueDecoded, r.ValueError)
	dst = append(dst, `,"headers":[`...)
	for i, h := range r.Headers {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"key":`...)
		dst = AppendString(dst, h.Key)
		dst = appendJSONBytes(dst, "value", h.Value)
		dst = append(dst, '}')
	}
	return append(dst, "]}\n"...)
}

// appendDecoded appends `,"name_decoded":DOC` or
// `,"name_decode_error":"why"`, nothing when neither is set. A document
// that is not valid JSON (a codec's bug) is written as its error.
func appendDecoded(dst []byte, name string, doc []byte, why string) []byte {
	if doc != nil {
		out, err := AppendJSON(append(append(append(dst, `,"`...), name...), `_decoded":`...), doc)
		if err == nil {
			return out
		}
		why = "decoded form is not JSON: " + err.Error()
	}
	if why == "" {
		return dst
	}
	dst = append(append(append(dst, `,"`...), name...), `_decode_error":`...)
	return AppendString(dst, why)
}

// AppendJSON appends the JSON document doc compacted, its strings
// escaped as AppendString escapes them, so a decoded record is as safe on
// a terminal as the rest of the line. Numbers are kept as written.
func AppendJSON(dst []byte, doc []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	// Per open container: whether it is an object, and how many tokens
	// it has had (in an object even ones are keys).
	type level struct {
		object bool
		n      int
	}
	var stack []level
	start := len(dst)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if len(stack) > 0 || len(dst) == start {
				return dst[:start], errors.New("unexpected end of JSON")
			}
			return dst, nil
		}
		if err != nil {
			return dst[:start], err
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			dst = append(dst, byte(d))
			continue
		}
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			switch {
			case top.object && top.n%2 == 1:
				dst = append(dst, ':')
			case top.n > 0:
				dst = append(dst, ',')
			}
			top.n++
		} else if len(dst) > start {
			return dst[:start], errors.New("more than one JSON value")
		}
		switch v := tok.(type) {
		case json.Delim:
			stack = append(stack, level{object: v == '{'})
			dst = append(dst, byte(v))
		case string:
			dst = AppendString(dst, v)
		case json.Number:
			dst = append(dst, v...)
		case bool:
			dst = strconv.AppendBool(dst, v)
		case nil:
			dst = append(dst, "null"...)
		}
	}
}

// appendJSONBytes appends `,"name":…` (and `,"name_encoding":"base64"`).
func appendJSONBytes(dst []byte, name string, b []byte) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	switch {
	case b == nil:
		return append(dst, "null"...)
	case utf8.Valid(b):
		return AppendString(dst, string(b))
	}
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	dst = append(dst, `","`...)
	dst = append(dst, name...)
	return append(dst, `_encoding":"base64"`...)
}

// AppendString appends s as a JSON string escaped as described above
// (invalid UTF-8 becomes \ufffd, as with encoding/json; callers pass
// valid text).
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default: // other C0 controls, DEL, < > &
				dst = sanitize.AppendJSONEscape(dst, rune(c))
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case sanitize.Escaped(r):
			dst = append(dst, s[start:i]...)
			dst = sanitize.AppendJSONEscape(dst, r)
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// jsonRecord is the decoding shape of one line.
type jsonRecord struct {
	Topic         *string      `json:"topic"`
	Partition     int32        `json:"partition"`
	Offset        int64        `json:"offset"`
	Timestamp     *string      `json:"timestamp"`
	Key           *string      `json:"key"`
	KeyEncoding   string       `json:"key_encoding"`
	Value         *string      `json:"value"`
	ValueEncoding string       `json:"value_encoding"`
	Headers       []jsonHeader `json:"headers"`
}

type jsonHeader struct {
	Key           string  `json:"key"`
	Value         *string `json:"value"`
	ValueEncoding string  `json:"value_encoding"`
}

// Parse decodes one line of the format.
func Parse(line []byte) (Record, error) {
	var j jsonRecord
	if err := json.Unmarshal(line, &j); err != nil {
		return Record{}, err
	}
	if j.Topic == nil {
		return Record{}, errors.New("record without a topic")
	}
	r := Record{Topic: *j.Topic, Partition: j.Partition, Offset: j.Offset}
	if j.Timestamp != nil {
		t, err := time.Parse(time.RFC3339Nano, *j.Timestamp)
		if err != nil {
			return Record{}, fmt.Errorf("timestamp: %w", err)
		}
		if !t.Equal(time.Time{}) {
			r.Timestamp = t
		}
	}
	var err error
	if r.Key, err = decodeField("key", j.Key, j.KeyEncoding); err != nil {
		return Record{}, err
	}
	if r.Value, err = decodeField("value", j.Value, j.ValueEncoding); err != nil {
		return Record{}, err
	}
	for _, h := range j.Headers {
		v, err := decodeField("header "+h.Key, h.Value, h.ValueEncoding)
		if err != nil {
			return Record{}, err
		}
		r.Headers = append(r.Headers, Header{Key: h.Key, Value: v})
	}
	return r, nil
}

func decodeField(name string, s *string, enc string) ([]byte, error) {
	if s == nil {
		return nil, nil
	}
	switch enc {
	case "":
		return []byte(*s), nil
	case "base64":
		b, err := base64.StdEncoding.DecodeString(*s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("%s: unknown encoding %q", name, enc)
}

// MaxLine bounds one line a Reader accepts (a record of up to the frame
// cap, base64-encoded, fits).
const MaxLine = 256 << 20

// Reader reads records line by line; blank lines are skipped. Errors name
// the line.
type Reader struct {
	sc   *bufio.Scanner
	line int
}

// NewReader reads the format from r.
func NewReader(r io.Reader) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	return &Reader{sc: sc}
}

// Line is the number of the line Next read last (1-based).
func (r *Reader) Line() int { return r.line }

// Next returns the next record, or io.EOF after the last one.
func (r *Reader) Next() (Record, error) {
	for r.sc.Scan() {
		r.line++
		b := r.sc.Bytes()
		if len(trimSpace(b)) == 0 {
			continue
		}
		rec, err := Parse(b)
		if err != nil {
			return Record{}, fmt.Errorf("line %d: %w", r.line, err)
		}
		return rec, nil
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return Record{}, fmt.Errorf("line %d: longer than %d bytes", r.line+1, MaxLine)
		}
		return Record{}, err
	}
	return Record{}, io.EOF
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
