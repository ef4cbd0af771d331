package loadgen

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is one unit of /proc/PID/stat's CPU times (USER_HZ = 100 on Linux).
const clockTick = 10 * time.Millisecond

// procFile is /proc/PID/name, /proc/self/name for pid 0.
func procFile(pid int, name string) ([]byte, error) {
	p := "self"
	if pid != 0 {
		p = strconv.Itoa(pid)
	}
	return os.ReadFile("/proc/" + p + "/" + name)
}

// ProcessCPU is the user plus system CPU time of process pid (0: this
// process), from /proc/PID/stat; 0 where that is unavailable (not Linux, the
// process gone). Load-test figures report it as CPU per record.
func ProcessCPU(pid int) time.Duration {
	b, err := procFile(pid, "stat")
	if err != nil {
		return 0
	}
	// "pid (comm) state …": comm may hold spaces and parentheses, so the
	// fields are counted from the last ')'; utime and stime are fields 14
	// and 15, the 12th and 13th after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(ut+st) * clockTick
}

// Memory figures of /proc/PID/status that ProcessMemory reads.
const (
	RSS     = "VmRSS" // resident set size now
	PeakRSS = "VmHWM" // the peak resident set size ("high water mark")
)

// ProcessMemory is the figure field (RSS or PeakRSS) of process pid (0:
// this process) in bytes, from /proc/PID/status; 0 where unavailable.
func ProcessMemory(pid int, field string) int64 {
	b, err := procFile(pid, "status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, field+":")
		if !ok {
			continue
		}
		f := strings.Fields(rest) // "  12345 kB"
		if len(f) == 0 {
			return 0
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}
