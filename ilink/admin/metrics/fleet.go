package metrics

import (
	"bytes"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"ilinkdash/ilink/admin/watch"
)

// Fleet is the exposition of several watched clusters (exporter over
// several contexts): every metric family once, with each cluster's series
// under it (their `context` label tells them apart), and the stateful
// metrics of every cluster's registry gathered together (give Runtime to
// one member only: the process is one).
type Fleet struct {
	members []*Exporter
	gs      prometheus.Gatherers // the members' registries
}

// NewFleet serves the members' series together; it needs at least one.
func NewFleet(members ...*Exporter) *Fleet {
	f := &Fleet{members: members}
	for _, e := range members {
		f.gs = append(f.gs, e.reg)
	}
	return f
}

// Scrape appends the whole exposition to b, as /metrics serves it.
func (f *Fleet) Scrape(b []byte) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	err := writeExposition(buf, f.writeTo, f.gs)
	return buf.Bytes(), err
}

// writeTo writes every member's snapshot series, family by family: each
// family's series of every member, in the members' order.
func (f *Fleet) writeTo(t *textSink) {
	type taken struct {
		s   *watch.Snapshot
		now time.Time
	}
	at := make([]taken, len(f.members))
	for i, e := range f.members {
		at[i] = taken{e.coll.snap(), e.coll.now()}
	}
	for _, fam := range f.members[0].coll.f.all {
		for i, e := range f.members {
			e.coll.b.family(fam, at[i].s, at[i].now, t)
		}
	}
}

func (f *Fleet) serveMetrics(w http.ResponseWriter, r *http.Request) {
	serveExposition(w, r, f.writeTo, f.gs)
}

// Handler serves /metrics, /healthz and /livez for the fleet: each probe
// holds while it holds for every member (rules, one per member, in the
// members' order), and says which do not.
func (f *Fleet) Handler(healthz, livez []func() (bool, string)) http.Handler {
	return handler(f.serveMetrics, Probes{Healthz: all(healthz), Livez: all(livez)})
}

// all is a probe rule holding while every rule holds; its text is the
// failing ones' reasons, one per line.
func all(rules []func() (bool, string)) func() (bool, string) {
	return func() (bool, string) {
		var bad []string
		for _, r := range rules {
			if ok, why := r(); !ok {
				bad = append(bad, why)
			}
		}
		if len(bad) > 0 {
			return false, strings.Join(bad, "\n")
		}
		return true, "ok"
	}
}
