// Command bandwidth measures what the real dashboard writes to its
// terminal (issue 12, "SSH-grade terminal use"): it builds nothing itself,
// runs the given ilinkdash binary in a pseudo-terminal (creack/pty) whose
// output feeds a terminal emulator (charmbracelet/x/vt), and prints
//
//   - bytes/s written to the terminal, at 120×40 and 80×24, in the
//     default mode and with --low-bandwidth, for each view idle, the tail
//     at 200 and 2,000 records/s, the tail paused (at 2,000 records/s)
//     and a publish running;
//   - the key-to-screen latency of space (pause, resume), a tab switch and
//     j, with the terminal's output through a relay that passes 8,000 B/s
//     (a 64 kbit/s link) and holds at most 64 KiB (a socket buffer), so a
//     program that writes more than the link carries is made to wait, as
//     it would be over SSH;
//   - a pause of 10 s at 2,000 records/s: what the tail counted against
//     what was published.
//
// It prints figures only; nothing here is a test. Run it through
// screenshots/measure.sh bandwidth (which builds the binary), or:
//
//	go build -o /tmp/ilinkdash . && (cd screenshots/bandwidth && go run . -bin /tmp/ilinkdash)
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
)

var (
	bin     = flag.String("bin", "", "the ilinkdash binary to measure (required)")
	secs    = flag.Duration("window", 8*time.Second, "measuring window per state")
	settle  = flag.Duration("settle", 2*time.Second, "wait before each window")
	sizes   = flag.String("sizes", "120x40,80x24", "terminal sizes")
	modes   = flag.String("modes", "default,low", "modes: default, low (--low-bandwidth)")
	only    = flag.String("only", "bytes,latency,pause", "parts: bytes, latency, pause")
	link    = flag.Int("link", 8000, "relay bandwidth for the latency part, bytes/s")
	repeats = flag.Int("repeats", 5, "latency probes per key")
)

func main() {
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "bandwidth: -bin is required")
		os.Exit(2)
	}
	work, err := os.MkdirTemp("", "ilinkdash-bandwidth-")
	check(err)
	defer os.RemoveAll(work)
	eng := startEngine(work)
	defer eng.stop()
	run(eng, "publish", "BW", "--count", "1", "--size", "100", "--partitions", "6", "--addr", eng.data)
	for _, topic := range []string{"BW.A", "BW.B"} { // so that j has a row to go to
		run(eng, "publish", topic, "--count", "1", "--size", "100", "--partitions", "1", "--addr", eng.data)
	}
	fmt.Printf("# ilinkdash bandwidth · %s · engine data %s admin %s\n", time.Now().UTC().Format(time.RFC3339), eng.data, eng.admin)
	fmt.Printf("# window %v after %v settle; bytes are what the program wrote to the pty\n", *secs, *settle)
	parts := strings.Split(*only, ",")
	if slices.Contains(parts, "bytes") {
		for _, sz := range strings.Split(*sizes, ",") {
			w, h := parseSize(sz)
			for _, mode := range strings.Split(*modes, ",") {
				measureBytes(eng, work, w, h, mode == "low")
			}
		}
	}
	if slices.Contains(parts, "latency") {
		for _, mode := range strings.Split(*modes, ",") {
			measureLatency(eng, work, 120, 40, mode == "low")
		}
	}
	if slices.Contains(parts, "pause") {
		measurePause(eng, work, true)
	}
}

// ---- the engine and publishers ----

type engineProc struct {
	cmd         *exec.Cmd
	data, admin string
	pubs        []*exec.Cmd
}

func startEngine(work string) *engineProc {
	cmd := exec.Command(*bin, "engine")
	cmd.Env = env(work)
	out, err := cmd.StdoutPipe()
	check(err)
	cmd.Stderr = io.Discard
	check(cmd.Start())
	e := &engineProc{cmd: cmd}
	sc := bufio.NewScanner(out)
	var datas []string
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// node N data ADDR admin ADDR
		if len(f) >= 6 && f[0] == "node" {
			datas = append(datas, f[3])
			if f[1] == "1" {
				e.admin = f[5]
			}
			if len(datas) == 3 {
				break
			}
		}
	}
	go io.Copy(io.Discard, out)
	if len(datas) == 0 {
		fail("the engine printed no node line")
	}
	e.data = strings.Join(datas, ",")
	return e
}

func (e *engineProc) stop() {
	e.stopPublishers()
	e.cmd.Process.Kill()
	e.cmd.Wait()
}

// publish starts a background publisher of rate records/s on BW.
func (e *engineProc) publish(rate int) {
	cmd := exec.Command(*bin, "publish", "BW", "--rate", strconv.Itoa(rate), "--count", strconv.Itoa(rate*3600), "--size", "100", "--addr", e.data)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	check(cmd.Start())
	e.pubs = append(e.pubs, cmd)
}

