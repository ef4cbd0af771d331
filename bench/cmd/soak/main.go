// Command soak runs the demo under the chaos fault schedule with a
// dashboard attached, for a long time, and samples the memory (RSS, heap)
// and goroutine counts of the engine and of the dashboard every --sample:
// the two run in separate child processes of this command, so each
// process's figures are its own.
//
//   - engine child: the in-process engine, the demo traffic (its topics'
//     retention cut to one minute, so the data held is flat after the
//     first minute) and chaos.Schedule (kill/restart, stop/start, sever,
//     delayed and dropped replies, leader and coordinator moves, topic
//     growth), with a quiet last --quiet without faults;
//   - dashboard child: the real root model (ui.New on ui/live adapters)
//     run by a real tea.Program with no terminal (input none, output
//     discarded, 120x40), switching tabs every few seconds.
//
// It prints a table of the samples and a summary (RSS growth after the
// first minute, goroutines at the end against their baseline at one
// minute), or with --json one JSON document.
//
//	cd bench && go run ./cmd/soak --duration 10m
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// sample is one line a child prints.
type sample struct {
	Role       string `json:"role"`
	TMs        int64  `json:"t_ms"`
	RSS        int64  `json:"rss"`
	Heap       int64  `json:"heap_inuse"`
	HeapLive   int64  `json:"heap_live"` // marked live by the last GC
	Goroutines int    `json:"goroutines"`
	Faults     int    `json:"faults,omitempty"`     // engine: applied so far
	Partitions int    `json:"partitions,omitempty"` // engine: partitions of the topic the faults grow
	Frames     int64  `json:"frames,omitempty"`     // dashboard: bytes rendered so far
	Err        string `json:"err,omitempty"`
}

type summary struct {
	Role            string  `json:"role"`
	RSSAt1mMB       float64 `json:"rss_at_1m_mb"`
	RSSEndMB        float64 `json:"rss_end_mb"`
	RSSMaxAfter1mMB float64 `json:"rss_max_after_1m_mb"`
	RSSGrowthPct    float64 `json:"rss_growth_pct"`     // end vs 1 min
	RSSMaxGrowthPct float64 `json:"rss_max_growth_pct"` // max after 1 min vs 1 min
	LiveAt1mMB      float64 `json:"heap_live_at_1m_mb"`
	LiveEndMB       float64 `json:"heap_live_end_mb"`
	LiveGrowthPct   float64 `json:"heap_live_growth_pct"` // end vs 1 min
	// Trends after the first minute, robust to one sample's noise: the
	// Theil–Sen slope (median of the pairwise slopes) in MB per minute,
	// and the growth it makes over the run against the median of minutes
	// 1–3.
	RSSSlopeMBMin  float64 `json:"rss_slope_mb_per_min"`
	RSSTrendPct    float64 `json:"rss_trend_pct"`
	LiveSlopeMBMin float64 `json:"heap_live_slope_mb_per_min"`
	LiveTrendPct   float64 `json:"heap_live_trend_pct"`
	// Medians of minutes 1–3 and of the last three minutes, and the growth
	// between them: the figure the goal is judged by, as a single sample
	// at either end swings by megabytes with the faults.
	RSSBaseMB       float64 `json:"rss_median_1_3m_mb"`
	RSSLastMB       float64 `json:"rss_median_last_3m_mb"`
	RSSMedGrowthPct float64 `json:"rss_median_growth_pct"`
	LiveBaseMB      float64 `json:"heap_live_median_1_3m_mb"`
	LiveLastMB      float64 `json:"heap_live_median_last_3m_mb"`
	LiveMedGrowPct  float64 `json:"heap_live_median_growth_pct"`
	// Goroutines: median of minutes 1–3 and of the fault-free tail.
	GoroutinesBase  int `json:"goroutines_base"`
	GoroutinesQuiet int `json:"goroutines_quiet"`
	GoroutinesAt1m  int `json:"goroutines_at_1m"`
	GoroutinesEnd   int `json:"goroutines_end"`
	GoroutinesMax   int `json:"goroutines_max"`
}

type report struct {
	Duration string    `json:"duration"`
	Sample   string    `json:"sample"`
	Quiet    string    `json:"quiet"`
	Seed     int64     `json:"seed"`
	Faults   int       `json:"faults"`
	Samples  []sample  `json:"samples"`
	Summary  []summary `json:"summary"`
}

