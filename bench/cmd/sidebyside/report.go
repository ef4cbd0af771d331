package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

type stat struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	N      int     `json:"n"`
}

type metric struct {
	key    string
	title  string
	format string
	get    func(p *phaseResult) (float64, bool)
}

func client(f func(d *processDelta) float64) func(p *phaseResult) (float64, bool) {
	return func(p *phaseResult) (float64, bool) { return f(&p.Client), true }
}

func serverSide(f func(d *processDelta) float64) func(p *phaseResult) (float64, bool) {
	return func(p *phaseResult) (float64, bool) {
		if p.Server == nil {
			return 0, false
		}
		return f(p.Server), true
	}
}

const mb = 1e6

var metrics = []metric{
	{"rec_per_s", "records/s", "%.0f", func(p *phaseResult) (float64, bool) { return p.RecPerSec, true }},
	{"mb_per_s", "MB/s (values)", "%.1f", func(p *phaseResult) (float64, bool) { return p.MBPerSec, true }},
	{"allocs_per_rec", "allocs/rec", "%.2f", client(func(d *processDelta) float64 { return d.AllocsPerRec })},
	{"bytes_per_rec", "B/rec", "%.0f", client(func(d *processDelta) float64 { return d.BytesPerRec })},
	{"cpu_us_per_rec", "CPU µs/rec", "%.2f", client(func(d *processDelta) float64 { return d.CPUMicrosPerRc })},
	{"peak_rss_mb", "peak RSS MB", "%.0f", client(func(d *processDelta) float64 { return float64(d.PeakRSS) / mb })},
	{"heap_inuse_mb", "heap in-use MB (end)", "%.0f", client(func(d *processDelta) float64 { return float64(d.HeapInuseEnd) / mb })},
	{"heap_live_mb", "heap live MB (after GC)", "%.1f", client(func(d *processDelta) float64 { return float64(d.HeapLiveAfter) / mb })},
	{"gc_cycles", "GC cycles", "%.0f", client(func(d *processDelta) float64 { return float64(d.GCCycles) })},
	{"gc_pause_ms", "GC pause ms", "%.1f", client(func(d *processDelta) float64 { return d.GCPauseMs })},
	{"other_cpu_pct", "other processes CPU %", "%.0f", func(p *phaseResult) (float64, bool) { return 100 * p.OtherCPU, true }},
	{"server_allocs_per_rec", "server allocs/rec", "%.2f", serverSide(func(d *processDelta) float64 { return d.AllocsPerRec })},
	{"server_bytes_per_rec", "server B/rec", "%.0f", serverSide(func(d *processDelta) float64 { return d.BytesPerRec })},
	{"server_cpu_us_per_rec", "server CPU µs/rec", "%.2f", serverSide(func(d *processDelta) float64 { return d.CPUMicrosPerRc })},
	{"server_peak_rss_mb", "server peak RSS MB", "%.0f", serverSide(func(d *processDelta) float64 { return float64(d.PeakRSS) / mb })},
	{"server_gc_cycles", "server GC cycles", "%.0f", serverSide(func(d *processDelta) float64 { return float64(d.GCCycles) })},
}

var phaseNames = []string{"produce", "consume"}

// summary: label -> phase -> metric key -> stat.
type summary map[string]map[string]map[string]stat

func summarize(entries []entry, results []runResult) summary {
	sum := summary{}
	for _, e := range entries {
		sum[e.label] = map[string]map[string]stat{}
		for _, ph := range phaseNames {
			m := map[string]stat{}
			for _, mt := range metrics {
				var vs []float64
				for i := range results {
					r := &results[i]
					if r.Label != e.label || r.Err != "" {
						continue
					}
					for j := range r.Phases {
						if r.Phases[j].Phase != ph {
							continue
						}
						if v, ok := mt.get(&r.Phases[j]); ok {
							vs = append(vs, v)
						}
					}
				}
				if len(vs) > 0 {
					m[mt.key] = statOf(vs)
				}
			}
			if len(m) > 0 {
				sum[e.label][ph] = m
			}
		}
	}
	return sum
}

