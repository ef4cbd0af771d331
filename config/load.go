package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Load reads the config file at path. An empty path means DefaultPath(),
// and only then is a missing file not an error: it yields an empty File
// with Exists false. A missing file that was named explicitly is an error
// wrapping fs.ErrNotExist.
//
// Every problem in the file is reported, not just the first, as
// *FieldError values joined with errors.Join.
func Load(path string) (*File, error) {
	if path == "" {
		return LoadDefault(os.Getenv)
	}
	return load(path, true)
}

// LoadDefault is Load("") with the default path as getenv reads the
// environment.
func LoadDefault(getenv func(string) string) (*File, error) {
	return load(defaultPath(getenv), false)
}

// load reads path; explicit says whether a missing file is an error.
func load(path string, explicit bool) (*File, error) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !explicit:
		return &File{Path: path, Serve: DefaultServe()}, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("config file %s: %w", path, fs.ErrNotExist)
	case err != nil:
		return nil, fmt.Errorf("read config file: %w", err)
	}
	return Parse(path, data)
}

// Parse decodes config file contents. name is used in error messages and as
// the base of a relative endpoint-cache-file; it is not opened.
func Parse(name string, data []byte) (*File, error) {
	f := &File{Path: name, Exists: true, Serve: DefaultServe()}
	d := &decoder{file: name, dir: filepath.Dir(name)}

	root, err := d.document(data)
	if err != nil {
		return nil, err
	}
	if root == nil { // empty file, or comments only
		return f, nil
	}

	var current *yaml.Node
	d.object(root, "", []field{
		{"current-context", func(v *yaml.Node, path string) {
			if s, ok := d.str(v, path); ok {
				f.CurrentContext, current = s, v
			}
		}},
		{"contexts", func(v *yaml.Node, path string) {
			f.Contexts = d.contexts(v, path)
		}},
		{"serve", func(v *yaml.Node, path string) { d.serve(v, path, &f.Serve) }},
	})
	// Checked after all contexts are read because current-context usually
	// comes first in the file. Contexts with bad fields are still listed, so
	// this does not add a second error for them.
	if f.CurrentContext != "" {
		if _, ok := f.Lookup(f.CurrentContext); !ok {
			d.errorf(current, "current-context", "context %q is not defined %s", f.CurrentContext, knownNames(f.Names()))
		}
	}

	if len(d.errs) > 0 {
		slices.SortStableFunc(d.errs, func(a, b *FieldError) int {
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
		})
		errs := make([]error, len(d.errs))
		for i, e := range d.errs {
			errs[i] = e
		}
		return nil, errors.Join(errs...)
	}
	return f, nil
}

// knownNames renders the defined context names for "unknown context" errors.
func knownNames(names []string) string {
	if len(names) == 0 {
		return "(no contexts are defined)"
	}
	return "(known: " + strings.Join(names, ", ") + ")"
}

// decoder walks a yaml.Node tree. It collects errors instead of stopping at
// the first, so that one run shows the user everything to fix.
type decoder struct {
	file string
	dir  string // directory of file, base of relative paths
	errs []*FieldError
}

func (d *decoder) errorf(n *yaml.Node, path, format string, args ...any) {
	e := &FieldError{File: d.file, Field: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	d.errs = append(d.errs, e)
}

// document parses data and returns its root node, or nil for an empty
// document. Syntax errors are returned as *FieldError carrying the line.
func (d *decoder) document(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, d.syntaxError(err, data)
	}
	// A second document would otherwise be silently ignored. An empty one
	// (a trailing "---") is harmless.
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil && len(extra.Content) > 0 && !isNull(extra.Content[0]):
		return nil, &FieldError{File: d.file, Line: extra.Content[0].Line, Column: extra.Content[0].Column,
			Msg: "only one YAML document is allowed"}
	case err != nil && !errors.Is(err, io.EOF):
		return nil, d.syntaxError(err, data)
	}
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return nil, nil
		}
		return doc.Content[0], nil
	}
	return &doc, nil
}

