package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionLine(t *testing.T) {
	built := func(kv ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{GoVersion: "go1.26.8"}
		for i := 0; i+1 < len(kv); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return info
	}
	for _, c := range []struct {
		name    string
		stamped string
		info    *debug.BuildInfo
		ok      bool
		want    string
	}{
		{"no build information", "", nil, false, "payd 1.4.0"},
		{"a clean checkout", "", built("vcs.revision", "647428e0123456789abcdef", "vcs.time", "2026-11-29T09:37:00Z", "vcs.modified", "false"), true,
			"payd 1.4.0 (commit 647428e01234, 2026-11-29T09:37:00Z, go1.26.8)"},
		{"uncommitted changes", "", built("vcs.revision", "647428e", "vcs.modified", "true"), true,
			"payd 1.4.0 (commit 647428e, with uncommitted changes, go1.26.8)"},
		{"go run", "", built(), true, "payd 1.4.0 (commit unknown (not built by go build in a git checkout), go1.26.8)"},
		// make image and make dist stamp the commit and record no VCS
		// information (-buildvcs=false).
		{"stamped", "647428e0123456789abcdef", built(), true, "payd 1.4.0 (commit 647428e01234, go1.26.8)"},
		{"stamped wins over recorded", "647428e0123456789abcdef", built("vcs.revision", "0000000", "vcs.modified", "true"), true,
			"payd 1.4.0 (commit 647428e01234, go1.26.8)"},
	} {
		if got := versionLine("1.4.0", c.stamped, c.info, c.ok); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
