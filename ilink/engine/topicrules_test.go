package engine

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"ilinkdash/ilink/topicrules"
	"ilinkdash/ilink/wire"
)

// The engine refuses with the one validator the forms and the CLI use:
// a CJK name, a retention beyond the bound, and it names the field.
func TestCreateTopicRefusesWithTheSharedRules(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	too := strconv.FormatInt(topicrules.MaxRetentionMs+1, 10)
	for _, tc := range []struct{ name, props, tail string }{
		{"主题.测试", "", "name: '主' at 0 is not allowed"},
		{strings.Repeat("n", 300), "", "name: 300 characters; at most 249"},
		{"X", "replicas=5", "replicas: 5 but the cluster has 3 nodes"},
		{"X", "retention.ms=" + too, "retention.ms: " + too + " is more than"},
		{"X", "retention.bytes=" + strconv.FormatInt(topicrules.MaxSize+1, 10), "retention.bytes: "},
	} {
		err := e.CreateTopic(tc.name, tc.props)
		var te *Error
		if !errors.As(err, &te) || te.Name != wire.ErrInvalidArgument || !strings.HasPrefix(te.Tail, tc.tail) {
			t.Errorf("CreateTopic(%.20q, %q) = %v, want INVALID_ARGUMENT (%s…)", tc.name, tc.props, err, tc.tail)
		}
	}
	// The bound itself and forever are accepted.
	mustCreateTopic(t, e, "LONG", "retention.ms="+strconv.FormatInt(topicrules.MaxRetentionMs, 10))
	mustCreateTopic(t, e, "KEEP", "retention.ms=0")
}
