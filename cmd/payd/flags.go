package main

import (
	"flag"
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
}

func newFlags(name string, getenv func(string) string, out io.Writer) *envFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	return &envFlags{FlagSet: fs, getenv: getenv}
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
