//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// webhookEvents are the events the receiver subscribes to: every one the
// load can cause.
var webhookEvents = []string{"payment.waiting_for_capture", "payment.succeeded", "payment.canceled", "refund.succeeded", "refund.canceled"}

// admin calls the operator API of the first instance.
func (cl *cluster) admin(method, path string, body, out any) error {
	return cl.adminAt(cl.instances[0], method, path, body, out)
}

// setup creates a merchant, a shop with a test key per client, and a
// webhook endpoint per shop pointing at the receiver.
func (cl *cluster) setup() ([]*shop, error) {
	var m struct{ ID string }
	if err := cl.admin("POST", "/admin/v1/merchants", map[string]any{"name": "Chaos Merchant"}, &m); err != nil {
		return nil, err
	}
	var shops []*shop
	err := cl.addShops(m.ID, cl.clients, &shops)
	return shops, err
}

func (cl *cluster) addShops(merchant string, n int, shops *[]*shop) error {
	for i := range n {
		var s struct{ ID string }
		if err := cl.admin("POST", "/admin/v1/shops", map[string]any{"merchant_id": merchant, "region": "ru", "name": fmt.Sprintf("Chaos shop %d", i)}, &s); err != nil {
			return err
		}
		var k struct{ Secret string }
		if err := cl.admin("POST", "/admin/v1/shops/"+s.ID+"/keys", map[string]any{"mode": "test"}, &k); err != nil {
			return err
		}
		if cl.unlimited {
			// As paydbench does: the default 120 creations a minute
			// would turn the probes and the measurement into waits.
			var out any
			limits := map[string]int{"requests_per_minute": 1_000_000, "payments_per_minute": 1_000_000}
			if err := cl.admin("PATCH", "/admin/v1/shops/"+s.ID, limits, &out); err != nil {
				return err
			}
		}
		sh := &shop{id: s.ID, key: k.Secret, merchant: merchant}
		events := webhookEvents
		if cl.payouts {
			events = append(slices.Clip(events), "payout.succeeded", "payout.canceled")
		}
		raw, _ := json.Marshal(map[string]any{"url": cl.rc.srv.URL + "/hook", "events": events})
		req, _ := http.NewRequest("POST", cl.proxyURL+"/v1/webhook-endpoints", bytes.NewReader(raw))
		req.SetBasicAuth(sh.id, sh.key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "endpoint-"+s.ID)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			return fmt.Errorf("webhook endpoint for %s: %s", s.ID, resp.Status)
		}
		*shops = append(*shops, sh)
	}
	return nil
}

