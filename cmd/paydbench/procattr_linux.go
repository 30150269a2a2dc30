package main

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the kernel kill the server if this program
// dies without stopping it (SIGKILL, a crash), so no payd outlives a run.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// syncDisks has the kernel write out its dirty pages now, rather than
// during the measured runs.
func syncDisks() { syscall.Sync() }