// syntaxError turns a yaml syntax error into a positioned error.
//
// yaml has no structured syntax error, and the "line N" in its text needs
// care: scanner errors give a 1-based line, parser errors a 0-based one,
// and both leave the line out when it is the first (0-based line 0).
func (d *decoder) syntaxError(err error, data []byte) *FieldError {
	text, line := splitYAMLError(err)
	e := &FieldError{File: d.file, Line: line, Msg: "syntax error: " + text}
	if isParserProblem(text) {
		e.Line++
		// The parser names the line where the enclosing block began (the
		// mapping's first key), not the problem's: an indentation slip
		// on line 200 read as line 3. The shortest failing prefix ends on
		// the problem's line.
		if e.Line > 0 {
			e.Line = max(e.Line, problemLine(data, text, e.Line))
		}
	}
	if e.Line > 0 {
		return e
	}
	// No line: either a scanner/parser error on line 1, which re-parsing
	// behind an extra newline reveals by then having a line, or an error
	// raised outside the parser, whose position has to be found.
	if shifted := decodeAll(append([]byte("\n"), data...)); shifted != nil {
		if text2, line2 := splitYAMLError(shifted); line2 > 0 && text2 == text {
			e.Line = 1
			return e
		}
	}
	if name, ok := strings.CutPrefix(text, "unknown anchor '"); ok {
		e.Line = lineOf(data, "*"+strings.TrimSuffix(name, "' referenced"))
	} else if strings.Contains(text, "UTF-8") || strings.Contains(text, "control characters") || strings.Contains(text, "Unicode") {
		e.Line, e.Column = badCharPos(data)
	}
	return e
}

// problemLine is the first line, from line from on, at which the lines
// of data up to it fail to parse with the problem text (0: none does).
// A prefix that fails goes on failing as lines are added (the parser
// stops where it fails), so the line is searched by halves.
func problemLine(data []byte, text string, from int) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	fails := func(n int) bool { // the first n lines fail with text
		end := 0
		for _, l := range lines[:n] {
			end += len(l)
		}
		err := decodeAll(data[:end])
		if err == nil {
			return false
		}
		t, _ := splitYAMLError(err)
		return t == text
	}
	if from < 1 || from > len(lines) || !fails(len(lines)) {
		return 0
	}
	lo, hi := from, len(lines) // fails(hi)
	for lo < hi {
		if mid := (lo + hi) / 2; fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// decodeAll decodes every document of data and returns the first error.
func decodeAll(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// splitYAMLError splits "yaml: line N: text" into text and N (0 if absent).
func splitYAMLError(err error) (string, int) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, text, ok := strings.Cut(rest, ": "); ok {
			if line, err := strconv.Atoi(num); err == nil {
				return text, line
			}
		}
	}
	return msg, 0
}

// isParserProblem reports whether msg is raised by yaml's parser (as
// opposed to its scanner); the list is the parser's complete set of
// problem texts in go.yaml.in/yaml/v3.
func isParserProblem(msg string) bool {
	switch msg {
	case "did not find expected ',' or ']'",
		"did not find expected ',' or '}'",
		"did not find expected '-' indicator",
		"did not find expected <document start>",
		"did not find expected <stream-start>",
		"did not find expected key",
		"did not find expected node content",
		"found duplicate %TAG directive",
		"found duplicate %YAML directive",
		"found incompatible YAML document",
		"found undefined tag handle":
		return true
	}
	return false
}

// lineOf returns the 1-based line of the first occurrence of s, or 0.
func lineOf(data []byte, s string) int {
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return 0
	}
	return bytes.Count(data[:i], []byte("\n")) + 1
}

// badCharPos returns the position of the first byte yaml's reader rejects:
// invalid UTF-8 or a control character other than tab, CR and LF.
func badCharPos(data []byte) (line, col int) {
	line, col = 1, 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size == 1 || r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f {
			return line, col
		}
		if r == '\n' {
			line, col = line+1, 0
		}
		col++
		data = data[size:]
	}
	return 0, 0
}

// field describes one known key of a mapping and how to store its value.
type field struct {
	name string
	set  func(v *yaml.Node, path string) // v is never null nor an alias
}

