package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"ilinkdash/ui/sanitize"
)

// The one output path to the terminal. A command's standard output and
// standard error are sanitize.Writers over the real streams (newStreams),
// so every byte any command prints — tables, plain text, JSON, logs, the
// final error — passes ui/sanitize, whatever the command did. On top of
// that one choke point:
//
//   - table cells (row) are sanitized as single-line text, so a name with a
//     line break or a tab cannot break the table's rows and columns;
//   - JSON (writeJSON) is escaped instead of sanitized: encoding/json plus
//     sanitize.JSON, so the output decodes to the exact strings the
//     engine sent and passes the stream writer unchanged;
//   - the final error is printed as one sanitized line (report).
//
// Only the progress line of publish writes control characters of its own
// (a carriage return), to the raw stream, and only numbers.

// streams are a command run's standard streams.
type streams struct {
	in             io.Reader
	out, err       *sanitize.Writer
	rawOut, rawErr io.Writer
}

func newStreams(in io.Reader, out, errw io.Writer) streams {
	return streams{in: in, out: sanitize.NewWriter(out), err: sanitize.NewWriter(errw), rawOut: out, rawErr: errw}
}

func (s streams) flush() {
	if s.out != nil {
		s.out.Flush()
	}
	if s.err != nil {
		s.err.Flush()
	}
}

// usageError is a mistake in the command line: exit status 2, and the
// command's usage line is printed after the message.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// exitError carries a process exit code other than 1 through cobra.
// quiet: the command printed its result already (check's status line on
// stdout), so report prints nothing more.
type exitError struct {
	code  int
	err   error
	quiet bool
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Exit statuses (docs/CLI.md).
const (
	exitOK          = 0
	exitError1      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// report prints err (one sanitized line, or one per error it joins, plus
// the usage line for a usage error) and returns the exit status.
func (a *app) report(ctx context.Context, cmd *cobra.Command, err error) int {
	if err == nil {
		return exitOK
	}
	cause := context.Cause(ctx)
	canceled := ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, cause))
	if errors.Is(err, syscall.EPIPE) || (canceled && cause == errStdoutClosed) {
		return exitOK // the reader of our output went away (| head): nothing to say
	}
	w := a.io.err
	if canceled && cause == errInterrupted {
		fmt.Fprintln(w, "ilinkdash: interrupted")
		return exitInterrupted
	}
	var ee *exitError
	if errors.As(err, &ee) && ee.quiet {
		return ee.code
	}
	for _, line := range errorLines(err) {
		fmt.Fprintln(w, "ilinkdash: "+line)
	}
	var ue *usageError
	if errors.As(err, &ue) {
		if cmd == nil {
			cmd = a.root
		}
		fmt.Fprintln(w, "Usage: "+cmd.UseLine())
		fmt.Fprintf(w, "Run '%s --help' for more.\n", cmd.CommandPath())
		return exitUsage
	}
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitError1
}

// errorLines are err as sanitized lines: one per error it joins (a config
// file's errors, each naming its line), else its text as one line, so no
// text of an error (from the network, a file) can add a line of its own.
func errorLines(err error) []string {
	for e := err; e != nil && e.Error() == err.Error(); e = errors.Unwrap(e) {
		// e is err or a wrapper of it that adds no text (usageError, exitError).
		if j, ok := e.(interface{ Unwrap() []error }); ok && isJoin(e, j.Unwrap()) {
			var lines []string
			for _, one := range j.Unwrap() {
				lines = append(lines, errorLines(one)...)
			}
			return lines
		}
	}
	return []string{sanitize.String(err.Error())}
}

// isJoin reports whether e's text is its errors' texts, one per line (as
// errors.Join writes it), so splitting it loses no text of its own (a
// fmt.Errorf("x: %w; %w") has some).
func isJoin(e error, errs []error) bool {
	texts := make([]string, len(errs))
	for i, one := range errs {
		texts[i] = one.Error()
	}
	return strings.Join(texts, "\n") == e.Error()
}

// usageArgs makes a positional-argument check's error a usage error.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			var ue *usageError
			var ee *exitError // a command's own exit status (check: 3)
			if errors.As(err, &ue) || errors.As(err, &ee) {
				return err
			}
			return &usageError{err: argsError(cmd, args, err)}
		}
		return nil
	}
}

