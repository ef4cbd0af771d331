package cli

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// An error that joins others (a config file's errors, each naming its
// line) prints one line each: they printed as one line joined by ␊. Any
// other error stays one sanitized line, whatever newlines its text holds,
// and a %w-wrapped pair keeps the text between them.
func TestErrorLines(t *testing.T) {
	a := errors.New("c.yaml:3:12: unknown theme")
	b := errors.New("c.yaml:4:18: tail-buffer too small")
	for _, c := range []struct {
		err  error
		want []string
	}{
		{errors.Join(a, b), []string{"c.yaml:3:12: unknown theme", "c.yaml:4:18: tail-buffer too small"}},
		{&exitError{code: 2, err: errors.Join(a, b)}, []string{"c.yaml:3:12: unknown theme", "c.yaml:4:18: tail-buffer too small"}},
		{fmt.Errorf("load: %w", errors.Join(a, b)), []string{"load: c.yaml:3:12: unknown theme␊c.yaml:4:18: tail-buffer too small"}},
		{fmt.Errorf("%w; %w", a, b), []string{"c.yaml:3:12: unknown theme; c.yaml:4:18: tail-buffer too small"}},
		{errors.New("from the network\nilinkdash: forged line"), []string{"from the network␊ilinkdash: forged line"}},
		{errors.Join(errors.New("one\x1b[2J"), errors.New("two")), []string{"one␛[2J", "two"}},
	} {
		if got := errorLines(c.err); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: lines %q, want %q", c.err, got, c.want)
		}
	}
}

// A wrong number of arguments names them from the usage line: cobra's
// "accepts 1 arg(s), received 0" named none. Exit 2 with the usage line.
func TestArgumentCountNamesTheArguments(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"queue", "put"}, "missing NAME"},
		{[]string{"describe"}, "missing topic|group NAME"},
		{[]string{"describe", "topic"}, "missing NAME"},
		{[]string{"cluster", "move-leader", "T"}, "missing PARTITION"},
		{[]string{"tail", "a", "b"}, `unexpected argument "b": ilinkdash tail takes TOPIC_OR_PATTERN`},
		{[]string{"config", "init", "a", "b"}, `unexpected argument "b": ilinkdash config init takes PATH`},
	} {
		r := runCLIResult(t, "", c.args...)
		if r.code != exitUsage || !strings.HasPrefix(r.stderr, "ilinkdash: "+c.want+"\nUsage: ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q then the usage line", c.args, r.code, r.stderr, c.want)
		}
	}
}