// object decodes mapping n against fields. Null values count as unset, so
// "admin:" with nothing after it keeps the default.
func (d *decoder) object(n *yaml.Node, path string, fields []field) {
	n = deref(n)
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "expected a mapping, got %s", describe(n))
		return
	}
	for _, p := range d.pairs(n, path) {
		key := p.key.Value
		i := slices.IndexFunc(fields, func(f field) bool { return f.name == key })
		if i < 0 {
			d.unknownField(p.key, path, fields)
			continue
		}
		if v := deref(p.val); !isNull(v) {
			fields[i].set(v, child(path, key))
		}
	}
}

func (d *decoder) unknownField(key *yaml.Node, path string, fields []field) {
	names := fieldNames(fields)
	msg := "unknown field"
	if s := suggest(key.Value, names); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	} else if path == "" && slices.Contains(fieldNames(d.contextFields(&Context{})), key.Value) {
		// A common slip: context settings written at the top level.
		msg += "; context settings belong under contexts.<name>"
	} else {
		msg += " (known fields: " + strings.Join(names, ", ") + ")"
	}
	d.errorf(key, child(path, key.Value), "%s", msg)
}

func fieldNames(fields []field) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return names
}

// pair is one key/value entry of a mapping.
type pair struct{ key, val *yaml.Node }

// pairs returns the entries of mapping n in order, reporting non-scalar and
// duplicate keys, and expanding YAML merge keys ("<<: *base") so that users
// can share settings between contexts through anchors. Explicit keys win
// over merged ones, and earlier merge sources over later ones, as the YAML
// merge key spec says.
func (d *decoder) pairs(n *yaml.Node, path string) []pair {
	var out, merged []pair
	first := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Value == "<<" && k.ShortTag() == "!!merge" {
			merged = append(merged, d.mergeSources(v, path)...)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, path, "keys must be plain strings, got %s", describe(k))
			continue
		}
		if prev, dup := first[k.Value]; dup {
			d.errorf(k, child(path, k.Value), "defined twice (first at line %d)", prev.Line)
			continue
		}
		first[k.Value] = k
		out = append(out, pair{k, v})
	}
	for _, p := range merged {
		if _, set := first[p.key.Value]; !set {
			first[p.key.Value] = p.key
			out = append(out, p)
		}
	}
	return out
}

func (d *decoder) mergeSources(v *yaml.Node, path string) []pair {
	v = deref(v)
	switch v.Kind {
	case yaml.MappingNode:
		return d.pairs(v, path)
	case yaml.SequenceNode:
		var out []pair
		for _, s := range v.Content {
			if s = deref(s); s.Kind != yaml.MappingNode {
				d.errorf(s, path, "merge key (<<) list items must be mappings, got %s", describe(s))
				continue
			}
			out = append(out, d.pairs(s, path)...)
		}
		return out
	}
	d.errorf(v, path, "merge key (<<) needs a mapping or a list of mappings, got %s", describe(v))
	return nil
}

func (d *decoder) contexts(n *yaml.Node, path string) []Context {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "expected a mapping of context name to settings, got %s", describe(n))
		return nil
	}
	var out []Context
	for _, p := range d.pairs(n, path) {
		name := p.key.Value
		if strings.TrimSpace(name) == "" || p.key.ShortTag() == "!!null" {
			d.errorf(p.key, path, "context name must not be empty")
			continue
		}
		out = append(out, d.context(name, p.val, child(path, name)))
	}
	return out
}

// context decodes one context. It always returns the context, even with
// errors, so later checks (current-context) still see its name.
func (d *decoder) context(name string, n *yaml.Node, path string) Context {
	c := DefaultContext()
	c.Name = name
	before := len(d.errs)
	d.object(n, path, d.contextFields(&c))
	if len(d.errs) == before { // one error per mistake: a bad hub key is reported alone
		d.checkHub(n, path, &c)
	}
	return c
}

