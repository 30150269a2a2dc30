package serve

import (
	"os"
	"path/filepath"
	"testing"
)

// On PostgreSQL nothing else makes the data directory: dev.json is
// written into one that does not exist yet.
func TestWriteDevMakesTheDataDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet")
	if err := writeDev(dir, &DevInfo{AdminToken: "adm_x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "dev.json")); err != nil {
		t.Fatalf("dev.json: %v", err)
	}
}
