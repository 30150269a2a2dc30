package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The figures below come from Linux's /proc. Elsewhere they read as zero and
// the report says "n/a" rather than failing the run.

// clockTicks is USER_HZ, the unit of CPU times in /proc: 100 on every
// Linux architecture Go supports.
const clockTicks = 100

// CPUUse splits the machine's CPU time during a phase: the server process,
// the PostgreSQL backends that served it (by application_name), this
// program (the load generator or the floor's driver), and the rest —
// whatever else the machine runs, which on a shared machine is noise.
type CPUUse struct {
	ServerMsPerOp   float64 `json:"server_ms_per_op,omitempty"`
	DatabaseMsPerOp float64 `json:"database_ms_per_op,omitempty"`
	BenchMsPerOp    float64 `json:"bench_ms_per_op"`
	OtherMsPerOp    float64 `json:"other_ms_per_op"`
	MachineBusyPct  float64 `json:"machine_busy_pct"`
	// StealPct is time the hypervisor gave to other guests: on a shared
	// virtual machine it is noise the figures cannot show otherwise.
	StealPct float64 `json:"steal_pct"`
}

type cpuSnap struct {
	busy, steal, total  uint64 // machine, in ticks over all CPUs
	server, self        uint64 // process utime+stime, in ticks
	database            map[int]uint64
	serverOK, machineOK bool
}

// takeCPU reads the machine's and the processes' CPU times; dbPIDs are the
// database backends to count (none for SQLite, which runs inside payd).
func takeCPU(serverPID int, dbPIDs []int) cpuSnap {
	var s cpuSnap
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		s.busy, s.steal, s.total, s.machineOK = parseMachineStat(string(b))
	}
	if b, err := os.ReadFile("/proc/self/stat"); err == nil {
		s.self, _ = parseProcStat(string(b))
	}
	if serverPID > 0 {
		s.server, s.serverOK = procTicks(serverPID)
	}
	if len(dbPIDs) > 0 {
		s.database = map[int]uint64{}
		for _, pid := range dbPIDs {
			if t, ok := procTicks(pid); ok {
				s.database[pid] = t
			}
		}
	}
	return s
}

func procTicks(pid int) (uint64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	return parseProcStat(string(b))
}

// cpuBetween turns two snapshots into CPU per operation. A backend first
// seen at the end started during the phase and counts in full.
func cpuBetween(a, b cpuSnap, ops int) CPUUse {
	var u CPUUse
	if !a.machineOK || !b.machineOK || ops == 0 {
		return u
	}
	perOp := func(ticks uint64) float64 {
		return float64(ticks) * 1000 / clockTicks / float64(ops)
	}
	busy := b.busy - a.busy
	if total := b.total - a.total; total > 0 {
		u.MachineBusyPct = 100 * float64(busy) / float64(total)
		u.StealPct = 100 * float64(b.steal-a.steal) / float64(total)
	}
	self := b.self - a.self
	var server, database uint64
	if a.serverOK && b.serverOK {
		server = b.server - a.server
		u.ServerMsPerOp = perOp(server)
	}
	for pid, t := range b.database {
		if t0, ok := a.database[pid]; ok && t0 <= t {
			database += t - t0
		} else if !ok {
			database += t
		}
	}
	u.DatabaseMsPerOp = perOp(database)
	u.BenchMsPerOp = perOp(self)
	if known := self + server + database; busy > known {
		u.OtherMsPerOp = perOp(busy - known)
	}
	return u
}

// parseMachineStat reads the aggregate "cpu" line of /proc/stat (user nice
// system idle iowait irq softirq steal ...): busy is the time the CPUs
// worked for this machine, steal the time the hypervisor took away.
func parseMachineStat(s string) (busy, steal, total uint64, ok bool) {
	line, _, _ := strings.Cut(s, "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, 0, false
	}
	for i, v := range f[1:] {
		if i >= 8 { // guest and guest_nice are already inside user and nice
			break
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, 0, 0, false
		}
		total += n
		switch i {
		case 3, 4: // idle, iowait
		case 7:
			steal = n
		default:
			busy += n
		}
	}
	return busy, steal, total, true
}

// parseProcStat returns utime+stime of /proc/<pid>/stat. The command name
// may hold spaces and parentheses, so fields are counted after the last
// ')'.
func parseProcStat(s string) (uint64, bool) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, false
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return ut + st, true
}

// peakRSS returns VmHWM and VmRSS of a process in MiB.
func peakRSS(pid int) (hwm, rss float64, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, false
	}
	return parseStatusMemory(string(b))
}

func parseStatusMemory(s string) (hwm, rss float64, ok bool) {
	var gotHWM bool
	for _, line := range strings.Split(s, "\n") {
		name, rest, found := strings.Cut(line, ":")
		if !found {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			continue
		}
		kb, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			continue
		}
		switch name {
		case "VmHWM":
			hwm, gotHWM = kb/1024, true
		case "VmRSS":
			rss = kb / 1024
		}
	}
	return hwm, rss, gotHWM
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel(cpuinfo string) string {
	sc := bufio.NewScanner(strings.NewReader(cpuinfo))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// memTotalGiB reads MemTotal of /proc/meminfo.
func memTotalGiB() float64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 {
				kb, _ := strconv.ParseFloat(f[0], 64)
				return kb / 1024 / 1024
			}
		}
	}
	return 0
}

// fsType names the file system that holds dir, from the longest matching
// mount point in /proc/mounts: SQLite's figures mean little on tmpfs,
// where fsync is free.
func fsType(dir string) string {
	b, err := os.ReadFile("/proc/mounts")
	if err != nil {
		return ""
	}
	abs, err := filepath.EvalSymlinks(dir)
	if err != nil {
		abs = dir
	}
	return fsTypeFrom(string(b), abs)
}

func fsTypeFrom(mounts, dir string) string {
	best, typ := -1, ""
	for _, line := range strings.Split(mounts, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		mp := f[1]
		if dir == mp || strings.HasPrefix(dir, strings.TrimSuffix(mp, "/")+"/") {
			if len(mp) > best {
				best, typ = len(mp), f[2]+" on "+mp
			}
		}
	}
	return typ
}
