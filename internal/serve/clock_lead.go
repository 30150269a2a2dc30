package serve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The test clock's lead over the wall clock is kept in the data directory
// and taken up at the next start: a developer's sandbox that jumped two
// days ahead does not fall back in time when payd restarts, which would
// make expiries, holds and registers it already passed lie in the future
// again. It is the instance's own (each instance moves its own clock).
const clockLeadFile = "test-clock-lead"

func readClockLead(dataDir string) (time.Duration, error) {
	if dataDir == "" {
		return 0, nil
	}
	b, err := os.ReadFile(filepath.Join(dataDir, clockLeadFile))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(strings.TrimSpace(string(b)))
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s holds %q, not a lead like 48h0m0s", clockLeadFile, strings.TrimSpace(string(b)))
	}
	return d, nil
}

// writeClockLead replaces the file whole (a rename), so a crash leaves the
// old lead or the new one.
func writeClockLead(dataDir string, lead time.Duration) error {
	if dataDir == "" {
		return nil
	}
	tmp := filepath.Join(dataDir, clockLeadFile+".tmp."+strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(tmp, []byte(lead.String()+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dataDir, clockLeadFile))
}
