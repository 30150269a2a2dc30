package main

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestReadmeCurlWalk runs the README's curl session ("First five minutes")
// as it is written, against `payd serve --dev` in a data directory of its
// own: the shop and key read from dev.json, the payment created, paid by
// the sandbox bank, read with its event, and refunded. Only the address
// and the data directory are the test's; the reader's pause after the
// simulate ("sleep 1") waits here until the payment left pending, so a
// slow machine does not fail the walk.
func TestReadmeCurlWalk(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the README's walk needs %s: %v", tool, err)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	walk := readmeBlock(t, string(readme), "In another terminal")
	dir := t.TempDir()
	addr, admin := freeAddr(t), freeAddr(t)
	srv := startServe(t, "--dev", "--data-dir", filepath.Join(dir, "payd-data"), "--addr", addr, "--admin-addr", admin)
	waitHealthy(t, http.DefaultClient, "http://"+addr, srv)

	if !strings.Contains(walk, "http://127.0.0.1:8080/v1") {
		t.Fatal("the README's walk no longer sets API to make run's address")
	}
	script := `set -eu -o pipefail
sleep() {
  for i in $(seq 100); do
    curl -s -u $SHOP:$KEY $API/payments/$PAY | grep -q '"status": *"succeeded"' && return
    command sleep 0.1
  done
}
` + strings.ReplaceAll(walk, "http://127.0.0.1:8080", "http://"+addr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's walk failed: %v\n%s", err, out)
	}
	for what, re := range map[string]string{
		"the shop":              `"object": *"shop"|"region": *"ru"`,
		"the payment created":   `"status": *"pending"`,
		"the simulate's status": `(?m)^202$`,
		"the payment paid":      `"status": *"succeeded"`,
		"its event":             `"type": *"payment.succeeded"`,
		"the refund of 500.00":  `"id": *"rf_[0-9A-Z]{26}"`,
		"the refund's amount":   `"value": *"500.00"`,
	} {
		if !regexp.MustCompile(re).Match(out) {
			t.Errorf("the walk's output shows no %s (%s):\n%s", what, re, out)
		}
	}
	if strings.Contains(string(out), `"code"`) {
		t.Errorf("the walk's output holds an error:\n%s", out)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the walk left files beside payd-data: %v", entries)
	}
}

// readmeBlock is the first ```sh block after the line containing after.
func readmeBlock(t *testing.T, readme, after string) string {
	t.Helper()
	i := strings.Index(readme, after)
	if i < 0 {
		t.Fatalf("the README has no %q", after)
	}
	rest := readme[i:]
	start := strings.Index(rest, "```sh\n")
	if start < 0 {
		t.Fatalf("no sh block after %q", after)
	}
	rest = rest[start+len("```sh\n"):]
	end := strings.Index(rest, "```")
	if end < 0 {
		t.Fatalf("the sh block after %q does not end", after)
	}
	return rest[:end]
}

// TestReadmeNamesEveryServeFlag: the README's table of `payd serve`'s
// flags has a row for every flag serve takes, and no row for one it
// does not.
func TestReadmeNamesEveryServeFlag(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	i := strings.Index(section, "`payd serve` takes flags")
	if i < 0 {
		t.Fatal("the README has no table of payd serve's flags")
	}
	section = section[i:]
	if end := strings.Index(section, "\n\n"+"Without"); end > 0 {
		section = section[:end]
	}
	inTable := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `--") {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "| "), " |")
		for _, m := range regexp.MustCompile("`--([a-z-]+)`").FindAllStringSubmatch(first, -1) {
			inTable[m[1]] = true
		}
	}
	var help syncBuffer
	if _, err := parseServe([]string{"--help"}, func(string) string { return "" }, &help); err == nil {
		t.Fatal("serve --help did not answer with its help")
	}
	taken := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+--?([a-z][a-z-]*)`).FindAllStringSubmatch(help.String(), -1) {
		taken[m[1]] = true
	}
	if len(taken) < 10 {
		t.Fatalf("read %d flags from serve --help:\n%s", len(taken), help.String())
	}
	for f := range taken {
		if !inTable[f] {
			t.Errorf("the README's table has no row for --%s", f)
		}
	}
	for f := range inTable {
		if !taken[f] {
			t.Errorf("the README's table names --%s, which serve does not take", f)
		}
	}
}
