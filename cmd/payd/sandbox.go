package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/paydhq/payd"
)

const sandboxUsage = `payd sandbox — the shop's sandbox

Usage:
  payd sandbox reset [flags]

reset deletes the shop's test data (POST /v1/test/reset): payments,
refunds, disputes and their files, links, payouts, events and deliveries,
idempotency records, and the test contour's ledger entries and registers.
Keys, webhook endpoints and settings stay; live data is never touched.
It waits for the answer up to 16 minutes: a shop of 10^5 test payments
takes tens of seconds.

Flags (each with an environment twin):
  --data-dir DIR       data directory of a payd serve --dev (default
                       ./payd-data): its dev.json gives every flag below
  --api-url URL        merchant API base ($PAYD_API_URL)
  --shop-id ID         the shop ($PAYD_SHOP_ID)
  --secret-key KEY     a test key of the shop ($PAYD_SECRET_KEY)
`

func runSandbox(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "reset" {
		if len(args) > 0 && isHelp(args[0]) {
			fmt.Fprint(stdout, sandboxUsage)
			return nil
		}
		fmt.Fprint(stderr, sandboxUsage)
		return errors.New("sandbox: a command is required: reset")
	}
	f := newFlags("sandbox", getenv, stdout)
	f.usage = func(w io.Writer) { fmt.Fprint(w, sandboxUsage) }
	mf := addMerchantFlags(f, false)
	if err := f.Parse(args[1:]); err != nil {
		return err
	}
	c, err := mf.resolve("sandbox")
	if err != nil {
		return err
	}
	c.trace = stdout
	// The service lets a reset run this long before it answers.
	c.http.Timeout = payd.SandboxResetLimit + time.Minute
	var res struct {
		Deleted map[string]int64 `json:"deleted"`
	}
	if err := c.do(ctx, false, http.MethodPost, "/test/reset", "sandbox-reset-"+strconv.FormatInt(time.Now().UnixNano(), 36), nil, &res); err != nil {
		return fmt.Errorf("sandbox reset: %w", err)
	}
	fmt.Fprintf(stdout, "Reset the sandbox of %s: deleted", c.shopID)
	for _, k := range []string{"payments", "refunds", "disputes", "evidence_files", "payment_links", "payouts", "settlements",
		"events", "webhook_deliveries", "idempotency_records", "ledger_entries"} {
		fmt.Fprintf(stdout, " %d %s,", res.Deleted[k], k)
	}
	fmt.Fprintln(stdout, " and nothing else.")
	return nil
}
