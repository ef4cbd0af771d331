package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// FieldTerm is a field:PATH=VALUE search term: the decoded record has, at
// PATH (names joined by ".", an array standing for each of its items), a
// scalar whose JSON text is VALUE (a string without its quotes; numbers,
// true, false and null as JSON writes them).
type FieldTerm struct {
	Path  []string
	Value string
}

// ParseFieldTerm reads "PATH=VALUE" (the part after "field:").
func ParseFieldTerm(s string) (FieldTerm, error) {
	p, v, ok := strings.Cut(s, "=")
	if !ok {
		return FieldTerm{}, fmt.Errorf("field term %q: want field:PATH=VALUE", s)
	}
	if p == "" {
		return FieldTerm{}, fmt.Errorf("field term %q: the path is empty", s)
	}
	parts := strings.Split(p, ".")
	for _, part := range parts {
		if part == "" {
			return FieldTerm{}, fmt.Errorf("field term %q: empty name in the path %q", s, p)
		}
	}
	return FieldTerm{Path: parts, Value: v}, nil
}

// String is the term as typed.
func (t FieldTerm) String() string { return "field:" + strings.Join(t.Path, ".") + "=" + t.Value }

// MatchJSON reports whether the JSON document doc has the term's value at
// its path.
func (t FieldTerm) MatchJSON(doc []byte) (bool, error) {
	if ok, err := scanMatch(doc, t.Path, t.Value); err == nil {
		return ok, nil
	}
	return t.matchDecoded(doc)
}

// matchDecoded is MatchJSON by decoding the document (fieldscan.go says
// when the scan leaves it to this).
func (t FieldTerm) matchDecoded(doc []byte) (bool, error) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return false, fmt.Errorf("not JSON: %w", err)
	}
	return t.match(v, t.Path), nil
}

func (t FieldTerm) match(v any, path []string) bool {
	if arr, ok := v.([]any); ok {
		for _, item := range arr {
			if t.match(item, path) {
				return true
			}
		}
		return false
	}
	if len(path) == 0 {
		return scalarText(v) == t.Value
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	next, ok := obj[path[0]]
	if !ok {
		return false
	}
	return t.match(next, path[1:])
}

// scalarText is a JSON scalar as the term spells it; "\x00" for an object
// (which no typed value equals).
func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	case nil:
		return "null"
	}
	return "\x00"
}

// Matcher tests a field term against encoded records of one codec.
type Matcher interface {
	Match(encoded []byte) (bool, error)
}

// fieldMatcher is a codec with a faster way than decoding to JSON.
type fieldMatcher interface {
	fieldMatcher(t FieldTerm) (Matcher, error)
}

// NewMatcher is the matcher of t for records c decodes: the codec's own
// when it has one (protobuf walks the wire bytes for the path's field
// numbers), else Decode then MatchJSON.
func NewMatcher(c Codec, t FieldTerm) (Matcher, error) {
	if c == nil {
		return nil, errors.New("a field term needs a schema: no decode rule matches")
	}
	if fm, ok := c.(fieldMatcher); ok {
		return fm.fieldMatcher(t)
	}
	return decodeMatcher{c, t}, nil
}

type decodeMatcher struct {
	c Codec
	t FieldTerm
}

func (m decodeMatcher) Match(b []byte) (bool, error) {
	doc, err := m.c.Decode(b)
	if err != nil {
		return false, err
	}
	return m.t.MatchJSON(doc)
}

// CheckFieldPath says when path names no field of c's records, naming the
// first step that is not there and the fields there are: a mistyped
// --field matched nothing, silently. A codec that cannot tell (JSON
// Schema) accepts every path.
func CheckFieldPath(c Codec, path []string) error {
	pc, ok := c.(interface{ checkPath([]string) error })
	if !ok {
		return nil
	}
	return pc.checkPath(path)
}

// noField is CheckFieldPath's error: in names the message or record.
func noField(in, step string, fields []string) error {
	if len(fields) == 0 {
		return fmt.Errorf("%s has no field %q (it is not a message or record)", in, step)
	}
	return fmt.Errorf("%s has no field %q (its fields: %s)", in, step, strings.Join(fields, ", "))
}
