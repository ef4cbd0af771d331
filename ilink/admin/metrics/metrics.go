// Package metrics exposes a watched cluster to Prometheus (`ilinkdash
// exporter`, `serve --metrics`): the lag, health words and alerts the
// dashboard and `ilinkdash check` show, built from a watch.Snapshot at
// scrape time by one collector, so a group or topic that goes away takes
// its series with it and nothing is kept per series. docs/METRICS.md lists
// every metric with its rule; TestMetricsDocumented keeps the list and the
// code one.
//
// Never health without fresh data (docs/HEALTH.md): the series a list
// gives are exported only while that list is fresh — its latest poll
// answered, younger than three polling intervals. While it is not, they
// are absent (Prometheus' "unknown"), ilinkdash_data_fresh says 0 for the
// list and, when the cluster cannot be reached, ilinkdash_cluster_reachable
// is 0 and the unreachable alert is counted.
package metrics

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"

	"ilinkdash/ilink/admin/health"
	"ilinkdash/ilink/admin/watch"
)

// Options tune an Exporter.
type Options struct {
	// PerPartition exports the per-partition series (ilinkdash_group_lag,
	// ilinkdash_topic_partition_end_offset). Off for very large clusters:
	// the per-group and per-topic series stay.
	PerPartition bool
	// Runtime adds the Go runtime and process collectors (go_*,
	// process_*).
	Runtime bool
	// Now is the clock freshness is judged by (tests); nil is time.Now.
	Now func() time.Time
}

// Exporter is the registry of one watched cluster: the snapshot collector,
// the poll histogram and error counter, the notification counters.
type Exporter struct {
	reg     *prometheus.Registry // the poll histogram and counters, the notification counters, the runtime
	coll    *Collector
	pollDur *prometheus.HistogramVec
	pollErr *prometheus.CounterVec
	ctxName string
}

// New returns the exporter of the cluster named ctxName (the `context`
// label of every series), reading the latest snapshot from snap at every
// scrape.
func New(ctxName string, snap func() *watch.Snapshot, opt Options) *Exporter {
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	f := newFamilies(ctxName)
	e := &Exporter{reg: prometheus.NewRegistry(), ctxName: ctxName,
		coll: &Collector{f: f, b: newBuilder(f, opt.PerPartition), snap: snap, now: now}}
	cl := prometheus.Labels{"context": ctxName}
	e.pollDur = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "ilinkdash_poll_duration_seconds", ConstLabels: cl,
		Help:    "How long one read of an admin list took, by list (through serve's shared poller a cached answer takes about 0).",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"list"})
	e.pollErr = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ilinkdash_poll_errors_total", ConstLabels: cl,
		Help: "Reads of an admin list that failed (the cluster unreachable, or answering with an error), by list.",
	}, []string{"list"})
	e.reg.MustRegister(e.pollDur, e.pollErr)
	for l := range watch.NumLists {
		e.pollErr.WithLabelValues(l.String()) // present at 0 from the start
	}
	if opt.Runtime {
		e.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return e
}

// ObservePoll takes in one poll's outcome (watch.Config.OnPoll).
func (e *Exporter) ObservePoll(l watch.List, took time.Duration, err error) {
	e.pollDur.WithLabelValues(l.String()).Observe(took.Seconds())
	if err != nil {
		e.pollErr.WithLabelValues(l.String()).Inc()
	}
}

// SinkCounts are a notification sink's counters.
type SinkCounts struct {
	Sent, Failed, Dropped uint64
}

// NotifyCounters exports a notification sink's counters, read at scrape
// time from counts: ilinkdash_notify_sent_total, _failed_total and
// _dropped_total with the label sink.
func (e *Exporter) NotifyCounters(sink string, counts func() SinkCounts) {
	cl := prometheus.Labels{"context": e.ctxName, "sink": sink}
	for _, c := range []struct {
		name, help string
		v          func(SinkCounts) uint64
	}{
		{"ilinkdash_notify_sent_total", "Alert notifications delivered (a webhook answered 2xx, a command exited 0).", func(s SinkCounts) uint64 { return s.Sent }},
		{"ilinkdash_notify_failed_total", "Alert notifications given up after their bounded retries (or a command that failed or timed out).", func(s SinkCounts) uint64 { return s.Failed }},
		{"ilinkdash_notify_dropped_total", "Alert notifications dropped unsent because the sink's bounded queue was full (the oldest goes).", func(s SinkCounts) uint64 { return s.Dropped }},
	} {
		e.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: c.name, Help: c.help, ConstLabels: cl},
			func() float64 { return float64(c.v(counts())) }))
	}
}

// Registry is the exporter's registry of the stateful metrics (the poll
// histogram and error counter, the notification counters, the runtime);
// the snapshot's series are Collector's.
func (e *Exporter) Registry() *prometheus.Registry { return e.reg }

// Collector is the snapshot's series as a prometheus.Collector: what
// /metrics serves, through client_golang's registry (tests gather, compare
// and lint it; the handler writes the same text faster).
func (e *Exporter) Collector() *Collector { return e.coll }

// Scrape appends the whole exposition to b, as /metrics serves it: the
// snapshot's series, then the registry's.
func (e *Exporter) Scrape(b []byte) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	err := writeExposition(buf, e.coll.writeTo, e.reg)
	return buf.Bytes(), err
}

// writeTo writes the snapshot's series, family by family.
func (c *Collector) writeTo(t *textSink) { c.b.build(c.snap(), c.now(), t) }