// checkHub checks the hub keys together: a hub context names one spoke
// (spoke or spoke-key) or all of them (spokes: all), and has no admin or
// addresses of its own, since a spoke is reached through its hub only.
func (d *decoder) checkHub(n *yaml.Node, path string, c *Context) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return
	}
	at := func(key string) *yaml.Node {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i]
			}
		}
		return n
	}
	switch {
	case c.Hub == "" && c.Spoke != "":
		d.errorf(at("spoke"), child(path, "spoke"), "needs hub: HOST:PORT (the hub the spoke is reached through)")
	case c.Hub == "" && c.SpokeKey != "":
		d.errorf(at("spoke-key"), child(path, "spoke-key"), "needs hub: HOST:PORT (the hub the spoke is reached through)")
	case c.Hub == "" && c.AllSpokes:
		d.errorf(at("spokes"), child(path, "spokes"), "needs hub: HOST:PORT (the hub whose spokes to list)")
	case c.Hub == "":
	case c.Spoke != "" && c.SpokeKey != "":
		d.errorf(at("spoke-key"), child(path, "spoke-key"), "spoke and spoke-key are exclusive: name the spoke one way")
	case c.AllSpokes && (c.Spoke != "" || c.SpokeKey != ""):
		d.errorf(at("spokes"), child(path, "spokes"), "spokes: all watches every spoke; leave out spoke and spoke-key")
	case !c.AllSpokes && c.Spoke == "" && c.SpokeKey == "":
		d.errorf(at("hub"), child(path, "hub"), "needs spoke: NAME, spoke-key: KEY or spokes: all")
	case c.Admin != "":
		d.errorf(at("admin"), child(path, "admin"), "a hub context reaches its spokes through the hub only; leave out admin")
	case len(c.Addresses) > 0:
		d.errorf(at("addresses"), child(path, "addresses"), "a hub context reaches its spokes through the hub only; leave out addresses")
	}
}

// contextFields describes the keys of a context, storing into c.
func (d *decoder) contextFields(c *Context) []field {
	return []field{
		{"addresses", func(v *yaml.Node, path string) { c.Addresses = d.addresses(v, path) }},
		{"admin", func(v *yaml.Node, path string) {
			if s, ok := d.str(v, path); ok {
				if err := checkHostPort(s); err != nil {
					d.errorf(v, path, "%v", err)
				}
				c.Admin = s
			}
		}},
		{"hub", func(v *yaml.Node, path string) {
			if s, ok := d.str(v, path); ok {
				if err := checkHostPort(s); err != nil {
					d.errorf(v, path, "%v", err)
				}
				c.Hub = s
			}
		}},
		d.checkedField("spoke", checkSpokeString, &c.Spoke),
		d.checkedField("spoke-key", checkSpokeString, &c.SpokeKey),
		{"spokes", func(v *yaml.Node, path string) {
			if s, ok := d.str(v, path); ok {
				if s != "all" {
					d.errorf(v, path, "unknown value %q (want all; name one spoke with spoke: NAME)", s)
					return
				}
				c.AllSpokes = true
			}
		}},
		{"queue-manager", func(v *yaml.Node, path string) {
			if s, ok := d.str(v, path); ok {
				c.QueueManager = s
			}
		}},
		{"client-name", func(v *yaml.Node, path string) {
			if s, ok := d.str(v, path); ok {
				if s == "" {
					d.errorf(v, path, "must not be empty (leave the field out for %q)", DefaultClientName)
					return
				}
				c.ClientName = s
			}
		}},
		d.pathField("endpoint-cache-file", &c.EndpointCacheFile),
		d.boolField("read-only", &c.ReadOnly),
		{"refresh", func(v *yaml.Node, path string) { d.refresh(v, path, &c.Refresh) }},
		{"health", func(v *yaml.Node, path string) { d.health(v, path, &c.Health) }},
		{"decode", func(v *yaml.Node, path string) { c.Decode = d.decodeRules(v, path) }},
		{"theme", func(v *yaml.Node, path string) {
			if s, ok := d.str(v, path); ok {
				switch s {
				case ThemeAuto, ThemeDark, ThemeLight:
					c.Theme = s
				default:
					d.errorf(v, path, "unknown theme %q (want %s, %s or %s)", s, ThemeAuto, ThemeDark, ThemeLight)
				}
			}
		}},
		{"tail-buffer", func(v *yaml.Node, path string) {
			d.intIn(v, path, MinTailBuffer, MaxTailBuffer, "", &c.TailBuffer)
		}},
		{"tail-buffer-bytes", func(v *yaml.Node, path string) {
			d.size(v, path, MinTailBufferBytes, MaxTailBufferBytes, &c.TailBufferBytes)
		}},
		d.boolField("low-bandwidth", &c.LowBandwidth),
		{"fps", func(v *yaml.Node, path string) {
			d.intIn(v, path, MinFPS, MaxFPS, " frames per second", &c.FPS)
		}},
	}
}

