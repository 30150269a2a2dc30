package main

import (
	"runtime/debug"
	"strings"
)

// versionLine is what `payd version` prints: the version set at build time,
// and the commit the binary was built from: the one stamped at build time
// (stamped), or else the one the Go toolchain recorded (go build in a git
// checkout; go run records none) with its time and whether the tree had
// uncommitted changes; then the Go release.
func versionLine(v, stamped string, info *debug.BuildInfo, ok bool) string {
	if stamped != "" {
		line := "payd " + v + " (commit " + short(stamped)
		if ok && info.GoVersion != "" {
			line += ", " + info.GoVersion
		}
		return line + ")"
	}
	line := "payd " + v
	if !ok {
		return line
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	var parts []string
	if rev := settings["vcs.revision"]; rev != "" {
		parts = append(parts, "commit "+short(rev))
		if t := settings["vcs.time"]; t != "" {
			parts = append(parts, t)
		}
		if settings["vcs.modified"] == "true" {
			parts = append(parts, "with uncommitted changes")
		}
	} else {
		parts = append(parts, "commit unknown (not built by go build in a git checkout)")
	}
	if info.GoVersion != "" {
		parts = append(parts, info.GoVersion)
	}
	return line + " (" + strings.Join(parts, ", ") + ")"
}

// short is a commit hash cut to the 12 characters people quote.
func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
