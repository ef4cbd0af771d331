package metrics

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"ilinkdash/ilink/admin/watch"
	"ilinkdash/ilink/loadgen"
)

// envRSSChild makes the test binary the exporter-like process of
// BenchmarkScrapeRSS10kTopics2kGroups instead of running the tests: its
// value says how ("plain", "gzip": the scraper's ask; "no-partition-series":
// plain, the exporter run with --no-partition-series).
const envRSSChild = "ILINKDASH_METRICS_RSS_CHILD"

// envRSSHeapProfile, set to a file name, has the measured process write
// its heap profile there after the scrapes (go tool pprof -sample_index
// inuse_space: what stays live; alloc_space: what the scrapes allocate).
const envRSSHeapProfile = "ILINKDASH_METRICS_RSS_HEAPPROFILE"

// rssScrapes is how many scrapes the measured process serves.
const rssScrapes = 20

func TestMain(m *testing.M) {
	if how := os.Getenv(envRSSChild); how != "" {
		if os.Getenv(envRSSHeapProfile) != "" {
			runtime.MemProfileRate = 1 // every allocation: exact figures (only when profiling: it is slow)
		}
		os.Exit(scrapeRSSChild(os.Stdout, how == "gzip", how != "no-partition-series"))
	}
	os.Exit(m.Run())
}

// rssResult is what the measured process reports.
type rssResult struct {
	meanMs, worstMs float64
	bodyBytes       int64
	peakRSS, rss    int64 // bytes: VmHWM, VmRSS after the scrapes
	heapInuse       uint64
}

// scrapeRSSChild is an exporter as far as memory goes, in a process of
// its own: the watcher (its health Monitor) and the latest snapshot of a
// 10,000-topic, 2,000-group cluster, the exposition with the per-partition
// series and the runtime's (the exporter's defaults) served over loopback
// HTTP, scraped rssScrapes times by a client asking for gzip or not (as
// Prometheus does); perPartition false is --no-partition-series. It prints one line: the scrape time and the memory
// the kernel counts (loadgen.ProcessMemory: VmHWM, VmRSS).
func scrapeRSSChild(out io.Writer, gzip, perPartition bool) int {
	now := time.Now()
	w, s := bigSnapshot(10000, 2000, now)
	e := New("bench", func() *watch.Snapshot { return s }, Options{PerPartition: perPartition, Runtime: true, Now: func() time.Time { return now }})
	srv := httptest.NewServer(e.Handler(Probes{}))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: !gzip}}
	var r rssResult
	var total time.Duration
	for range rssScrapes {
		start := time.Now()
		resp, err := client.Get(srv.URL + "/metrics")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			fmt.Fprintln(os.Stderr, "scrape:", resp.Status, err)
			return 1
		}
		d := time.Since(start)
		total += d
		r.worstMs = max(r.worstMs, float64(d)/float64(time.Millisecond))
		r.bodyBytes = n
	}
	if path := os.Getenv(envRSSHeapProfile); path != "" {
		if err := writeHeapProfile(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	runtime.KeepAlive(w)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.meanMs = float64(total) / float64(time.Millisecond) / rssScrapes
	r.peakRSS, r.rss = loadgen.ProcessMemory(0, loadgen.PeakRSS), loadgen.ProcessMemory(0, loadgen.RSS)
	fmt.Fprintf(out, "%f %f %d %d %d %d\n", r.meanMs, r.worstMs, r.bodyBytes, r.peakRSS, r.rss, ms.HeapInuse)
	return 0
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC() // the profile's in-use figures are as of the last collection
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// BenchmarkScrapeRSS10kTopics2kGroups is the goal's memory half as the
// kernel counts it (issue 26: ≤ 50 MB RSS): each iteration starts a fresh
// process (this binary, scrapeRSSChild) that holds the watcher's lists of
// a 10,000-topic, 2,000-group cluster and serves rssScrapes scrapes of
// its exposition over loopback HTTP; its peak RSS (VmHWM, the whole life:
// building the lists included), its RSS after, and the scrape time as a
// client sees it are reported. The GOMEMLIMIT cases run it under a soft
// memory limit (the environment's GOMEMLIMIT is replaced in every case). BenchmarkScrape10kTopics2kGroups measures
// the scrape alone, in process.
func BenchmarkScrapeRSS10kTopics2kGroups(b *testing.B) {
	for _, c := range []struct{ name, how, limit string }{
		{"plain", "plain", ""}, {"gzip", "gzip", ""}, {"no-partition-series", "no-partition-series", ""},
		{"plain/GOMEMLIMIT=40MiB", "plain", "40MiB"}, {"gzip/GOMEMLIMIT=40MiB", "gzip", "40MiB"},
	} {
		b.Run(c.name, func(b *testing.B) {
			var r rssResult
			for b.Loop() {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				// The soft memory limit is the Go runtime's own (GOMEMLIMIT):
				// the collector runs before the heap passes it.
				cmd.Env = append(os.Environ(), envRSSChild+"="+c.how, "GOMEMLIMIT="+c.limit)
				cmd.Stderr = os.Stderr
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("the measured process: %v", err)
				}
				if _, err := fmt.Sscanf(string(out), "%f %f %d %d %d %d", &r.meanMs, &r.worstMs, &r.bodyBytes, &r.peakRSS, &r.rss, &r.heapInuse); err != nil {
					b.Fatalf("the measured process said %q: %v", out, err)
				}
				if r.peakRSS == 0 {
					b.Fatal("no VmHWM in /proc/self/status")
				}
			}
			b.ReportMetric(float64(r.peakRSS)/1e6, "peak-RSS-MB")
			b.ReportMetric(float64(r.rss)/1e6, "RSS-MB")
			b.ReportMetric(float64(r.heapInuse)/1e6, "heap-inuse-MB")
			b.ReportMetric(r.meanMs, "scrape-ms")
			b.ReportMetric(r.worstMs, "worst-scrape-ms")
			b.ReportMetric(float64(r.bodyBytes)/1e6, "body-MB")
		})
	}
}
