package payd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocMapsEveryFile: doc.go maps the contract to the package's files,
// so a file it does not name is one a reader cannot find from there, and
// a name of a file that is gone sends the reader nowhere.
func TestDocMapsEveryFile(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile(`\b[a-z0-9_]+\.go\b`).FindAllString(string(doc), -1) {
		named[m] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	exists := map[string]bool{}
	for _, f := range files {
		exists[f] = true
		if f == "doc.go" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		if !named[f] {
			t.Errorf("doc.go does not name %s: say in it what the file holds", f)
		}
	}
	for f := range named {
		if !exists[f] {
			t.Errorf("doc.go names %s, which is not a file of the package", f)
		}
	}
}
