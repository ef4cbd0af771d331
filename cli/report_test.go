package cli

import (
	"errors"
	"fmt"
	"reflect"
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
