package tail

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"

	"ilinkdash/ilink/schema"
)

// keyText is what the filter matches a key against: its decoded JSON when
// its schema decoded it, else its bytes.
func (e *tailEntry) keyText() []byte {
	if e.kd != nil {
		return e.kd
	}
	return e.k
}

// valueText is keyText for the value.
func (e *tailEntry) valueText() []byte {
	if e.vd != nil {
		return e.vd
	}
	return e.v
}

// needsSchema says why the filter cannot match anything when no decode
// rule gives the tailed records a schema ("" when it can).
func (f *tailFilter) needsSchema(decodes bool) string {
	for _, t := range f.terms {
		if t.field == fField && !decodes {
			return t.ft.String() + ": a field term needs a schema, and no decode rule matches this tail"
		}
	}
	return ""
}

// The tail filter (`/`): space-separated terms, all of which must match.
//
//	TEXT        key or value contains TEXT
//	k:TEXT      key contains TEXT
//	v:TEXT      value contains TEXT
//	h:NAME      has a header NAME (case-insensitive name)
//	h:NAME=TEXT has a header NAME whose value contains TEXT
//	re:EXPR     key or value matches the regular expression (Go syntax)
//	k:re:EXPR   key matches; v:re:EXPR value matches
//	p:N         partition N
//	t:TEXT      topic contains TEXT (pattern tails)
//	field:PATH=VALUE  the decoded value has VALUE at PATH (ilink/schema)
//	!TERM       negates a term
//
// Single quotes keep spaces in a term: v:'payment failed' (double quotes
// are ordinary characters, for JSON: v:"status":"PAID"). Substrings are
// smart-case: all-lowercase text matches case-insensitively (ASCII), text
// with a capital matches exactly. Matching runs on the raw bytes, or, for
// a key or value its schema decoded, on its decoded JSON text (so v: and a
// bare TEXT find what the decoded format shows), once per record when it
// arrives (and once over the buffer when the filter changes), never per
// frame; field: matches the decoded document's fields. Nothing is decoded
// here: the documents came decoded with the records (tail_decode.go).

type termField uint8

const (
	fAny termField = iota
	fKey
	fValue
	fHeader
	fPartition
	fTopic
	fField
)

type filterTerm struct {
	neg   bool
	field termField
	text  []byte
	fold  bool
	re    *regexp.Regexp
	hname string // h: header name ("" = any header)
	hval  bool   // h:NAME=TEXT: text applies to the value
	part  int32
	ft    schema.FieldTerm // field:
}

type tailFilter struct {
	src   string
	terms []filterTerm
}

// FilterHelp is the one-line syntax summary shown under the filter input.
const FilterHelp = "TEXT · k:key · v:value · h:name[=value] · re:regexp · k:re: · v:re: · p:N · t:topic · field:path=value · !negate · 'a b'"

func splitTerms(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inQ, have := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			inQ = !inQ
			have = true
		case r == ' ' && !inQ:
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if inQ {
		return nil, errors.New("unbalanced ' in the filter")
	}
	if have {
		out = append(out, cur.String())
	}
	return out, nil
}

