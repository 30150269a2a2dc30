//go:build !linux

package main

import "os/exec"

// setParentDeathSignal has no portable equivalent; stop still ends the
// server on every normal exit path.
func setParentDeathSignal(cmd *exec.Cmd) {}

// syncDisks is Linux's sync(2) only: elsewhere the kernel's writeback may
// overlap the first run.
func syncDisks() {}
