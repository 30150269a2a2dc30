package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// envFlags is a flag set whose every flag has an environment twin
// PAYD_<NAME> (dashes become underscores) that supplies its default.
type envFlags struct {
	*flag.FlagSet
	getenv func(string) string
	// usage writes the command's help; nil writes every flag with its
	// default.
	usage func(w io.Writer)
	// stdout receives the help asked for with -h or --help.
	stdout io.Writer
}

func newFlags(name string, getenv func(string) string, stdout io.Writer) *envFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	f := &envFlags{FlagSet: fs, getenv: getenv, stdout: stdout}
	// The flag package prints nothing itself: Parse says what went wrong,
	// and where the help goes depends on whether it was asked for.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return f
}

// Parse parses args. Help asked for (-h, -help, --help) is printed to
// stdout and answered with flag.ErrHelp, which run takes for success; a
// mistake is returned pointing at that help, which main prints once.
func (f *envFlags) Parse(args []string) error {
	err := f.FlagSet.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		f.writeUsage(f.stdout)
		return err
	}
	return fmt.Errorf("%s: %w (see payd %s --help)", f.Name(), err, f.Name())
}

func (f *envFlags) writeUsage(w io.Writer) {
	if f.usage != nil {
		f.usage(w)
		return
	}
	fmt.Fprintf(w, "Usage: payd %s [flags]\n\nFlags (each with an environment twin):\n", f.Name())
	f.SetOutput(w)
	f.PrintDefaults()
	f.SetOutput(io.Discard)
}

func envName(flagName string) string {
	return "PAYD_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func (f *envFlags) String(name, def, usage string) *string {
	if v := f.getenv(envName(name)); v != "" {
		def = v
	}
	return f.FlagSet.String(name, def, usage+" ($"+envName(name)+")")
}

func (f *envFlags) Bool(name string, def bool, usage string) *bool {
	if v, err := strconv.ParseBool(f.getenv(envName(name))); err == nil {
		def = v
	}
	return f.FlagSet.Bool(name, def, usage+" ($"+envName(name)+")")
}

func (f *envFlags) Int(name string, def int, usage string) *int {
	if v, err := strconv.Atoi(f.getenv(envName(name))); err == nil {
		def = v
	}
	return f.FlagSet.Int(name, def, usage+" ($"+envName(name)+")")
}

func (f *envFlags) Duration(name string, def time.Duration, usage string) *time.Duration {
	if v, err := time.ParseDuration(f.getenv(envName(name))); err == nil {
		def = v
	}
	return f.FlagSet.Duration(name, def, usage+" ($"+envName(name)+")")
}

// listFlag is a repeatable flag; its environment twin is comma-separated.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func (f *envFlags) List(name, usage string) *listFlag {
	l := &listFlag{}
	if v := f.getenv(envName(name)); v != "" {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				*l = append(*l, s)
			}
		}
	}
	f.FlagSet.Var(l, name, usage+" (repeatable; $"+envName(name)+" comma-separated)")
	return l
}