func main() {
	child := flag.String("child", "", "internal: run as the engine or dash child")
	duration := flag.Duration("duration", 10*time.Minute, "soak length")
	every := flag.Duration("sample", 10*time.Second, "sampling period")
	quiet := flag.Duration("quiet", time.Minute, "last part of the soak without faults (goroutines should be back at their baseline)")
	seed := flag.Int64("seed", 1, "fault schedule seed")
	admin := flag.String("admin", "", "internal: admin addresses for the dash child")
	data := flag.String("data", "", "internal: data addresses for the dash child")
	jsonOut := flag.Bool("json", false, "print one JSON document")
	profDir := flag.String("heap-profiles", "", "write heap profiles of both children into this directory (engine-SECONDSs.pb.gz, dash-…), after a GC, every --profile-every")
	profEvery := flag.Duration("profile-every", time.Minute, "period of the heap profiles of --heap-profiles")
	flag.Parse()
	prof := &profiles{dir: *profDir, every: *profEvery}
	if *child != "" && prof.dir != "" {
		// A finer sampling than the default 512 KiB, so a diff of two
		// profiles minutes apart names structures of a few hundred KiB.
		runtime.MemProfileRate = 32 << 10
	}

	switch *child {
	case "engine":
		runEngine(*every, *duration-*quiet, *seed, prof)
		return
	case "dash":
		runDash(*every, strings.Split(*admin, ","), strings.Split(*data, ","), prof)
		return
	case "":
	default:
		fmt.Fprintf(os.Stderr, "soak: unknown child %q\n", *child)
		os.Exit(2)
	}
	rep, err := parent(*duration, *every, *quiet, *seed, prof)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	if *jsonOut {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
		return
	}
	rep.print(os.Stdout)
}

// childProc is a running child and its sample lines.
type childProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan sample
	first chan string // the engine's first line: its addresses
}

func startChild(args ...string) (*childProc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, args...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &childProc{cmd: cmd, stdin: stdin, lines: make(chan sample, 1024), first: make(chan string, 1)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		firstLine := true
		for sc.Scan() {
			if firstLine {
				firstLine = false
				if strings.HasPrefix(sc.Text(), "addrs ") {
					c.first <- strings.TrimPrefix(sc.Text(), "addrs ")
					continue
				}
			}
			var s sample
			if json.Unmarshal(sc.Bytes(), &s) == nil {
				c.lines <- s
			}
		}
		close(c.lines)
	}()
	return c, nil
}

// stop closes the child's stdin (its signal to shut down) and waits.
func (c *childProc) stop() error {
	c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(60 * time.Second):
		_ = c.cmd.Process.Kill()
		return fmt.Errorf("%s did not stop within 60 s", c.cmd.Args[1:])
	}
}

func parent(duration, every, quiet time.Duration, seed int64, prof *profiles) (*report, error) {
	var profArgs []string
	if prof.dir != "" {
		if err := os.MkdirAll(prof.dir, 0o755); err != nil {
			return nil, err
		}
		profArgs = []string{"-heap-profiles", prof.dir, "-profile-every", prof.every.String()}
	}
	eng, err := startChild(append([]string{"-child", "engine", "-sample", every.String(), "-duration", duration.String(), "-quiet", quiet.String(), "-seed", fmt.Sprint(seed)}, profArgs...)...)
	if err != nil {
		return nil, err
	}
	var addrs string
	select {
	case addrs = <-eng.first:
	case <-time.After(30 * time.Second):
		eng.stop()
		return nil, fmt.Errorf("the engine child did not start")
	}
	admin, data, _ := strings.Cut(addrs, " ")
	dash, err := startChild(append([]string{"-child", "dash", "-sample", every.String(), "-admin", admin, "-data", data}, profArgs...)...)
	if err != nil {
		eng.stop()
		return nil, err
	}
	rep := &report{Duration: duration.String(), Sample: every.String(), Quiet: quiet.String(), Seed: seed}
	end := time.After(duration)
	engLines, dashLines := eng.lines, dash.lines
loop:
	for engLines != nil || dashLines != nil {
		select {
		case s, ok := <-engLines:
			if !ok {
				engLines = nil
				continue
			}
			rep.Samples = append(rep.Samples, s)
			rep.Faults = max(rep.Faults, s.Faults)
		case s, ok := <-dashLines:
			if !ok {
				dashLines = nil
				continue
			}
			rep.Samples = append(rep.Samples, s)
		case <-end:
			break loop
		}
	}
	// The dashboard first (it would only see the cluster vanish).
	errD := dash.stop()
	errE := eng.stop()
	for s := range dash.lines {
		rep.Samples = append(rep.Samples, s)
	}
	for s := range eng.lines {
		rep.Samples = append(rep.Samples, s)
	}
	if errD != nil || errE != nil {
		return rep, fmt.Errorf("children: dash %v, engine %v", errD, errE)
	}
	rep.summarise()
	return rep, nil
}

