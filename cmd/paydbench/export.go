package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// ExportRun is one CSV export of the shop's whole test list through the
// dashboard (GET /dashboard/test/payments.csv), read to the end. The
// export streams page by page; RSSPeakMiB against RSSBeforeMiB, compared
// across seeds of different sizes, shows whether its memory grows with
// the rows.
type ExportRun struct {
	Rows          int     `json:"rows"`
	Bytes         int64   `json:"bytes"`
	Seconds       float64 `json:"seconds"`
	RowsPerSecond float64 `json:"rows_per_second"`
	// The server's resident memory just before and the most seen while
	// the export ran, sampled every 10 ms.
	RSSBeforeMiB float64 `json:"rss_before_mib"`
	RSSPeakMiB   float64 `json:"rss_peak_mib"`
}

// export reads the whole export once while sampling the server's memory.
func (d *desk) export(ctx context.Context, pid int) (*ExportRun, error) {
	_, before, ok := peakRSS(pid)
	if !ok {
		return nil, errors.New("export: cannot read the server's memory")
	}
	run := &ExportRun{RSSBeforeMiB: before, RSSPeakMiB: before}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if _, rss, ok := peakRSS(pid); ok && rss > run.RSSPeakMiB {
					run.RSSPeakMiB = rss
				}
			}
		}
	}()
	start := time.Now()
	err := d.readExport(ctx, run)
	close(stop)
	wg.Wait()
	run.Seconds = time.Since(start).Seconds()
	if run.Seconds > 0 {
		run.RowsPerSecond = float64(run.Rows) / run.Seconds
	}
	return run, err
}

// readExport counts the export's rows (lines after the header) and bytes.
func (d *desk) readExport(ctx context.Context, run *ExportRun) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.base+"/dashboard/test/payments.csv?shop="+url.QueryEscape(d.shopID), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Cookie", d.cookie)
	resp, err := d.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("export: status %d", resp.StatusCode)
	}
	buf := make([]byte, 64<<10)
	lines := 0
	for {
		n, err := resp.Body.Read(buf)
		run.Bytes += int64(n)
		for _, c := range buf[:n] {
			if c == '\n' {
				lines++
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	run.Rows = max(lines-1, 0)
	return nil
}
