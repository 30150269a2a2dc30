package main

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// machine describes where the figures were taken.
type machine struct {
	CPUs       int
	GOMAXPROCS int
	CPUModel   string
	GoVersion  string
	OSArch     string
	LoadAvg    string
}

func describeMachine() machine {
	m := machine{
		CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version(),
		OSArch: runtime.GOOS + "/" + runtime.GOARCH, CPUModel: "unknown", LoadAvg: "unknown",
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		if c := cpuModel(string(b)); c != "" {
			m.CPUModel = c
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			m.LoadAvg = strings.Join(f[:3], " ")
		}
	}
	return m
}

func cpuModel(cpuinfo string) string {
	for line := range strings.SplitSeq(cpuinfo, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// cpuSnap is CPU time so far: this process's, and the whole machine's busy
// and total time, all in clock ticks. On a shared machine the difference
// between the two says how much of the CPU others took during a run.
type cpuSnap struct {
	ok                bool
	at                time.Time
	self, busy, total float64
}

// userHZ is the kernel's clock tick for /proc times; 100 on every Linux
// build that matters here.
const userHZ = 100

// readCPU reads /proc; where there is none, the snapshot is empty and the
// run reports no CPU use.
func readCPU() cpuSnap {
	s := cpuSnap{at: time.Now()}
	self, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return s
	}
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: utime and stime are the 12th and 13th after it.
	rest := string(self)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return s
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	s.self = ut + st
	line, _, _ := strings.Cut(string(stat), "\n")
	cols := strings.Fields(line)
	if len(cols) < 5 || cols[0] != "cpu" {
		return s
	}
	for i, c := range cols[1:] {
		v, _ := strconv.ParseFloat(c, 64)
		s.total += v
		// idle and iowait are the 4th and 5th columns; guest time is
		// already counted in user.
		if i != 3 && i != 4 && i < 8 {
			s.busy += v
		}
		if i >= 8 {
			s.total -= v
		}
	}
	s.ok = true
	return s
}

// cores returns the cores this process and the whole machine kept busy on
// average between a and b.
func (a cpuSnap) cores(b cpuSnap) (self, machine float64) {
	wall := b.at.Sub(a.at).Seconds()
	if !a.ok || !b.ok || wall <= 0 {
		return 0, 0
	}
	self = (b.self - a.self) / userHZ / wall
	if dt := b.total - a.total; dt > 0 {
		machine = (b.busy - a.busy) / dt * float64(runtime.NumCPU())
	}
	return self, machine
}