func (r *report) summarise() {
	for _, role := range []string{"engine", "dash"} {
		var at1m *sample
		su := summary{Role: role}
		var last sample
		for i := range r.Samples {
			s := r.Samples[i]
			if s.Role != role {
				continue
			}
			last = s
			su.GoroutinesMax = max(su.GoroutinesMax, s.Goroutines)
			if at1m == nil && s.TMs >= 60_000 {
				at1m = &r.Samples[i]
			}
			if at1m != nil {
				su.RSSMaxAfter1mMB = max(su.RSSMaxAfter1mMB, mb(s.RSS))
			}
		}
		if at1m == nil {
			continue
		}
		su.RSSAt1mMB, su.RSSEndMB = mb(at1m.RSS), mb(last.RSS)
		su.RSSGrowthPct = 100 * (su.RSSEndMB - su.RSSAt1mMB) / su.RSSAt1mMB
		su.RSSMaxGrowthPct = 100 * (su.RSSMaxAfter1mMB - su.RSSAt1mMB) / su.RSSAt1mMB
		su.LiveAt1mMB, su.LiveEndMB = mb(at1m.HeapLive), mb(last.HeapLive)
		if su.LiveAt1mMB > 0 {
			su.LiveGrowthPct = 100 * (su.LiveEndMB - su.LiveAt1mMB) / su.LiveAt1mMB
		}
		su.GoroutinesAt1m, su.GoroutinesEnd = at1m.Goroutines, last.Goroutines
		r.trends(role, &su, last.TMs)
		r.Summary = append(r.Summary, su)
	}
}

// trends fills su's slopes, trend growths and goroutine medians from the
// samples of role after the first minute (end: the last sample's time).
func (r *report) trends(role string, su *summary, end int64) {
	quiet, _ := time.ParseDuration(r.Quiet)
	quietFrom := end - quiet.Milliseconds() + 10_000 // the tail without faults, its first 10 s settling
	var rss, live []point
	var base, tail []float64
	var rssBase, liveBase, rssLast, liveLast []float64
	for _, s := range r.Samples {
		if s.Role != role || s.TMs < 60_000 {
			continue
		}
		m := float64(s.TMs) / 60_000
		rss = append(rss, point{m, mb(s.RSS)})
		live = append(live, point{m, mb(s.HeapLive)})
		if s.TMs <= 180_000 {
			base = append(base, float64(s.Goroutines))
			rssBase, liveBase = append(rssBase, mb(s.RSS)), append(liveBase, mb(s.HeapLive))
		}
		if s.TMs >= quietFrom {
			tail = append(tail, float64(s.Goroutines))
		}
		if s.TMs > end-180_000 {
			rssLast, liveLast = append(rssLast, mb(s.RSS)), append(liveLast, mb(s.HeapLive))
		}
	}
	su.RSSBaseMB, su.RSSLastMB = median(rssBase), median(rssLast)
	su.LiveBaseMB, su.LiveLastMB = median(liveBase), median(liveLast)
	if su.RSSBaseMB > 0 {
		su.RSSMedGrowthPct = 100 * (su.RSSLastMB - su.RSSBaseMB) / su.RSSBaseMB
	}
	if su.LiveBaseMB > 0 {
		su.LiveMedGrowPct = 100 * (su.LiveLastMB - su.LiveBaseMB) / su.LiveBaseMB
	}
	mins := float64(end)/60_000 - 1
	su.RSSSlopeMBMin, su.LiveSlopeMBMin = theilSen(rss), theilSen(live)
	if b := median(rssBase); b > 0 {
		su.RSSTrendPct = 100 * su.RSSSlopeMBMin * mins / b
	}
	if b := median(liveBase); b > 0 {
		su.LiveTrendPct = 100 * su.LiveSlopeMBMin * mins / b
	}
	su.GoroutinesBase, su.GoroutinesQuiet = int(median(base)), int(median(tail))
}

type point struct{ x, y float64 }