// get reads a merchant API path through the balancer.
func (cl *cluster) get(s *shop, path string, out any) error {
	for attempt := 0; ; attempt++ {
		req, _ := http.NewRequest("GET", cl.proxyURL+path, nil)
		req.SetBasicAuth(s.id, s.key)
		resp, err := (&http.Client{Timeout: hangLimit}).Do(req)
		if err == nil {
			if resp.StatusCode == 200 {
				err = json.NewDecoder(resp.Body).Decode(out)
				resp.Body.Close()
				return err
			}
			resp.Body.Close()
			err = fmt.Errorf("GET %s: %s", path, resp.Status)
			if resp.StatusCode < 500 && resp.StatusCode != 429 {
				return err
			}
		}
		if attempt == 20 {
			return err
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// list reads every page of a list.
func list[T any](cl *cluster, s *shop, path string) ([]T, error) {
	var all []T
	cursor := ""
	for {
		p := path + "?limit=100"
		if strings.Contains(path, "?") {
			p = path + "&limit=100"
		}
		if cursor != "" {
			p += "&cursor=" + url.QueryEscape(cursor)
		}
		var page struct {
			Items      []T     `json:"items"`
			NextCursor *string `json:"next_cursor"`
		}
		if err := cl.get(s, p, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Items...)
		if page.NextCursor == nil {
			return all, nil
		}
		cursor = *page.NextCursor
	}
}

type eventItem struct {
	ID string `json:"id"`
}

// missing reports what has not converged yet: payments not in the status
// their acknowledged operations lead to, and events the receiver has not
// had.
func (cl *cluster) missing(shops []*shop, book *ledgerBook) (payments, events []string, err error) {
	book.mu.Lock()
	want := map[string]string{}
	byShop := map[*shop][]string{}
	for _, p := range book.payments {
		if p.want != "" {
			want[p.id] = p.want
			byShop[p.shop] = append(byShop[p.shop], p.id)
		}
	}
	book.mu.Unlock()
	got := cl.rc.snapshot()
	for _, s := range shops {
		items, err := list[struct{ ID, Status string }](cl, s, "/v1/payments")
		if err != nil {
			return nil, nil, err
		}
		for _, it := range items {
			if w, ok := want[it.ID]; ok && it.Status != w {
				payments = append(payments, fmt.Sprintf("%s is %s, want %s", it.ID, it.Status, w))
			}
		}
		evs, err := list[eventItem](cl, s, "/v1/events")
		if err != nil {
			return nil, nil, err
		}
		for _, e := range evs {
			if got[e.ID] == 0 {
				events = append(events, e.ID)
			}
		}
	}
	return payments, events, nil
}

// verify lets the cluster settle and checks everything the run promises.
func (cl *cluster) verify(ctx context.Context, shops []*shop, book *ledgerBook, faults faultLog, loadStart, loadEnd time.Time) (last string, err error) {
	if !cl.waitAllReady(60 * time.Second) {
		return "", fmt.Errorf("the instances are not all ready after the faults")
	}
	// Past the 5-minute lease of claimed deliveries and River's rescue of
	// the jobs of killed instances.
	settleStart := time.Now()
	advance := func() {
		for _, in := range cl.instances {
			var out any
			req := map[string]any{"seconds": 360}
			if err := cl.adminAt(in, "POST", "/admin/v1/clock/advance", req, &out); err != nil {
				book.problem("advance the clock of %s: %v", in, err)
			}
		}
	}
	advance()
	var pendingPayments, pendingEvents []string
	for round := 1; ; round++ {
		pendingPayments, pendingEvents, err = cl.missing(shops, book)
		if err != nil {
			return "", err
		}
		unfinished, err := cl.unfinishedJobs()
		if err != nil {
			return "", err
		}
		if len(pendingPayments) == 0 && len(pendingEvents) == 0 && unfinished == 0 {
			break
		}
		if time.Since(settleStart) > 150*time.Second || ctx.Err() != nil {
			break
		}
		if round%20 == 0 {
			advance() // a retry of a delivery waits its schedule
		}
		time.Sleep(3 * time.Second)
	}
	settled := time.Since(settleStart)
	for _, p := range pendingPayments {
		book.problem("payment not in its acknowledged state: %s", p)
	}
	for _, e := range pendingEvents {
		book.problem("event %s never delivered", e)
	}

	// Every acknowledged payment and refund exists exactly once, and
	// nothing exists that was not acknowledged (except what a client gave
	// up on at the drain deadline).
	book.mu.Lock()
	acked := map[string]*payment{}
	for _, p := range book.payments {
		acked[p.orderID] = p
	}
	abandoned := strings.Join(book.abandoned, "\n")
	book.mu.Unlock()
	var nPayments, nRefunds int
	for _, s := range shops {
		items, err := list[struct {
			ID      string `json:"id"`
			OrderID string `json:"order_id"`
		}](cl, s, "/v1/payments")
		if err != nil {
			return "", err
		}
		seen := map[string]int{}
		for _, it := range items {
			seen[it.OrderID]++
			nPayments++
			p, ok := acked[it.OrderID]
			switch {
			case !ok && !strings.Contains(abandoned, "pay-"+it.OrderID):
				book.problem("payment %s (%s) exists but was never acknowledged", it.ID, it.OrderID)
			case ok && p.id != it.ID:
				book.problem("order %s: acknowledged %s, stored %s", it.OrderID, p.id, it.ID)
			}
		}
		for order, n := range seen {
			if n > 1 {
				book.count(&book.doubled)
				book.problem("order %s stored %d times", order, n)
			}
		}
		for order, p := range acked {
			if p.shop == s && seen[order] == 0 {
				book.count(&book.lost)
				book.problem("acknowledged payment %s (%s) is lost", p.id, order)
			}
		}
		refunds, err := list[struct {
			ID        string `json:"id"`
			PaymentID string `json:"payment_id"`
		}](cl, s, "/v1/refunds")
		if err != nil {
			return "", err
		}
		perPayment := map[string][]string{}
		for _, r := range refunds {
			perPayment[r.PaymentID] = append(perPayment[r.PaymentID], r.ID)
			nRefunds++
		}
		for order, p := range acked {
			if p.shop != s {
				continue
			}
			got := perPayment[p.id]
			for _, id := range p.refunds {
				if !slices.Contains(got, id) {
					book.count(&book.lost)
					book.problem("acknowledged refund %s of %s is lost", id, p.id)
				}
			}
			// One refund key per payment: more than one refund is a
			// retry that ran twice.
			if len(got) > 1 {
				book.count(&book.doubled)
				book.problem("payment %s has %d refunds from one Idempotency-Key", p.id, len(got))
			}
			if len(got) == 1 && len(p.refunds) == 0 && !strings.Contains(abandoned, "ref-"+order) {
				book.problem("refund %s of %s exists but was never acknowledged", got[0], p.id)
			}
		}
	}

	ledger, err := cl.ledgerCheck()
	if err != nil {
		book.problem("payd admin ledger check: %v", err)
	}

	deliveries := cl.rc.snapshot()
	var received, duplicates int
	for _, n := range deliveries {
		received++
		duplicates += n - 1
	}

	jobs, err := cl.checkJobs(book, faults, loadStart, loadEnd)
	if err != nil {
		return "", err
	}
	payouts := -1
	if faults.cluster != nil {
		if payouts, err = cl.checkPayouts(shops, book); err != nil {
			return "", err
		}
		last = faults.cluster.report(cl, shops, book)
	}

	book.mu.Lock()
	defer book.mu.Unlock()
	fmt.Printf("%s: %s\n", faults.name(), faults)
	fmt.Printf("  operations acknowledged: %v; %d payments and %d refunds stored; %d replays compared\n", book.ops, nPayments, nRefunds, book.replays)
	fmt.Printf("  answers by status: %v; 503 by reason: %v\n", book.status, book.reasons)
	fmt.Printf("  unanswered requests (connection cut): %d; hangs over %v: %d; slowest answer %v\n", book.unanswered, hangLimit, book.hangs, book.maxLatency.Round(time.Millisecond))
	fmt.Printf("  /readyz failed in %d of %d outages of the database; back within %v at most\n", faults.readyFailedDuringOutage, faults.outages(), faults.readyRecovery.Round(time.Millisecond))
	if len(book.refusedByRoute) > 0 {
		fmt.Printf("  503 by route: %v\n", book.refusedByRoute)
	}
	fmt.Printf("  events delivered: %d distinct, %d duplicates; settled %v after the load\n", received, duplicates, settled.Round(time.Second))
	if payouts >= 0 {
		fmt.Printf("  payouts stored: %d\n", payouts)
	}
	fmt.Printf("  ledger check: %s\n", ledger)
	fmt.Print(jobs)
	if len(book.abandoned) > 0 {
		fmt.Printf("  given up at the drain deadline: %d requests\n", len(book.abandoned))
	}
	if faults.failover != nil {
		last = faults.failover.report(book)
	}
	if len(book.problems) > 0 {
		for _, p := range book.problems {
			fmt.Println("  PROBLEM:", p)
		}
		cl.printLogged(book.internal)
		return last, fmt.Errorf("%d problems", len(book.problems))
	}
	if book.ops["create"] == 0 || !faults.complete() {
		return last, fmt.Errorf("the run proved little: %v operations, %s", book.ops, faults)
	}
	return last, nil
}

// adminAt calls in's operator API.
func (cl *cluster) adminAt(in *instance, method, path string, body, out any) error {
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	req, _ := http.NewRequest(method, in.adminURL()+path, bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+cl.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// ledgerCheck runs `payd admin ledger check` as an operator would.
func (cl *cluster) ledgerCheck() (string, error) {
	cmd := exec.Command(cl.instances[0].bin, "admin", "ledger", "check")
	cmd.Env = append(os.Environ(), "PAYD_ADMIN_URL="+cl.instances[0].adminURL(), "PAYD_ADMIN_TOKEN="+cl.token)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%v: %s", err, out)
	}
	var res struct {
		OK       bool  `json:"ok"`
		Problems []any `json:"problems"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return "", fmt.Errorf("unreadable output %q", out)
	}
	if !res.OK {
		return "", fmt.Errorf("problems: %v", res.Problems)
	}
	return "ok", nil
}