func (d *decoder) refresh(n *yaml.Node, path string, r *Refresh) {
	d.object(n, path, []field{
		d.durationField("overview", &r.Overview),
		d.durationField("topics", &r.Topics),
		d.durationField("groups", &r.Groups),
		d.durationField("cluster", &r.Cluster),
		d.durationField("queues", &r.Queues),
		d.durationField("replication", &r.Replication),
	})
}

func (d *decoder) health(n *yaml.Node, path string, h *Health) {
	count := func(name string, dst *int64) field {
		return field{name, func(v *yaml.Node, path string) {
			var i int64
			if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" || v.Decode(&i) != nil {
				d.errorf(v, path, "expected a whole number of records, got %s", describe(v))
				return
			}
			if i < 0 {
				d.errorf(v, path, "must not be negative, got %d (0 turns it off)", i)
				return
			}
			*dst = i
		}}
	}
	crit := deref(n)
	d.object(n, path, []field{
		d.durationField("window", &h.Window),
		d.durationField("stall-after", &h.StallAfter),
		count("max-lag-warning", &h.MaxLagWarning),
		count("max-lag-critical", &h.MaxLagCritical),
		count("queue-depth", &h.QueueDepth),
		d.durationField("dlq-window", &h.DLQWindow),
	})
	if h.MaxLagCritical > 0 && h.MaxLagCritical < h.MaxLagWarning {
		// Point at the critical value when it was written, else at the block.
		at, p := crit, path
		if crit != nil && crit.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(crit.Content); i += 2 {
				if crit.Content[i].Value == "max-lag-critical" {
					at, p = crit.Content[i+1], path+".max-lag-critical"
				}
			}
		}
		d.errorf(at, p, "max-lag-critical %d is below max-lag-warning %d (0 turns it off)", h.MaxLagCritical, h.MaxLagWarning)
	}
}

func (d *decoder) addresses(n *yaml.Node, path string) []string {
	if n.Kind != yaml.SequenceNode {
		hint := ""
		if n.Kind == yaml.ScalarNode {
			hint = fmt.Sprintf(" (write a list: [%s])", n.Value)
		}
		d.errorf(n, path, "expected a list of host:port addresses, got %s%s", describe(n), hint)
		return nil
	}
	var out []string
	for i, item := range n.Content {
		item, p := deref(item), fmt.Sprintf("%s[%d]", path, i)
		s, ok := d.str(item, p)
		if !ok {
			continue
		}
		if err := checkHostPort(s); err != nil {
			d.errorf(item, p, "%v", err)
			continue
		}
		if slices.Contains(out, s) {
			d.errorf(item, p, "duplicate address %q", s)
			continue
		}
		out = append(out, s)
	}
	return out
}

func (d *decoder) str(n *yaml.Node, path string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		d.errorf(n, path, "expected a string, got %s", describe(n))
		return "", false
	}
	return n.Value, true
}

func (d *decoder) boolean(n *yaml.Node, path string) (bool, bool) {
	var b bool
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
		d.errorf(n, path, "expected true or false, got %s", describe(n))
		return false, false
	}
	return b, true
}

func (d *decoder) integer(n *yaml.Node, path string) (int, bool) {
	var i int
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&i) != nil {
		d.errorf(n, path, "expected an integer, got %s", describe(n))
		return 0, false
	}
	return i, true
}

// intIn reads an integer from lo to hi (unit follows the bounds in the
// error: " frames per second") into dst.
func (d *decoder) intIn(n *yaml.Node, path string, lo, hi int, unit string, dst *int) {
	i, ok := d.integer(n, path)
	switch {
	case !ok:
	case i < lo || i > hi:
		d.errorf(n, path, "must be between %d and %d%s, got %d", lo, hi, unit, i)
	default:
		*dst = i
	}
}