// theilSen is the median of the slopes between every two points.
func theilSen(ps []point) float64 {
	var slopes []float64
	for i := range ps {
		for j := i + 1; j < len(ps); j++ {
			if dx := ps[j].x - ps[i].x; dx > 0 {
				slopes = append(slopes, (ps[j].y-ps[i].y)/dx)
			}
		}
	}
	return median(slopes)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	xs = slices.Clone(xs)
	slices.Sort(xs)
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[len(xs)/2]
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

func (r *report) print(out io.Writer) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "t\tengine RSS MB\tengine heap MB\tengine live MB\tengine goroutines\tfaults\tparts\tdash RSS MB\tdash heap MB\tdash live MB\tdash goroutines\t")
	byT := map[int64][2]*sample{}
	var ts []int64
	for i := range r.Samples {
		s := &r.Samples[i]
		t := (s.TMs + 500) / 1000
		row, ok := byT[t]
		if !ok {
			ts = append(ts, t)
		}
		if s.Role == "engine" {
			row[0] = s
		} else {
			row[1] = s
		}
		byT[t] = row
	}
	for _, t := range ts {
		row := byT[t]
		cells := []string{fmt.Sprintf("%ds", t)}
		if e := row[0]; e != nil {
			cells = append(cells, fmt.Sprintf("%.1f", mb(e.RSS)), fmt.Sprintf("%.1f", mb(e.Heap)), fmt.Sprintf("%.1f", mb(e.HeapLive)), fmt.Sprint(e.Goroutines), fmt.Sprint(e.Faults), fmt.Sprint(e.Partitions))
		} else {
			cells = append(cells, "", "", "", "", "", "")
		}
		if d := row[1]; d != nil {
			cells = append(cells, fmt.Sprintf("%.1f", mb(d.RSS)), fmt.Sprintf("%.1f", mb(d.Heap)), fmt.Sprintf("%.1f", mb(d.HeapLive)), fmt.Sprint(d.Goroutines))
		} else {
			cells = append(cells, "", "", "", "")
		}
		fmt.Fprintln(w, strings.Join(cells, "\t")+"\t")
	}
	w.Flush()
	fmt.Fprintln(out)
	w = tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "process\tRSS at 1m MB\tRSS end MB\tRSS max after 1m MB\tgrowth end %\tgrowth max %\theap live at 1m MB\theap live end MB\tlive growth %\tgoroutines at 1m\tgoroutines end\tgoroutines max\t")
	for _, s := range r.Summary {
		fmt.Fprintf(w, "%s\t%.1f\t%.1f\t%.1f\t%+.1f\t%+.1f\t%.1f\t%.1f\t%+.1f\t%d\t%d\t%d\t\n", s.Role, s.RSSAt1mMB, s.RSSEndMB, s.RSSMaxAfter1mMB, s.RSSGrowthPct, s.RSSMaxGrowthPct, s.LiveAt1mMB, s.LiveEndMB, s.LiveGrowthPct, s.GoroutinesAt1m, s.GoroutinesEnd, s.GoroutinesMax)
	}
	w.Flush()
	fmt.Fprintln(out)
	w = tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "process\tRSS median 1-3m MB\tRSS median last 3m MB\tgrowth %\theap live median 1-3m MB\theap live median last 3m MB\tlive growth %\tRSS slope MB/min\tRSS trend %\theap live slope MB/min\theap live trend %\tgoroutines 1-3m\tgoroutines fault-free tail\t")
	for _, s := range r.Summary {
		fmt.Fprintf(w, "%s\t%.1f\t%.1f\t%+.1f\t%.1f\t%.1f\t%+.1f\t%+.3f\t%+.1f\t%+.3f\t%+.1f\t%d\t%d\t\n", s.Role, s.RSSBaseMB, s.RSSLastMB, s.RSSMedGrowthPct, s.LiveBaseMB, s.LiveLastMB, s.LiveMedGrowPct, s.RSSSlopeMBMin, s.RSSTrendPct, s.LiveSlopeMBMin, s.LiveTrendPct, s.GoroutinesBase, s.GoroutinesQuiet)
	}
	w.Flush()
	fmt.Fprintf(out, "\n%d faults over %s (seed %d), the last %s without faults; growth: the median of the last 3 minutes against that of minutes 1-3; trends: Theil-Sen slope after the first minute, and the growth it makes over the run against the median of minutes 1-3\n", r.Faults, r.Duration, r.Seed, r.Quiet)
}
