//go:build linux

// Command paydcitus runs a command beside a throwaway Citus cluster of its
// own: a coordinator and two workers on free loopback ports, in a
// temporary directory, never the machine's PostgreSQL. The command gets
// the coordinator's URL in PAYD_TEST_CITUS_URL; when it ends, the cluster
// is stopped and its files removed. Without a command the cluster stays up
// until interrupted, for a developer's own session.
//
//	go run ./cmd/paydcitus -- go test ./internal/storetest/
//
// The Citus extension must be installed (scripts/install-citus builds it
// from the vendored release).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/paydhq/payd/internal/pgserver"
)

func main() {
	workers := flag.Int("workers", 2, "worker nodes")
	keep := flag.Bool("keep", false, "keep the cluster's files (logs) after it stops")
	flag.Parse()
	os.Exit(run(*workers, *keep, flag.Args()))
}

func run(workers int, keep bool, args []string) int {
	dir, err := os.MkdirTemp("", "paydcitus-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "paydcitus:", err)
		return 1
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := pgserver.StartCitus(ctx, dir, workers)
	if err != nil {
		fmt.Fprintln(os.Stderr, "paydcitus:", err)
		return 1
	}
	defer c.Close()
	fmt.Fprintf(os.Stderr, "paydcitus: coordinator %s, %d workers, files in %s\n", c.URL(), len(c.Workers), dir)
	if len(args) == 0 {
		<-ctx.Done()
		return 0
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "PAYD_TEST_CITUS_URL="+c.URL())
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintln(os.Stderr, "paydcitus:", err)
		return 1
	}
	return 0
}
