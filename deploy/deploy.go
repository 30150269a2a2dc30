// Package deploy holds what an operator installs beside the payd binary:
// the systemd unit and its example environment file (systemd/). They are
// embedded so that tests read the files as shipped: the unit is checked
// with systemd-analyze, and its stop timeout against payd's drain. The
// container image's Containerfile is here too; scripts/image builds from
// it and TestImage runs what it built.
package deploy

import (
	_ "embed"
	"strings"
)

//go:embed systemd/payd.service
var systemdUnit string

//go:embed systemd/payd.env
var systemdEnvironment string

// SystemdUnit returns systemd/payd.service as shipped.
func SystemdUnit() string { return systemdUnit }

// SystemdEnvironment returns systemd/payd.env, the unit's EnvironmentFile.
func SystemdEnvironment() string { return systemdEnvironment }

// UnitValues returns the values of every line KEY=VALUE of a unit file,
// in order; comments and other keys are skipped. It reads what these
// files use, not the whole unit syntax (no continuation lines, no
// quoting).
func UnitValues(unit, key string) []string {
	var out []string
	for line := range strings.Lines(unit) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && strings.TrimSpace(k) == key {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}

// Environment returns an environment file's variables.
func Environment(file string) map[string]string {
	env := map[string]string{}
	for line := range strings.Lines(file) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	return env
}