// argsError says a wrong number of arguments in our words, naming them
// from the command's Use line ("missing NAME"; "unexpected argument
// \"x\": queue put takes NAME"): cobra's "accepts 1 arg(s), received 0"
// named none. Another error is left as it is.
func argsError(cmd *cobra.Command, args []string, err error) error {
	names := positional(cmd.Use)
	var lo, hi, got int
	msg := err.Error()
	switch {
	case len(names) == 0:
		return err
	case scanArgs(msg, "accepts %d arg(s), received %d", &lo, &got):
		hi = lo
	case scanArgs(msg, "requires at least %d arg(s), only received %d", &lo, &got):
		hi = -1
	case scanArgs(msg, "accepts at most %d arg(s), received %d", &hi, &got):
	case scanArgs(msg, "accepts between %d and %d arg(s), received %d", &lo, &hi, &got):
	default:
		return err
	}
	if got < lo {
		return fmt.Errorf("missing %s", strings.Join(names[min(got, len(names)):min(lo, len(names))], " "))
	}
	if hi >= 0 && got > hi && hi < len(args) {
		return fmt.Errorf("unexpected argument %q: %s takes %s", args[hi], cmd.CommandPath(), strings.Join(names, " "))
	}
	return err
}

// scanArgs reports whether msg is format with its numbers read into ns.
func scanArgs(msg, format string, ns ...any) bool {
	n, err := fmt.Sscanf(msg, format, ns...)
	return err == nil && n == len(ns)
}

// positional are the argument names of a Use line after the command's
// name, up to the first flag or option group: upper-case words (NAME,
// [PATH] optional) and choices (topic|group).
func positional(use string) []string {
	var out []string
	for _, f := range strings.Fields(use)[1:] {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "["), "]")
		if name == "" || strings.ContainsAny(name[:1], "-(") || (strings.ToUpper(name) != name && !strings.Contains(name, "|")) {
			break
		}
		out = append(out, name)
	}
	return out
}

// unknownCommand is the Args check of a command whose arguments can only
// be subcommands.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	s := append(nestedCommands(cmd, args[0]), cmd.SuggestionsFor(args[0])...)
	if len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return &usageError{err: errors.New(msg)}
}

// nestedCommands names the commands one level down that are called name
// ("seek" → "group seek"): an operator often types the verb and forgets
// the noun it lives under.
func nestedCommands(cmd *cobra.Command, name string) []string {
	var out []string
	for _, c := range cmd.Commands() {
		if !c.IsAvailableCommand() {
			continue
		}
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() && (sub.Name() == name || sub.HasAlias(name)) {
				out = append(out, c.Name()+" "+sub.Name())
			}
		}
	}
	return out
}

// outputFormat checks an -o value against the formats a command offers.
func outputFormat(o string, formats ...string) error {
	for _, f := range formats {
		if o == f {
			return nil
		}
	}
	return usageErr("-o %q: want %s", o, strings.Join(formats, " or "))
}

// writeJSON writes v as indented JSON (one document and a newline),
// escaped for the terminal (sanitize.JSON).
func writeJSON(w io.Writer, v any, indent bool) error {
	var b []byte
	var err error
	if indent {
		b, err = json.MarshalIndent(v, "", "  ")
	} else {
		b, err = json.Marshal(v)
	}
	if err != nil {
		return err
	}
	b = append(sanitize.JSON(b), '\n')
	_, err = w.Write(b)
	return err
}

// jsonArray writes a JSON array one element at a time, byte for byte as
// writeJSON writes the whole slice indented, so a listing that can be
// long (queue get) holds one element, not all of them.
type jsonArray struct {
	w io.Writer
	n int
}

func (a *jsonArray) add(v any) error {
	b, err := json.MarshalIndent(v, "  ", "  ")
	if err != nil {
		return err
	}
	sep := ",\n  "
	if a.n == 0 {
		sep = "[\n  "
	}
	a.n++
	_, err = a.w.Write(append([]byte(sep), sanitize.JSON(b)...))
	return err
}

// close ends the array: "[]" when nothing was added.
func (a *jsonArray) close() error {
	end := "\n]\n"
	if a.n == 0 {
		end = "[]\n"
	}
	_, err := io.WriteString(a.w, end)
	return err
}

// table collects rows and prints them with aligned columns.
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer) *table { return &table{tw: tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)} }

// row prints one row; every cell is sanitized as one line of text (a cell
// from the network cannot add a line, a column or an escape sequence).
func (t *table) row(cols ...any) {
	for i, c := range cols {
		if i > 0 {
			t.tw.Write([]byte{'\t'})
		}
		io.WriteString(t.tw, cell(c))
	}
	t.tw.Write([]byte{'\n'})
}

func (t *table) flush() error { return t.tw.Flush() }

func cell(c any) string {
	switch v := c.(type) {
	case string:
		return sanitize.String(v)
	case []byte:
		return sanitize.Bytes(v)
	case error:
		return sanitize.Error(v)
	case fmt.Stringer:
		return sanitize.String(v.String())
	}
	return sanitize.String(fmt.Sprint(c))
}

// lineWriter is a buffered writer for line-oriented output (tail).
func lineWriter(w io.Writer) *bufio.Writer { return bufio.NewWriterSize(w, 64<<10) }