// size accepts a byte count or a size such as "16MiB" within lo..hi.
func (d *decoder) size(n *yaml.Node, path string, lo, hi int64, dst *int64) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!str") {
		d.errorf(n, path, "expected a size such as 16MiB, got %s", describe(n))
		return
	}
	x, err := ParseBytes(n.Value)
	switch {
	case err != nil:
		d.errorf(n, path, "%v", err)
	case x < lo || x > hi:
		d.errorf(n, path, "must be between %s and %s, got %s", FormatBytes(lo), FormatBytes(hi), n.Value)
	default:
		*dst = x
	}
}

// boolField decodes true or false into dst.
func (d *decoder) boolField(name string, dst *bool) field {
	return field{name, func(v *yaml.Node, path string) {
		if b, ok := d.boolean(v, path); ok {
			*dst = b
		}
	}}
}

// durationField decodes a duration (as duration reads it) into dst.
func (d *decoder) durationField(name string, dst *time.Duration) field {
	return field{name, func(v *yaml.Node, path string) {
		if x, ok := d.duration(v, path); ok {
			*dst = x
		}
	}}
}

// duration accepts Go duration strings. Bare numbers are refused rather
// than guessed to be seconds or milliseconds.
func (d *decoder) duration(n *yaml.Node, path string) (time.Duration, bool) {
	if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
		d.errorf(n, path, "expected a duration such as \"2s\", got %s (add a unit: ms, s, m)", describe(n))
		return 0, false
	}
	s, ok := d.str(n, path)
	if !ok {
		return 0, false
	}
	x, err := time.ParseDuration(s)
	if err != nil {
		d.errorf(n, path, "invalid duration %q (want e.g. \"500ms\", \"2s\", \"1m\")", s)
		return 0, false
	}
	if x <= 0 {
		d.errorf(n, path, "duration must be positive, got %q", s)
		return 0, false
	}
	return x, true
}

// checkHostPort validates a host:port address. It does not resolve the
// host: names may legitimately only resolve where the engine runs.
// checkSpokeString checks a spoke name or key: what SPOKE SWITCH can carry
// (at most 256 bytes, the engine's bound of a spoke name) and no control
// bytes.
func checkSpokeString(s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return errors.New("must not be empty")
	case len(s) > 256:
		return fmt.Errorf("is %d bytes; at most 256", len(s))
	case strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("%q has a control character", s)
	}
	return nil
}

func checkHostPort(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		var ae *net.AddrError
		if errors.As(err, &ae) {
			return fmt.Errorf("invalid address %q (want host:port): %s", s, ae.Err)
		}
		return fmt.Errorf("invalid address %q (want host:port)", s)
	}
	if host == "" {
		return fmt.Errorf("invalid address %q (want host:port): missing host", s)
	}
	if strings.ContainsFunc(host, func(r rune) bool { return r <= ' ' || r == '/' }) {
		return fmt.Errorf("invalid address %q: bad host %q", s, host)
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
		return fmt.Errorf("invalid address %q: port must be a number in 1..65535", s)
	}
	return nil
}

// deref follows aliases (*anchor) to the node they stand for.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// describe names a node's type (and short value) for "expected X, got Y".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return fmt.Sprintf("string %q", n.Value)
		case "!!int":
			return "integer " + n.Value
		case "!!float":
			return "number " + n.Value
		case "!!bool":
			return "boolean " + n.Value
		case "!!null":
			return "null"
		default:
			return fmt.Sprintf("%s %q", n.ShortTag(), n.Value)
		}
	}
	return "an unexpected node"
}

// child appends key to a dotted field path. Keys that would make the path
// ambiguous (dots, brackets, spaces: only context names can contain those)
// are quoted in brackets.
func child(path, key string) string {
	if key == "" || strings.ContainsAny(key, ".[]\" \t") {
		return fmt.Sprintf("%s[%q]", path, key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// suggest returns the candidate closest to s by edit distance, or "" when
// none is close enough to be a plausible typo.
func suggest(s string, candidates []string) string {
	best, bestDist := "", 0
	for _, c := range candidates {
		dist := levenshtein(strings.ToLower(s), c)
		if best == "" || dist < bestDist {
			best, bestDist = c, dist
		}
	}
	// Allow about one edit per three characters (at least two), which
	// catches "adress", "queue_manager" and "readonly" but not unrelated words.
	if best == "" || bestDist > max(2, len(best)/3) {
		return ""
	}
	return best
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