func (e *engineProc) stopPublishers() {
	for _, p := range e.pubs {
		p.Process.Kill()
		p.Wait()
	}
	e.pubs = nil
}

func run(e *engineProc, args ...string) {
	cmd := exec.Command(*bin, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		fail(fmt.Sprintf("%v: %v\n%s", args, err, out))
	}
}

func env(work string) []string {
	keep := []string{}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "ILINKDASH_") || strings.HasPrefix(kv, "NO_COLOR=") || strings.HasPrefix(kv, "TERM=") || strings.HasPrefix(kv, "XDG_") {
			continue
		}
		keep = append(keep, kv)
	}
	return append(keep, "TERM=xterm-256color", "COLORTERM=truecolor",
		"XDG_CONFIG_HOME="+filepath.Join(work, "config"), "XDG_STATE_HOME="+filepath.Join(work, "state"))
}

// ---- the terminal ----

// term is the dashboard in a pty, its output counted and fed to an
// emulator, optionally through a bandwidth-limited relay.
type term struct {
	cmd   *exec.Cmd
	pty   *os.File
	bytes atomic.Int64 // read from the pty (written by the program)

	mu  sync.Mutex
	emu *vt.Emulator

	relay  chan []byte // nil: no relay
	done   chan struct{}
	frames func(n int) // sees every read (frame sizes)
}

const relayBuffer = 64 << 10

func startDash(e *engineProc, work string, w, h int, low bool, linkBps int) *term {
	args := []string{"--addr", e.data, "--admin", e.admin}
	if low {
		args = append(args, "--low-bandwidth")
	}
	cmd := exec.Command(*bin, args...)
	cmd.Env = env(work)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(w), Rows: uint16(h)})
	check(err)
	t := &term{cmd: cmd, pty: f, emu: vt.NewEmulator(w, h), done: make(chan struct{})}
	// The emulator answers the program's queries (colours, keyboard):
	// back to the program, as a terminal would.
	go io.Copy(f, t.emu)
	if linkBps > 0 {
		// A relay of relayBuffer bytes: when it is full nobody reads the
		// pty, its buffer fills, and the program's writes block.
		t.relay = make(chan []byte, relayBuffer/512)
		go t.pace(linkBps)
	}
	go t.read()
	return t
}

func (t *term) read() {
	defer close(t.done)
	buf := make([]byte, 512)
	for {
		n, err := t.pty.Read(buf)
		if n > 0 {
			t.bytes.Add(int64(n))
			if t.frames != nil {
				t.frames(n)
			}
			if t.relay != nil {
				t.relay <- slices.Clone(buf[:n])
			} else {
				t.feed(buf[:n])
			}
		}
		if err != nil {
			return
		}
	}
}

// pace hands the relay's bytes to the emulator at bps bytes/s, in 100-byte
// steps.
func (t *term) pace(bps int) {
	start, sent := time.Now(), 0
	for b := range t.relay {
		for len(b) > 0 {
			n := min(100, len(b))
			sent += n
			if due := start.Add(time.Duration(sent) * time.Second / time.Duration(bps)); time.Until(due) > 0 {
				time.Sleep(time.Until(due))
			} else if time.Since(due) > 100*time.Millisecond {
				// The link was idle: it does not bank bandwidth.
				start, sent = time.Now(), n
			}
			t.feed(b[:n])
			b = b[n:]
		}
	}
}

func (t *term) feed(b []byte) {
	t.mu.Lock()
	t.emu.Write(b)
	t.mu.Unlock()
}

func (t *term) screen() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.emu.String()
}

func (t *term) keys(s ...string) {
	for _, k := range s {
		switch k {
		case "enter":
			k = "\r"
		case "esc":
			k = "\x1b"
		case "space":
			k = " "
		case "tab":
			k = "\t"
		case "ctrl+x":
			k = "\x18"
		case "ctrl+u":
			k = "\x15"
		}
		t.pty.WriteString(k)
		time.Sleep(30 * time.Millisecond) // a key at a time, as typed
	}
}

func (t *term) typeText(s string) {
	for _, r := range s {
		t.keys(string(r))
	}
}

