package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// envFlags is a flag set whose every flag has an environment twin
// PAYD_<NAME> (dashes become underscores). A flag on the command line
// wins over its twin, and the twin over the default. A secret setting
// may also come from a file named by PAYD_<NAME>_FILE (container secrets,
// systemd credentials). A value that does not parse stops the command,
// naming the variable and the flag, wherever it came from: a typo in a
// unit's environment must not start a service on the default.
type envFlags struct {
	*flag.FlagSet
	getenv func(string) string
	// usage writes the command's help; nil writes every flag with its
	// default.
	usage func(w io.Writer)
	// stdout receives the help asked for with -h or --help.
	stdout io.Writer
	// settings are the flags with twins, in the order they were defined;
	// after Parse each knows where its value came from.
	settings []*setting
}

// secrecy says whether and how a setting's value is masked when shown.
type secrecy int

const (
	public     secrecy = iota
	secretAll          // shown as ********
	secretURLs         // a URL shown with its password masked
)

// setting is one flag and its environment twins.
type setting struct {
	name   string // the flag without dashes; envName(name) is its twin
	usage  string
	value  flag.Value
	typ    string // the word for its value in the help; empty for a switch
	secret secrecy
	// envOnly settings have no flag: a secret on the command line is
	// visible to every user of the host.
	envOnly bool
	// fileTwin: PAYD_<NAME>_FILE names a file holding the value.
	fileTwin bool
	// source is where the value came from after Parse: default, flag,
	// environment or file; origin names the variable (and file) behind it.
	source, origin string
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

// Parse parses args, then takes every flag not on the command line from
// its environment twin. Help asked for (-h, -help, --help) is printed to
// stdout and answered with flag.ErrHelp, which run takes for success; a
// mistake is returned pointing at that help, which main prints once.
func (f *envFlags) Parse(args []string) error {
	err := f.FlagSet.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		f.writeUsage(f.stdout)
		return err
	case err != nil:
		// The flag package names a flag with one dash; the help and
		// the docs use two.
		msg := err.Error()
		if strings.HasPrefix(msg, "invalid ") {
			msg = strings.Replace(strings.Replace(msg, " for flag -", " for -", 1), " for -", " for --", 1)
			err = errors.New(msg)
		}
		return fmt.Errorf("%s: %w (see payd %s --help)", f.Name(), err, f.Name())
	}
	return f.applyEnvironment()
}

// applyEnvironment takes every flag not given on the command line from
// its environment twin; a command that parses its flag set itself calls
// it after.
func (f *envFlags) applyEnvironment() error {
	given := map[string]bool{}
	f.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	for _, s := range f.settings {
		if given[s.name] {
			s.source, s.origin = "flag", "--"+s.name
			continue
		}
		if err := f.fromEnvironment(s); err != nil {
			return err
		}
	}
	return nil
}

// fromEnvironment sets s from PAYD_<NAME> or the file PAYD_<NAME>_FILE
// names. An empty variable counts as unset.
func (f *envFlags) fromEnvironment(s *setting) error {
	env := envName(s.name)
	v := f.getenv(env)
	var file string
	if s.fileTwin {
		file = f.getenv(env + "_FILE")
	}
	switch {
	case v != "" && file != "":
		return fmt.Errorf("%s and %s_FILE are both set: give %s once", env, env, s.label())
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("%s_FILE (%s): %w", env, s.label(), err)
		}
		// Files are written by editors and echo: one line ending is not
		// part of the value.
		v = strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		if v == "" {
			return fmt.Errorf("%s_FILE (%s): %s is empty", env, s.label(), file)
		}
		s.source, s.origin = "file", env+"_FILE="+file
	case v != "":
		s.source, s.origin = "environment", env
	default:
		s.source, s.origin = "default", ""
		return nil
	}
	var err error
	if l, ok := s.value.(*listFlag); ok {
		err = l.setAll(v)
	} else {
		err = s.value.Set(v)
	}
	if err != nil {
		shown := strconv.Quote(v)
		if s.secret != public {
			shown = "(not shown: a secret)"
		}
		return fmt.Errorf("%s (%s): invalid value %s: %v", s.origin, s.label(), shown, err)
	}
	return nil
}

// label names the setting as an operator types it.
func (s *setting) label() string {
	if s.envOnly {
		return envName(s.name)
	}
	return "--" + s.name
}

// Setting names a setting for an error about its value: the flag, and
// the variable or file too when the value came from there.
func (f *envFlags) Setting(name string) string {
	for _, s := range f.settings {
		if s.name == name {
			if !s.envOnly && (s.source == "environment" || s.source == "file") {
				return s.origin + " (" + s.label() + ")"
			}
			return s.label()
		}
	}
	return "--" + name
}

