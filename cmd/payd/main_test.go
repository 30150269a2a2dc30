package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestSubcommandHelp: -h and --help of every subcommand print its usage
// to stdout and succeed; a wrong flag fails pointing at that help.
func TestSubcommandHelp(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"serve", "migrate", "listen", "admin", "trigger"} {
		for _, help := range []string{"-h", "-help", "--help"} {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), []string{cmd, help}, func(string) string { return "" }, &stdout, &stderr)
			if err != nil {
				t.Errorf("payd %s %s: %v", cmd, help, err)
				continue
			}
			if !strings.Contains(stdout.String(), "payd "+cmd) || !strings.Contains(stdout.String(), "Usage") {
				t.Errorf("payd %s %s printed no usage:\n%s", cmd, help, stdout.String())
			}
			if stderr.Len() != 0 {
				t.Errorf("payd %s %s wrote to stderr:\n%s", cmd, help, stderr.String())
			}
		}
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), []string{cmd, "--no-such-flag"}, func(string) string { return "" }, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), "no-such-flag") || !strings.Contains(err.Error(), "payd "+cmd+" --help") {
			t.Errorf("payd %s --no-such-flag: %v", cmd, err)
		}
	}
}
