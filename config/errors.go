package config

import (
	"fmt"
	"strings"
)

// FieldError is one problem in a config file, positioned so that editors
// and humans can jump to it. Load returns all of a file's FieldErrors joined
// with errors.Join, so errors.As finds the first and the Unwrap() []error
// method yields every one.
type FieldError struct {
	File   string // path of the file as given to Load
	Line   int    // 1-based; 0 when unknown
	Column int    // 1-based; 0 when unknown
	Field  string // dotted field path, e.g. "contexts.prod.admin"; empty for syntax errors
	Msg    string
}

// Error formats the error as "file:line:col: field: message", the shape
// compilers use, omitting the parts that are unknown.
func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}