// waitFor polls the screen until it contains every text; it returns how
// long that took.
func (t *term) waitFor(limit time.Duration, texts ...string) (time.Duration, bool) {
	t0 := time.Now()
	for {
		s := t.screen()
		ok := true
		for _, x := range texts {
			ok = ok && strings.Contains(s, x)
		}
		if ok {
			return time.Since(t0), true
		}
		if time.Since(t0) > limit {
			return time.Since(t0), false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (t *term) mustSee(texts ...string) {
	if _, ok := t.waitFor(30*time.Second, texts...); !ok {
		fail(fmt.Sprintf("timed out waiting for %q; screen:\n%s", texts, t.screen()))
	}
}

// rate is the bytes/s written over the window, after the settle time.
func (t *term) rate() float64 {
	time.Sleep(*settle)
	a := t.bytes.Load()
	t0 := time.Now()
	time.Sleep(*secs)
	return float64(t.bytes.Load()-a) / time.Since(t0).Seconds()
}

func (t *term) quit() {
	t.keys("esc", "esc", "ctrl+x")
	t.pty.WriteString("\x03") // ctrl+c
	done := make(chan struct{})
	go func() { t.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.cmd.Process.Kill()
		<-done
	}
	t.pty.Close()
	if t.relay != nil {
		close(t.relay)
	}
}

// ---- the parts ----

func modeName(low bool) string {
	if low {
		return "--low-bandwidth"
	}
	return "default"
}

func measureBytes(e *engineProc, work string, w, h int, low bool) {
	fmt.Printf("\n## bytes/s at %dx%d, %s\n", w, h, modeName(low))
	t := startDash(e, work, w, h, low, 0)
	defer t.quit()
	t.mustSee("Alerts")
	row := func(state string, bps float64) { fmt.Printf("  %-34s %8.0f B/s\n", state, bps) }
	for _, v := range []struct{ key, name, text string }{
		{"1", "Overview", "Alerts"}, {"2", "Topics", "BW"}, {"3", "Groups", "Groups"},
		{"4", "Cluster", "QM1"}, {"5", "Queues", "Queues"}, {"6", "Tail (nothing tailed)", "Nothing tailed yet"},
		{"7", "Publish (form)", "Publish"},
	} {
		t.keys(v.key)
		t.mustSee(v.text)
		row(v.name+" idle", t.rate())
	}
	if low {
		t.keys("esc")
	}
	t.keys("esc", "6", ":")
	t.typeText("tail BW")
	t.keys("enter")
	t.mustSee("Tail BW", "● live")
	e.publish(200)
	row("Tail at 200 rec/s", t.rate())
	e.stopPublishers()
	e.publish(2000)
	row("Tail at 2,000 rec/s", t.rate())
	if os.Getenv("BW_FRAMES") != "" {
		var mu sync.Mutex
		var sizes []int
		cur, last := 0, time.Now()
		t.frames = func(n int) {
			mu.Lock()
			defer mu.Unlock()
			if time.Since(last) > 20*time.Millisecond && cur > 0 {
				sizes = append(sizes, cur)
				cur = 0
			}
			cur += n
			last = time.Now()
		}
		time.Sleep(5 * time.Second)
		mu.Lock()
		fmt.Printf("  frames at 2,000 rec/s: %v\n", sizes)
		t.frames = nil
		mu.Unlock()
	}
	t.keys("space")
	t.mustSee("PAUSED")
	row("Tail paused (2,000 rec/s published)", t.rate())
	t.keys("space")
	t.mustSee("● live")
	e.stopPublishers()
	// A publish running from the dashboard: 1,000 records/s.
	t.keys(":")
	t.typeText("publish BW")
	t.keys("enter")
	t.mustSee("Publish to BW")
	t.keys("tab", "tab", "tab", "tab")
	t.typeText("100000000")
	t.keys("tab")
	t.typeText("1000")
	t.keys("enter")
	t.mustSee("● running")
	row("Publish running (1,000 rec/s)", t.rate())
	t.keys("ctrl+x")
}

func measureLatency(e *engineProc, work string, w, h int, low bool) {
	fmt.Printf("\n## key to screen through a %d B/s relay (%d KiB buffer) at %dx%d, %s, tail at 2,000 rec/s\n", *link, relayBuffer>>10, w, h, modeName(low))
	t := startDash(e, work, w, h, low, *link)
	defer t.quit()
	t.mustSee("Alerts")
	e.publish(2000)
	defer e.stopPublishers()
	lat := map[string][]time.Duration{}
	probe := func(name string, keys []string, texts ...string) {
		time.Sleep(1500 * time.Millisecond) // let the screen settle between probes
		if os.Getenv("BW_DEBUG") != "" {
			fmt.Fprintf(os.Stderr, "--- before %s:\n%s\n", name, t.screen())
		}
		t0 := time.Now()
		t.keys(keys...)
		d, ok := t.waitFor(30*time.Second, texts...)
		d = time.Since(t0) - 30*time.Millisecond*time.Duration(len(keys)-1)
		if !ok {
			d = -1
		}
		lat[name] = append(lat[name], d)
	}
	for i := 0; i < *repeats; i++ {
		t.keys("6")
		t.mustSee("Tail")
		if i == 0 {
			t.keys(":")
			t.typeText("tail BW")
			t.keys("enter")
		} else {
			t.keys("r")
		}
		t.mustSee("Tail BW", "● live")
		time.Sleep(2 * time.Second)
		probe("space (pause → PAUSED shown)", []string{"space"}, "PAUSED")
		probe("space (resume → ● live shown)", []string{"space"}, "● live")
		probe("tab switch (6 → 2, Topics shown)", []string{"2"}, "END OFFSETS")
		probe("j (Topics cursor → row 2 shown)", []string{"j"}, "2/3")
		t.keys("k")
	}
	names := make([]string, 0, len(lat))
	for n := range lat {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ds := lat[n]
		var parts []string
		for _, d := range ds {
			if d < 0 {
				parts = append(parts, "timeout")
			} else {
				parts = append(parts, fmt.Sprintf("%d", d.Milliseconds()))
			}
		}
		sorted := slices.Clone(ds)
		slices.SortFunc(sorted, func(a, b time.Duration) int { // a timeout is the slowest
			if a < 0 {
				a = time.Hour
			}
			if b < 0 {
				b = time.Hour
			}
			return int(a - b)
		})
		ms := func(d time.Duration) string {
			if d < 0 {
				return "timeout"
			}
			return fmt.Sprintf("%d ms", d.Milliseconds())
		}
		fmt.Printf("  %-36s median %8s  max %8s   (%s ms)\n", n, ms(sorted[len(sorted)/2]), ms(sorted[len(sorted)-1]), strings.Join(parts, " "))
	}
}

var totalRE = regexp.MustCompile(`([0-9,]+) total`)

func total(s string) int64 {
	m := totalRE.FindStringSubmatch(s)
	if m == nil {
		return -1
	}
	n, _ := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
	return n
}

// measurePause: 2,000 records/s for a fixed count, a 10 s pause in the
// middle; the tail's total must equal what was published, nothing
// dropped, and the waiting count must have tracked the backlog.
func measurePause(e *engineProc, work string, low bool) {
	const rate, count = 2000, 40000 // 20 s of publishing
	fmt.Printf("\n## pause 10 s at %d rec/s (%d records), 120x40, %s\n", rate, count, modeName(low))
	t := startDash(e, work, 120, 40, low, 0)
	defer t.quit()
	t.mustSee("Alerts")
	t.keys("6", ":")
	t.typeText("tail BW")
	t.keys("enter")
	t.mustSee("Tail BW", "● live")
	time.Sleep(time.Second)
	cmd := exec.Command(*bin, "publish", "BW", "--rate", strconv.Itoa(rate), "--count", strconv.Itoa(count), "--size", "100", "--addr", e.data)
	out, err := cmd.StdoutPipe()
	check(err)
	check(cmd.Start())
	go io.Copy(io.Discard, out)
	time.Sleep(4 * time.Second)
	t.keys("space")
	t.mustSee("PAUSED")
	atPause := total(t.screen())
	time.Sleep(10 * time.Second)
	s := t.screen()
	waiting := regexp.MustCompile(`([0-9,]+) newer waiting`).FindStringSubmatch(s)
	duringPause := total(s)
	t.keys("space")
	t.mustSee("● live")
	check(cmd.Wait())
	want := fmt.Sprintf("%s total", thousands(count))
	d, ok := t.waitFor(60*time.Second, want)
	final := t.screen()
	fmt.Printf("  total when paused %d, after 10 s paused %d (waiting shown: %v)\n", atPause, duringPause, waiting)
	fmt.Printf("  after resume: %q reached %v (in %v after the publisher ended)\n", want, ok, d.Round(time.Millisecond))
	time.Sleep(3 * time.Second)
	final = t.screen()
	dropped := int64(0)
	if m := regexp.MustCompile(`dropped ([0-9,]+)`).FindStringSubmatch(final); m != nil {
		dropped, _ = strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
	}
	buf := regexp.MustCompile(`buffer ([0-9,/]+)`).FindStringSubmatch(final)
	fmt.Printf("  3 s later: total %d (published %d); dropped %d = total - buffer (%v): only the buffer's bound, nothing by the pause\n", total(final), count, dropped, buf[1:])
}

// ---- helpers ----

func parseSize(s string) (int, int) {
	w, h, ok := strings.Cut(s, "x")
	if !ok {
		fail("size " + s)
	}
	wi, err1 := strconv.Atoi(w)
	hi, err2 := strconv.Atoi(h)
	if err1 != nil || err2 != nil {
		fail("size " + s)
	}
	return wi, hi
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func check(err error) {
	if err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "bandwidth:", msg)
	os.Exit(1)
}
