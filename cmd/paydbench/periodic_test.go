package main

import (
	"io"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/jobs"
)

// The mode runs the job queue's periodic kinds, each as often as in an
// hour, and scales the measured runs to the hour.
func TestPeriodicHour(t *testing.T) {
	var names []string
	for _, k := range periodicKinds() {
		names = append(names, k.name)
	}
	if want := slices.Sorted(maps.Keys(jobs.PeriodicKinds())); !slices.Equal(slices.Sorted(slices.Values(names)), want) {
		t.Errorf("periodicKinds = %v, want the job queue's %v", names, want)
	}
	for every, want := range map[time.Duration]int{payd.ExpirySweepInterval: 720, 15 * time.Minute: 4, time.Hour: 1} {
		if got := runsPerHour(every); got != want {
			t.Errorf("runsPerHour(%v) = %d, want %d", every, got, want)
		}
	}
	rows := []periodicRow{
		{kind: "sweep", hourly: 720, runs: 10, cpu: 20 * time.Millisecond, stmts: 30},
		{kind: "settlement_run", hourly: 1, runs: 1, cpu: 500 * time.Millisecond, stmts: 5000},
		{kind: secondSettlementRun, hourly: 1, runs: 1, cpu: 3 * time.Millisecond, stmts: 4},
	}
	if got := rows[0].perHour(ms(rows[0].cpu)); got != 1440 {
		t.Errorf("CPU ms/h of 20 ms over 10 of 720 runs = %v, want 1440", got)
	}
	if h := hour(rows, secondSettlementRun); h.cpuMs != 1940 || h.stmts != 2160+5000 {
		t.Errorf("hour with registrations = %+v", h)
	}
	if h := hour(rows, "settlement_run"); h.cpuMs != 1443 || h.stmts != 2164 {
		t.Errorf("steady hour = %+v", h)
	}
}

func TestWednesdayNoon(t *testing.T) {
	loc := payd.RegionRU.Location()
	wed := time.Date(2030, 1, 2, 13, 0, 0, 0, loc) // a Wednesday, after noon
	if got, want := wednesdayNoon(wed, nil), time.Date(2030, 1, 9, 12, 0, 0, 0, loc); !got.Equal(want) {
		t.Errorf("after Wednesday's noon: %v, want %v", got, want)
	}
	if got, want := wednesdayNoon(wed.Add(-2*time.Hour), []string{"2030-01-02"}), time.Date(2030, 1, 9, 12, 0, 0, 0, loc); !got.Equal(want) {
		t.Errorf("on a holiday Wednesday: %v, want %v", got, want)
	}
}

func TestPeriodicFlags(t *testing.T) {
	c, err := parseFlags([]string{"--periodic-merchants", "10000, 100000"}, io.Discard)
	if err != nil || !slices.Equal(c.periodicMerchants, []int{10000, 100000}) || c.databaseURLSet {
		t.Fatalf("parseFlags: %+v, %v", c, err)
	}
	if c, err = parseFlags([]string{"--periodic-merchants", "5", "--database-url", defaultDatabaseURL}, io.Discard); err != nil || !c.databaseURLSet {
		t.Fatalf("with --database-url: %+v, %v", c, err)
	}
	if _, err := parseFlags([]string{"--periodic-merchants", "0"}, io.Discard); err == nil {
		t.Error("--periodic-merchants 0 accepted")
	}
}
