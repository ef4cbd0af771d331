package schema

import (
	"errors"
	"unicode/utf8"
)

// A field term on a JSON document (a decoded Avro record, a JSON Schema
// value, a Protobuf one the wire walk cannot judge, the tail's filter) is
// matched by scanning the document's bytes once, without building it:
// encoding/json into map[string]any cost about 3.6 µs of the 5 µs an Avro
// record took to search by field. The scan judges as the decode does —
// an array stands for each of its items, a duplicate key's last value is
// the one, a number is its text as written, a string its unescaped text —
// and gives up (errScanFallback) on what it does not check itself: any
// syntax error, a string with an escape or invalid UTF-8 (valid UTF-8,
// Korean text say, decodes to its own bytes and is judged here). Then
// MatchJSON decodes, so its result and its error are always the decode's.

// errScanFallback: the scan cannot judge this document; decode it.
var errScanFallback = errors.New("schema: scan falls back to decoding")

// fieldScan is the scan of one document for one term.
type fieldScan struct {
	b    []byte
	i    int
	want string
}

// scanMatch is MatchJSON by scanning (see above). Anything but white
// space after the value falls back too: the decoder refuses some of it
// ("1x") and not other ("{}x").
func scanMatch(doc []byte, path []string, want string) (bool, error) {
	s := fieldScan{b: doc, want: want}
	ok, err := s.value(path, 0)
	if err != nil {
		return false, err
	}
	if s.ws(); s.i != len(s.b) {
		return false, errScanFallback
	}
	return ok, nil
}

func (s *fieldScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value scans one value at path's start and says whether the term's value
// is at path in it.
func (s *fieldScan) value(path []string, depth int) (bool, error) {
	if depth > 64 {
		return false, errScanFallback // the decoder has its own nesting limit
	}
	s.ws()
	if s.i >= len(s.b) {
		return false, errScanFallback
	}
	switch s.b[s.i] {
	case '[':
		return s.array(path, depth)
	case '{':
		return s.object(path, depth)
	case '"':
		text, err := s.str()
		return err == nil && len(path) == 0 && string(text) == s.want, err
	}
	lit, err := s.literal()
	return err == nil && len(path) == 0 && string(lit) == s.want, err
}

// array: any item matches (with the same path, as MatchJSON's match).
func (s *fieldScan) array(path []string, depth int) (bool, error) {
	s.i++ // [
	any := false
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return false, nil
	}
	for {
		ok, err := s.value(path, depth+1)
		if err != nil {
			return false, err
		}
		any = any || ok
		if end, err := s.after(']'); err != nil || end {
			return any, err
		}
	}
}

// after reads what follows an item of an array or an object: a comma
// (another item) or its closing byte (end).
func (s *fieldScan) after(closing byte) (end bool, err error) {
	s.ws()
	if s.i >= len(s.b) || (s.b[s.i] != ',' && s.b[s.i] != closing) {
		return false, errScanFallback
	}
	s.i++
	return s.b[s.i-1] == closing, nil
}

// object: the value of path's first name (its last occurrence), or, at
// the path's end, never (an object is no scalar; scalarText's "\x00").
func (s *fieldScan) object(path []string, depth int) (bool, error) {
	s.i++ // {
	found := len(path) == 0 && s.want == "\x00"
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return found, nil
	}
	for {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false, errScanFallback
		}
		key, err := s.str()
		if err != nil {
			return false, err
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false, errScanFallback
		}
		s.i++
		if len(path) > 0 && string(key) == path[0] {
			found, err = s.value(path[1:], depth+1)
		} else {
			_, err = s.value(nil, depth+1) // scanned for its syntax only
		}
		if err != nil {
			return false, err
		}
		if end, err := s.after('}'); err != nil || end {
			return found, err
		}
	}
}

// str reads a string without escapes whose bytes are valid UTF-8: what
// the decode makes of it is those bytes, which compare without a copy.
// Any other falls back (the decode unescapes, and replaces invalid UTF-8,
// its own way).
func (s *fieldScan) str() ([]byte, error) {
	start, high := s.i+1, false
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			if high && !utf8.Valid(s.b[start:j]) {
				return nil, errScanFallback
			}
			s.i = j + 1
			return s.b[start:j], nil
		case c == '\\' || c < 0x20:
			return nil, errScanFallback
		case c >= utf8.RuneSelf:
			high = true
		}
	}
	return nil, errScanFallback
}

// literal reads true, false, null or a number, as written.
func (s *fieldScan) literal() ([]byte, error) {
	start := s.i
	for _, w := range [...]string{"true", "false", "null"} {
		if len(s.b)-start >= len(w) && string(s.b[start:start+len(w)]) == w {
			s.i += len(w)
			return s.b[start:s.i], nil
		}
	}
	if n := jsonNumberLen(s.b[start:]); n > 0 {
		s.i += n
		return s.b[start:s.i], nil
	}
	return nil, errScanFallback
}

// jsonNumberLen is the length of the JSON number at b's start (RFC 8259:
// -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?), 0 if none.
func jsonNumberLen(b []byte) int {
	i := 0
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i, n = i+1, n+1
		}
		return n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return 0
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return 0
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0
		}
	}
	return i
}
