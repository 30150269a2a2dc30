package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// settleLimit bounds the wait for the server's background work before a
// phase.
const settleLimit = 2 * time.Minute

// settle waits until the server's job queue has nothing available or
// running, so that a phase measures itself and not the background work an
// earlier phase left behind: above all the refund phase's provider
// notifications, which on SQLite share the one writer with the next run's
// creations. Jobs scheduled for later (hold releases) do not count. It
// returns how long it waited; after limit it gives up and says so.
func (s *server) settle(ctx context.Context, client *http.Client, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	for {
		busy, err := s.busyJobs(ctx, client)
		if err != nil {
			return time.Since(start), err
		}
		if busy == 0 {
			return time.Since(start), nil
		}
		if time.Since(start) > limit {
			return time.Since(start), fmt.Errorf("%d background jobs still busy after %s", busy, limit)
		}
		select {
		case <-ctx.Done():
			return time.Since(start), ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// busyJobs reads the available and running jobs from the server's
// metrics (the operator listener's /metrics, payd_jobs by state).
func (s *server) busyJobs(ctx context.Context, client *http.Client) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.admin+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	return parseBusyJobs(io.LimitReader(resp.Body, maxBody))
}

// parseBusyJobs sums payd_jobs{state="available"} and {state="running"}
// in Prometheus text.
func parseBusyJobs(r io.Reader) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n, seen := 0, false
	for sc.Scan() {
		line := sc.Text()
		for _, state := range []string{"available", "running"} {
			prefix := `payd_jobs{state="` + state + `"} `
			if !strings.HasPrefix(line, prefix) {
				continue
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(line[len(prefix):]), 64)
			if err != nil {
				return 0, fmt.Errorf("metrics: %q: %w", line, err)
			}
			n += int(v)
			seen = true
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	if !seen {
		return 0, fmt.Errorf("metrics: no payd_jobs series")
	}
	return n, nil
}
