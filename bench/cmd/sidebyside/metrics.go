package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"ilinkdash/ilink/loadgen"
)

// procSnap is what this process looks like at one instant.
type procSnap struct {
	at       time.Time
	mem      runtime.MemStats
	userCPU  time.Duration
	sysCPU   time.Duration
	hwmReset bool
	hostBusy float64 // busy CPU seconds of the whole host (/proc/stat)
	minFlt   int64
	ctxSw    int64
}

// hostBusySeconds returns the busy CPU time of the whole machine, all CPUs
// (user+nice+system+irq+softirq+steal from /proc/stat, USER_HZ = 100).
func hostBusySeconds() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 9 || string(f[0]) != "cpu" {
		return 0
	}
	var busy int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} { // user nice system irq softirq steal
		v, _ := strconv.ParseInt(string(f[i]), 10, 64)
		busy += v
	}
	return float64(busy) / 100
}

// waitIdle waits up to max until the rest of the machine uses less than
// threshold (a fraction of all CPUs) over a 1 s window. It returns the last
// measured share.
func waitIdle(max time.Duration, threshold float64) (float64, bool) {
	deadline := time.Now().Add(max)
	ncpu := float64(runtime.NumCPU())
	for {
		b := hostBusySeconds()
		u0, s0 := cpuTimes()
		time.Sleep(time.Second)
		u1, s1 := cpuTimes()
		other := (hostBusySeconds() - b - (u1 - u0 + s1 - s0).Seconds()) / ncpu
		if other < threshold {
			return other, true
		}
		if time.Now().After(deadline) {
			return other, false
		}
	}
}