func statOf(vs []float64) stat {
	slices.Sort(vs)
	n := len(vs)
	med := vs[n/2]
	if n%2 == 0 {
		med = (vs[n/2-1] + vs[n/2]) / 2
	}
	return stat{Median: med, Min: vs[0], Max: vs[n-1], N: n}
}

// ratioTable: label -> phase -> metric -> median(label) / median(franz).
func ratioTable(entries []entry, sum summary) map[string]map[string]map[string]float64 {
	out := map[string]map[string]map[string]float64{}
	base, ok := sum["franz/kfake"]
	if !ok {
		return out
	}
	for _, e := range entries {
		if e.impl == "franz" {
			continue
		}
		out[e.label] = map[string]map[string]float64{}
		for ph, ms := range sum[e.label] {
			r := map[string]float64{}
			for k, st := range ms {
				if b, ok := base[ph][k]; ok && b.Median != 0 {
					r[k] = st.Median / b.Median
				}
			}
			out[e.label][ph] = r
		}
	}
	return out
}

func printTables(w io.Writer, o options, entries []entry, sum summary) {
	ratios := ratioTable(entries, sum)
	var others []entry
	for _, e := range entries {
		if e.impl != "franz" {
			others = append(others, e)
		}
	}
	_, haveBase := sum["franz/kfake"]
	for _, ph := range phaseNames {
		if ph == "consume" && !o.consume {
			continue
		}
		fmt.Fprintf(w, "\n== %s: median [min-max] over %d run(s) ==\n", ph, o.runs)
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		fmt.Fprint(tw, "metric")
		for _, e := range entries {
			fmt.Fprintf(tw, "\t%s", e.label)
		}
		if haveBase {
			for _, e := range others {
				fmt.Fprintf(tw, "\t%s / franz", e.label)
			}
		}
		fmt.Fprintln(tw)
		for _, mt := range metrics {
			row := false
			for _, e := range entries {
				if _, ok := sum[e.label][ph][mt.key]; ok {
					row = true
				}
			}
			if !row {
				continue
			}
			fmt.Fprint(tw, mt.title)
			for _, e := range entries {
				st, ok := sum[e.label][ph][mt.key]
				switch {
				case ok:
					f := mt.format
					fmt.Fprintf(tw, "\t"+f+" ["+f+"-"+f+"]", st.Median, st.Min, st.Max)
				case ph == "consume" && stacks[e.impl].newConsumer == nil:
					fmt.Fprint(tw, "\tnot built")
				default:
					fmt.Fprint(tw, "\t-")
				}
			}
			if haveBase {
				for _, e := range others {
					if r, ok := ratios[e.label][ph][mt.key]; ok {
						fmt.Fprintf(tw, "\t%.2fx", r)
					} else {
						fmt.Fprint(tw, "\t-")
					}
				}
			}
			fmt.Fprintln(tw)
		}
		_ = tw.Flush()
	}
	fmt.Fprintln(w, "\nratios are median(stack) / median(franz/kfake): > 1 is better for records/s and MB/s, worse for the cost rows.")
}

// poolRatios compresses the value pool in 64 KiB chunks (about one batch)
// with the codecs both stacks use and returns input/output.
func poolRatios(p *valuePool) map[string]float64 {
	var all []byte
	for _, v := range p.values {
		all = append(all, v...)
	}
	const chunk = 64 << 10
	var lz4Out, zstdOut int
	enc, err := zstd.NewWriter(nil, zstd.WithWindowSize(64<<10), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil
	}
	defer enc.Close()
	for off := 0; off < len(all); off += chunk {
		in := all[off:min(off+chunk, len(all))]
		var b bytes.Buffer
		lw := lz4.NewWriter(&b)
		_, _ = lw.Write(in)
		_ = lw.Close()
		lz4Out += b.Len()
		zstdOut += len(enc.EncodeAll(in, nil))
	}
	return map[string]float64{
		"lz4":  float64(len(all)) / float64(lz4Out),
		"zstd": float64(len(all)) / float64(zstdOut),
	}
}
