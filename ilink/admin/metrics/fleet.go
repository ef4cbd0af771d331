package metrics

import (
	"bytes"
	"net/http"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// Fleet is the exposition of several watched clusters (exporter over
// several contexts): every metric family once, with each cluster's series
// under it (their `context` label tells them apart), and the stateful
// metrics of every cluster's registry gathered together (give Runtime to
// one member only: the process is one).
type Fleet struct {
	members []*Exporter

	mu   sync.Mutex
	text textSink
	out  []byte
}

// NewFleet serves the members' series together; it needs at least one.
func NewFleet(members ...*Exporter) *Fleet {
	return &Fleet{members: members, text: newTextSink(members[0].coll.f)}
}

// Scrape appends the whole exposition to b, as /metrics serves it.
func (f *Fleet) Scrape(b []byte) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.scrapeLocked(b)
}

func (f *Fleet) scrapeLocked(b []byte) ([]byte, error) {
	gs := make(prometheus.Gatherers, len(f.members))
	for i, e := range f.members {
		c := e.coll
		c.b.build(c.snap(), c.now(), &f.text)
		gs[i] = e.reg
	}
	b = f.text.appendTo(b)
	mfs, err := gs.Gather()
	w := bytes.NewBuffer(b)
	for _, mf := range mfs {
		if _, werr := expfmt.MetricFamilyToText(w, mf); werr != nil && err == nil {
			err = werr
		}
	}
	return w.Bytes(), err
}

func (f *Fleet) serveMetrics(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out, err := f.scrapeLocked(f.out[:0])
	f.out = out
	writeExposition(w, r, out, err)
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
