package main

import (
	"runtime/debug"
	"strings"
)

// versionLine is what `payd version` prints: the version set at build time,
// and the commit the binary was built from as the Go toolchain recorded it
// (go build in a git checkout; go run records none): its hash, its time,
// whether the tree had uncommitted changes, and the Go release.
func versionLine(v string, info *debug.BuildInfo, ok bool) string {
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
		if len(rev) > 12 {
			rev = rev[:12]
		}
		parts = append(parts, "commit "+rev)
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
