// Command payd is the merchant payments service: one binary with the
// subcommands serve, migrate, admin, listen, trigger, sandbox and version.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// version and commit are set at build time with -ldflags "-X
// main.version=... -X main.commit=..." (make image, make dist): their
// builds record no VCS information, so that they come out the same
// whatever the state of the checkout.
var version, commit = "dev", ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "payd:", err)
		os.Exit(1)
	}
}

const usage = `payd — merchant payments service

Usage:
  payd serve   [flags]   run the service (payd serve --help)
  payd migrate [flags]   apply schema migrations
  payd admin   ...       operator command-line client (payd admin --help)
  payd listen  [flags]   forward a shop's sandbox events to a local server
  payd trigger TYPE      cause a sandbox event of a type (payd trigger --list)
  payd sandbox reset     delete the shop's test data
  payd version           print the version
`

// run is main without the process: tests call it too. Help asked for with
// -h or --help is printed to stdout and is a success.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	err := runCommand(ctx, args, getenv, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

func runCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("a subcommand is required")
	}
	switch args[0] {
	case "serve":
		return runServe(ctx, args[1:], getenv, stdout, stderr)
	case "migrate":
		return runMigrate(ctx, args[1:], getenv, stdout, stderr)
	case "admin":
		return runAdmin(ctx, args[1:], getenv, stdout, stderr)
	case "listen":
		return runListen(ctx, args[1:], getenv, stdout, stderr)
	case "trigger":
		return runTrigger(ctx, args[1:], getenv, stdout, stderr)
	case "sandbox":
		return runSandbox(ctx, args[1:], getenv, stdout, stderr)
	case "version", "--version", "-v":
		info, ok := debug.ReadBuildInfo()
		fmt.Fprintln(stdout, versionLine(version, commit, info, ok))
		return nil
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown subcommand %q", args[0])
}