func (f *envFlags) writeUsage(w io.Writer) {
	if f.usage != nil {
		f.usage(w)
		return
	}
	fmt.Fprintf(w, "Usage: payd %s [flags]\n\n", f.Name())
	fmt.Fprintln(w, "Every flag --NAME may be given in the environment as PAYD_NAME (upper case,")
	fmt.Fprintln(w, "dashes as underscores); the command line wins. Secrets may also be read from")
	fmt.Fprintln(w, "a file named by PAYD_NAME_FILE. A value that does not parse stops the command.")
	fmt.Fprintln(w, "\nFlags:")
	var envOnly []*setting
	for _, s := range f.settings {
		if s.envOnly {
			envOnly = append(envOnly, s)
			continue
		}
		fmt.Fprintf(w, "  --%s\n    \t%s (%s)\n", strings.TrimSpace(s.name+" "+s.typ), s.usage, s.twins())
	}
	// Flags without twins, such as serve's --print-config.
	f.VisitAll(func(fl *flag.Flag) {
		if f.setting(fl.Name) == nil {
			fmt.Fprintf(w, "  --%s\n    \t%s\n", fl.Name, fl.Usage)
		}
	})
	if len(envOnly) > 0 {
		fmt.Fprintln(w, "\nEnvironment only:")
		for _, s := range envOnly {
			fmt.Fprintf(w, "  %s\n    \t%s\n", envName(s.name), s.usage)
		}
	}
}

func (s *setting) twins() string {
	var b strings.Builder
	if d := s.value.String(); d != "" && d != "0" && d != "false" {
		fmt.Fprintf(&b, "default %q; ", d)
	}
	b.WriteString("$" + envName(s.name))
	if s.fileTwin {
		b.WriteString(" or a file named by $" + envName(s.name) + "_FILE")
	}
	return b.String()
}

func (f *envFlags) setting(name string) *setting {
	for _, s := range f.settings {
		if s.name == name {
			return s
		}
	}
	return nil
}

func envName(flagName string) string {
	return "PAYD_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func (f *envFlags) add(s *setting) {
	f.settings = append(f.settings, s)
	if !s.envOnly {
		f.FlagSet.Var(s.value, s.name, s.usage)
	}
}

func (f *envFlags) String(name, def, usage string) *string {
	p := &def
	f.add(&setting{name: name, usage: usage, value: (*stringValue)(p), typ: "string"})
	return p
}

// Secret is a string setting whose value is masked when shown and may
// come from a file named by PAYD_<NAME>_FILE. A URL's password alone is
// masked with secretURLs.
func (f *envFlags) Secret(name, usage string, how secrecy) *string {
	p := new(string)
	f.add(&setting{name: name, usage: usage, value: (*stringValue)(p), typ: "string", secret: how, fileTwin: true})
	return p
}

// EnvSecret is a secret setting with no flag, read from PAYD_<NAME>
// alone; its file form, if any, is a flag of its own.
func (f *envFlags) EnvSecret(name, usage string) *string {
	p := new(string)
	f.add(&setting{name: name, usage: usage, value: (*stringValue)(p), secret: secretAll, envOnly: true})
	return p
}

func (f *envFlags) Bool(name string, def bool, usage string) *bool {
	p := &def
	f.add(&setting{name: name, usage: usage, value: (*boolValue)(p)})
	return p
}

func (f *envFlags) Int(name string, def int, usage string) *int {
	p := &def
	f.add(&setting{name: name, usage: usage, value: (*intValue)(p), typ: "N"})
	return p
}

func (f *envFlags) Duration(name string, def time.Duration, usage string) *time.Duration {
	p := &def
	f.add(&setting{name: name, usage: usage, value: (*durationValue)(p), typ: "duration"})
	return p
}

// List is a repeatable flag; its environment twin is comma-separated.
// The command line replaces the environment's list, not adds to it.
func (f *envFlags) List(name, usage string) *listFlag {
	l := &listFlag{}
	f.add(&setting{name: name, usage: usage + " (repeatable; comma-separated in the environment)", value: l, typ: "value"})
	return l
}

// The values say what they want, for the flag and the variable alike
// (the flag package's own say "parse error").

type stringValue string

func (v *stringValue) Set(s string) error { *v = stringValue(s); return nil }
func (v *stringValue) String() string     { return string(*v) }

type boolValue bool

func (v *boolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	*v = boolValue(b)
	return nil
}
func (v *boolValue) String() string   { return strconv.FormatBool(bool(*v)) }
func (v *boolValue) IsBoolFlag() bool { return true }

type intValue int

func (v *intValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("want a whole number")
	}
	*v = intValue(n)
	return nil
}
func (v *intValue) String() string { return strconv.Itoa(int(*v)) }

type durationValue time.Duration

func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("want a duration with its unit, such as 500ms, 30s or 5m")
	}
	*v = durationValue(d)
	return nil
}
func (v *durationValue) String() string { return time.Duration(*v).String() }

// listFlag is a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// setAll replaces the list with a comma-separated one.
func (l *listFlag) setAll(v string) error {
	*l = nil
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}