// parseTailFilter parses the filter text; "" gives nil (everything).
func parseTailFilter(s string) (*tailFilter, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	toks, err := splitTerms(s)
	if err != nil {
		return nil, err
	}
	f := &tailFilter{src: s}
	for _, tok := range toks {
		t := filterTerm{}
		if strings.HasPrefix(tok, "!") && len(tok) > 1 {
			t.neg, tok = true, tok[1:]
		}
		rest := tok
		switch {
		case strings.HasPrefix(tok, "k:"):
			t.field, rest = fKey, tok[2:]
		case strings.HasPrefix(tok, "v:"):
			t.field, rest = fValue, tok[2:]
		case strings.HasPrefix(tok, "t:"):
			t.field, rest = fTopic, tok[2:]
		case strings.HasPrefix(tok, "p:"):
			n, err := strconv.ParseInt(tok[2:], 10, 32)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("p: takes a partition number, not %q", tok[2:])
			}
			t.field, t.part = fPartition, int32(n)
			f.terms = append(f.terms, t)
			continue
		case strings.HasPrefix(tok, "field:"):
			ft, err := schema.ParseFieldTerm(tok[len("field:"):])
			if err != nil {
				return nil, err
			}
			t.field, t.ft = fField, ft
			f.terms = append(f.terms, t)
			continue
		case strings.HasPrefix(tok, "h:"):
			t.field = fHeader
			name, val, hasVal := strings.Cut(tok[2:], "=")
			if name == "" && !hasVal {
				return nil, errors.New("h: takes a header name: h:NAME or h:NAME=TEXT")
			}
			t.hname, t.hval = name, hasVal
			t.text, t.fold = smartCase(val)
			f.terms = append(f.terms, t)
			continue
		}
		if expr, ok := strings.CutPrefix(rest, "re:"); ok {
			if t.field == fTopic {
				return nil, errors.New("t: takes text, not a regexp")
			}
			re, err := regexp.Compile(expr)
			if err != nil {
				return nil, fmt.Errorf("bad regexp %q: %v", expr, reErr(err))
			}
			t.re = re
		} else {
			t.text, t.fold = smartCase(rest)
		}
		f.terms = append(f.terms, t)
	}
	return f, nil
}

// reErr shortens regexp's error text ("error parsing regexp: missing
// closing ): `(`" → "missing closing )").
func reErr(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return string(se.Code)
	}
	return err.Error()
}

// smartCase returns the needle and whether to fold ASCII case.
func smartCase(s string) ([]byte, bool) {
	fold := strings.ToLower(s) == s
	return []byte(s), fold
}

func (f *tailFilter) match(e *tailEntry) bool {
	for i := range f.terms {
		if f.terms[i].match(e) == f.terms[i].neg {
			return false
		}
	}
	return true
}

func (t *filterTerm) has(b []byte) bool {
	if t.re != nil {
		return t.re.Match(b)
	}
	return contains(b, t.text, t.fold)
}

func (t *filterTerm) match(e *tailEntry) bool {
	switch t.field {
	case fAny:
		return t.has(e.keyText()) || t.has(e.valueText())
	case fKey:
		return t.has(e.keyText())
	case fValue:
		return t.has(e.valueText())
	case fField:
		if e.vd == nil {
			return false // no schema, or it did not decode
		}
		ok, err := t.ft.MatchJSON(e.vd)
		return err == nil && ok
	case fTopic:
		return contains([]byte(e.topic), t.text, t.fold)
	case fPartition:
		return e.part == t.part
	case fHeader:
		for _, h := range e.hdrs {
			if t.hname != "" && !strings.EqualFold(h.Key, t.hname) {
				continue
			}
			if !t.hval || contains(h.Value, t.text, t.fold) {
				return true
			}
		}
	}
	return false
}

// contains reports whether needle occurs in hay, folding ASCII case when
// fold is set.
func contains(hay, needle []byte, fold bool) bool {
	if len(needle) == 0 {
		return true
	}
	if !fold || !hasLetter(needle) {
		return bytes.Contains(hay, needle)
	}
	lo, up, n := lower(needle[0]), needle[0]&^0x20, len(needle)
	if up < 'A' || up > 'Z' {
		up = lo
	}
	next := func(c byte, from int) int {
		if k := bytes.IndexByte(hay[from:], c); k >= 0 {
			return from + k
		}
		return len(hay)
	}
	nl, nu := -1, -1 // next positions of the two cases, once looked up
	for i := 0; i+n <= len(hay); {
		if nl < i {
			nl = next(lo, i)
		}
		if nu < i {
			nu = next(up, i)
		}
		c := min(nl, nu)
		if c+n > len(hay) {
			return false
		}
		if equalFold(hay[c+1:c+n], needle[1:]) {
			return true
		}
		i = c + 1
	}
	return false
}

func hasLetter(b []byte) bool {
	for _, c := range b {
		if c|0x20 >= 'a' && c|0x20 <= 'z' {
			return true
		}
	}
	return false
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 32
	}
	return c
}

func equalFold(a, b []byte) bool {
	for i := range a {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}