// resetHWM makes VmHWM restart from the current RSS (Linux: write 5 to
// /proc/self/clear_refs). It first returns freed memory to the OS so a
// previous phase's garbage does not count against the next one.
func resetHWM() bool {
	debug.FreeOSMemory()
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// vmHWM returns the process's peak resident set size in bytes (0 when unknown).
func vmHWM() int64 {
	return loadgen.ProcessMemory(0, loadgen.PeakRSS)
}

// minorFaults returns the process's minor page faults so far (a page of
// fresh memory touched first: about 2 µs of system time each on the 2-core
// VM) and its context switches (voluntary: a thread waited).
func minorFaults() (faults, switches int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return ru.Minflt, ru.Nvcsw + ru.Nivcsw
}

func cpuTimes() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// beginPhase collects garbage, resets the RSS peak and snapshots counters.
func beginPhase() procSnap {
	runtime.GC()
	s := procSnap{hwmReset: resetHWM()}
	runtime.ReadMemStats(&s.mem)
	s.userCPU, s.sysCPU = cpuTimes()
	s.minFlt, s.ctxSw = minorFaults()
	s.hostBusy = hostBusySeconds()
	s.at = time.Now()
	return s
}

// processDelta is the cost of one phase for one process.
type processDelta struct {
	Mallocs        uint64  `json:"mallocs"`
	AllocBytes     uint64  `json:"alloc_bytes"`
	AllocsPerRec   float64 `json:"allocs_per_rec"`
	BytesPerRec    float64 `json:"bytes_per_rec"`
	CPUUserSec     float64 `json:"cpu_user_s"`
	CPUSysSec      float64 `json:"cpu_sys_s"`
	CPUMicrosPerRc float64 `json:"cpu_us_per_rec"`
	GCCycles       uint32  `json:"gc_cycles"`
	GCPauseMs      float64 `json:"gc_pause_ms"`
	PeakRSS        int64   `json:"peak_rss_bytes"` // VmHWM since the phase began (whole process)
	HWMReset       bool    `json:"hwm_reset"`      // false: PeakRSS is since process start
	HeapInuseEnd   uint64  `json:"heap_inuse_end_bytes"`
	HeapLiveAfter  uint64  `json:"heap_live_after_gc_bytes"`
	MinorFaults    int64   `json:"minor_faults"`    // first touches of fresh pages
	CtxSwitches    int64   `json:"ctx_switches"`    // the process's threads' context switches
	WallSec        float64 `json:"wall_s"`          // from beginPhase to endPhase
	HostBusySec    float64 `json:"host_busy_cpu_s"` // whole machine, all processes
}

// endPhase returns the delta since b for n records. It reads the counters
// first, then forces a GC to measure what stays live.
func endPhase(b procSnap, n int64) processDelta {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	u, s := cpuTimes()
	host := hostBusySeconds()
	d := processDelta{
		WallSec:      time.Since(b.at).Seconds(),
		HostBusySec:  host - b.hostBusy,
		Mallocs:      m.Mallocs - b.mem.Mallocs,
		AllocBytes:   m.TotalAlloc - b.mem.TotalAlloc,
		CPUUserSec:   (u - b.userCPU).Seconds(),
		CPUSysSec:    (s - b.sysCPU).Seconds(),
		GCCycles:     m.NumGC - b.mem.NumGC,
		GCPauseMs:    float64(m.PauseTotalNs-b.mem.PauseTotalNs) / 1e6,
		PeakRSS:      vmHWM(),
		HWMReset:     b.hwmReset,
		HeapInuseEnd: m.HeapInuse,
	}
	if n > 0 {
		d.AllocsPerRec = float64(d.Mallocs) / float64(n)
		d.BytesPerRec = float64(d.AllocBytes) / float64(n)
		d.CPUMicrosPerRc = (d.CPUUserSec + d.CPUSysSec) * 1e6 / float64(n)
	}
	flt, sw := minorFaults()
	d.MinorFaults, d.CtxSwitches = flt-b.minFlt, sw-b.ctxSw
	runtime.GC()
	runtime.ReadMemStats(&m)
	d.HeapLiveAfter = m.HeapAlloc
	return d
}

// phaseResult is one measured phase (produce or consume) of one stack.
type phaseResult struct {
	Phase      string  `json:"phase"`
	Records    int64   `json:"records"`
	ValueBytes int64   `json:"value_bytes"`
	Seconds    float64 `json:"seconds"`
	RecPerSec  float64 `json:"rec_per_s"`
	MBPerSec   float64 `json:"mb_per_s"` // value bytes, 10^6
	Errors     int64   `json:"errors"`
	FirstError string  `json:"first_error,omitempty"`
	Verified   string  `json:"verified,omitempty"`
	// Client is this process. In in-process mode it holds the engine too.
	Client processDelta `json:"client"`
	// Server is the engine process in 2-process mode.
	Server *processDelta `json:"server,omitempty"`
	// OtherCPU is the share of all CPUs used by processes other than the
	// measured ones during the phase: noise from the rest of the machine.
	OtherCPU float64 `json:"other_cpu_share"`
	// E2E holds the latency results of an e2e phase (--mode e2e).
	E2E *e2eResult `json:"e2e,omitempty"`
}

// setOtherCPU computes OtherCPU from the host counters.
func (r *phaseResult) setOtherCPU() {
	c := &r.Client
	if c.WallSec <= 0 {
		return
	}
	own := c.CPUUserSec + c.CPUSysSec
	if r.Server != nil {
		own += r.Server.CPUUserSec + r.Server.CPUSysSec
	}
	r.OtherCPU = max(0, (c.HostBusySec-own)/(c.WallSec*float64(runtime.NumCPU())))
}

func (r *phaseResult) finish(elapsed time.Duration, size int) {
	r.Seconds = elapsed.Seconds()
	r.ValueBytes = r.Records * int64(size)
	if r.Seconds > 0 {
		r.RecPerSec = float64(r.Records) / r.Seconds
		r.MBPerSec = float64(r.ValueBytes) / r.Seconds / 1e6
	}
}

// consumeCheck verifies consumed records: per-partition offsets contiguous
// from 0, every value byte-identical to a produced pool value, and each pool
// value seen exactly as often as it was produced. next is indexed by
// partition (a map lookup and store per record cost more than the rest of
// the check, in both stacks alike).
type consumeCheck struct {
	pool   *valuePool
	next   []int64 // next offset per partition
	counts []int64
	gaps   int64
	bad    int64
	n      int64
}

func newConsumeCheck(pool *valuePool) *consumeCheck {
	return &consumeCheck{pool: pool, counts: make([]int64, poolSize)}
}

func (c *consumeCheck) record(partition int32, offset int64, v []byte) {
	c.n++
	if partition < 0 {
		c.bad++
		return
	}
	if int(partition) >= len(c.next) {
		c.next = append(c.next, make([]int64, int(partition)+1-len(c.next))...)
	}
	if c.next[partition] != offset {
		c.gaps++
	}
	c.next[partition] = offset + 1
	i, ok := c.pool.index(v)
	if !ok {
		c.bad++
		return
	}
	c.counts[i]++
}

// partitions returns how many partitions records came from.
func (c *consumeCheck) partitions() int {
	n := 0
	for _, next := range c.next {
		if next > 0 {
			n++
		}
	}
	return n
}

func (c *consumeCheck) verdict(want int) (string, error) {
	if c.gaps > 0 || c.bad > 0 {
		return "", fmt.Errorf("consume check: %d offset gaps, %d unknown values in %d records", c.gaps, c.bad, c.n)
	}
	if c.n != int64(want) {
		return "", fmt.Errorf("consume check: %d records, want %d", c.n, want)
	}
	exp := expectedCounts(want)
	for i := range exp {
		if exp[i] != c.counts[i] {
			return "", fmt.Errorf("consume check: value %d seen %d times, produced %d times", i, c.counts[i], exp[i])
		}
	}
	return fmt.Sprintf("%d records in %d partitions, offsets contiguous from 0, every value matched", c.n, c.partitions()), nil
}