// serveMetrics writes the exposition in the text format, gzipped when the
// scraper accepts it (Prometheus does).
func (e *Exporter) serveMetrics(w http.ResponseWriter, r *http.Request) {
	serveExposition(w, r, e.coll.writeTo, e.reg)
}

// scrapeBufSize is the text a scrape holds before it goes to the
// response (or the gzip writer): the exposition is streamed, never held
// whole (issue 26: a 10,000-topic cluster's is 11 MB).
const scrapeBufSize = 32 << 10

// writers are the buffered and gzip writers of the scrapes, reused.
var bufWriters, gzipWriters sync.Pool

// writeExposition streams the exposition to w: the series writeSnap
// writes (the snapshots'), then the registry's. Its error is the first
// of the registry's gathering and the writes.
func writeExposition(w io.Writer, writeSnap func(*textSink), reg prometheus.Gatherer) error {
	mfs, err := reg.Gather()
	bw, _ := bufWriters.Get().(*bufio.Writer)
	if bw == nil {
		bw = bufio.NewWriterSize(w, scrapeBufSize)
	} else {
		bw.Reset(w)
	}
	writeSnap(newTextSink(bw))
	for _, mf := range mfs {
		if _, werr := expfmt.MetricFamilyToText(bw, mf); werr != nil && err == nil {
			err = werr
		}
	}
	if ferr := bw.Flush(); ferr != nil && err == nil {
		err = ferr
	}
	bw.Reset(nil) // not to keep w
	bufWriters.Put(bw)
	return err
}

// serveExposition answers a scrape, as it is written: the status and
// headers go first, so a failure while writing (the scraper gone) can
// only cut the body short, and the registry's failure to gather keeps
// the rest (as promhttp's ContinueOnError).
func serveExposition(w http.ResponseWriter, r *http.Request, writeSnap func(*textSink), reg prometheus.Gatherer) {
	h := w.Header()
	h.Set("Content-Type", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	if !acceptsGzip(r) {
		_ = writeExposition(w, writeSnap, reg)
		return
	}
	h.Set("Content-Encoding", "gzip")
	h.Add("Vary", "Accept-Encoding")
	gz, _ := gzipWriters.Get().(*gzip.Writer)
	if gz == nil {
		gz, _ = gzip.NewWriterLevel(w, gzip.BestSpeed)
	} else {
		gz.Reset(w)
	}
	_ = writeExposition(gz, writeSnap, reg)
	_ = gz.Close()
	gz.Reset(io.Discard) // not to keep w
	gzipWriters.Put(gz)
}

// acceptsGzip reports whether the request accepts gzip: named in
// Accept-Encoding with a weight above 0 (gzip;q=0 refuses it).
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(enc), "gzip") {
			continue
		}
		for _, p := range strings.Split(params, ";") {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if q, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && q <= 0 {
					return false
				}
			}
		}
		return true
	}
	return false
}

// Probes are the handler's two health endpoints, each a rule saying
// whether all is well and why (nil: always 200 "ok").
type Probes struct {
	// Healthz is /healthz: Reached, the cluster reached by the latest
	// polls.
	Healthz func() (bool, string)
	// Livez is /livez: Alive, the watcher still polling whatever the
	// cluster's state (a liveness probe that must not restart the
	// exporter for a cluster outage).
	Livez func() (bool, string)
}

// Handler serves /metrics (the exposition), /healthz and /livez: 200 with
// the probe's text while it holds, 503 with its reason otherwise.
func (e *Exporter) Handler(p Probes) http.Handler { return handler(e.serveMetrics, p) }

func handler(metrics http.HandlerFunc, p Probes) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", metrics)
	mux.HandleFunc("/healthz", probe(p.Healthz))
	mux.HandleFunc("/livez", probe(p.Livez))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "ilinkdash exporter: /metrics, /healthz, /livez")
	})
	return mux
}

func probe(rule func() (bool, string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ok, text := true, "ok"
		if rule != nil {
			ok, text = rule()
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		fmt.Fprintln(w, text)
	}
}

// Reached is /healthz's rule for a watcher: 200 while its latest polls
// reached the cluster (an engine answering with an error was reached),
// 503 with the reason otherwise: no poll completed yet, the watcher
// stuck, or the unreachable alert's "cannot reach <addr>: <reason>".
func Reached(w *watch.Watcher, now func() time.Time) func() (bool, string) {
	return func() (bool, string) {
		last := w.LastPoll()
		if last.IsZero() {
			return false, "starting: no poll completed yet"
		}
		if age := now().Sub(last); age > w.MaxPollGap() {
			return false, fmt.Sprintf("stuck: no poll completed for %v", age.Round(time.Second))
		}
		s := w.Snapshot()
		if s.Reachable() {
			return true, "ok: the cluster was reached by the latest polls"
		}
		for _, a := range s.Alerts {
			if a.Kind == health.KindUnreachable {
				return false, a.Text
			}
		}
		return false, "no list answered yet"
	}
}

// Alive is /livez's rule for a watcher: alive while its latest poll
// completed within its longest retry wait and read timeout.
func Alive(w *watch.Watcher, now func() time.Time) func() (bool, string) {
	return func() (bool, string) {
		last := w.LastPoll()
		if last.IsZero() {
			return true, "starting: no poll completed yet"
		}
		age := now().Sub(last)
		if age > w.MaxPollGap() {
			return false, fmt.Sprintf("stuck: no poll completed for %v", age.Round(time.Second))
		}
		s := w.Snapshot()
		if !s.Reachable() {
			return true, "ok: polling, the cluster is not reachable (see ilinkdash_cluster_reachable)"
		}
		return true, "ok: polling"
	}
}
