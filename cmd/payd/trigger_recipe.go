package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/paydhq/payd"
)

// A recipe makes the chain of objects that causes one event type, through
// the merchant API with the shop's test key as a merchant's code would,
// then the sandbox's simulate, and through the operator API only where
// only an operator (or the bank, or time) can cause the event.
type recipe struct {
	event string
	// about says in a line what the recipe does, for --list.
	about string
	// operator: the recipe needs the operator API; stage: the service
	// stage that has the event's operations.
	operator bool
	stage    string
	run      func(tr *trigger, ctx context.Context) error
}

// recipes is the catalogue, one per event type of the contract and of
// payd's own additions (payd.EventTypeAll; a test keeps the two equal).
var recipes = []recipe{
	{event: "payment.succeeded", about: "QR payment, simulate succeed",
		run: func(tr *trigger, ctx context.Context) error {
			_, err := tr.payment(ctx, true, "succeed", "succeeded")
			return err
		}},
	{event: "payment.waiting_for_capture", about: "QR payment with capture false, simulate authorize",
		run: func(tr *trigger, ctx context.Context) error {
			_, err := tr.payment(ctx, false, "authorize", "waiting_for_capture")
			return err
		}},
	{event: "payment.canceled", about: "QR payment, simulate decline",
		run: func(tr *trigger, ctx context.Context) error {
			_, err := tr.payment(ctx, true, "decline", "canceled")
			return err
		}},
	{event: "payment.authorize_request", about: "operator turns the shop's pre-check on; QR payment; the setting is restored", operator: true,
		run: (*trigger).authorizeRequest},
	{event: "refund.succeeded", about: "paid payment, refund",
		run: func(tr *trigger, ctx context.Context) error { return tr.refund(ctx, nil) }},
	{event: "refund.canceled", about: "paid payment, refund the sandbox declines (metadata sandbox_outcome decline)",
		run: func(tr *trigger, ctx context.Context) error {
			return tr.refund(ctx, map[string]string{"sandbox_outcome": "decline"})
		}},
	{event: "payment_link.paid", about: "one-time payment link, paid on its page and the payment page as a payer, simulate succeed", stage: "M5",
		run: (*trigger).linkPaid},
	{event: "payout.succeeded", about: "operator moves the clock to just after midnight, paid payment, clock past the hold, payout to tok_sandbox_4242, clock past the decision", operator: true, stage: "M5",
		run: func(tr *trigger, ctx context.Context) error { return tr.payout(ctx, "tok_sandbox_4242", "succeeded") }},
	{event: "payout.canceled", about: "operator moves the clock to just after midnight, paid payment, clock past the hold, payout to tok_sandbox_0002 (declined), clock past the decision", operator: true, stage: "M5",
		run: func(tr *trigger, ctx context.Context) error { return tr.payout(ctx, "tok_sandbox_0002", "canceled") }},
	{event: "settlement.paid", about: "paid payment, operator moves the clock two days, forms the test register, approves, sends and pays it", operator: true,
		run: (*trigger).settlementPaid},
	{event: "settlement.frozen", about: "operator freezes the merchant's test payouts", operator: true,
		run: func(tr *trigger, ctx context.Context) error { return tr.freeze(ctx, "freeze") }},
	{event: "settlement.unfrozen", about: "operator freezes, then unfreezes, the merchant's test payouts", operator: true,
		run: func(tr *trigger, ctx context.Context) error {
			if err := tr.freeze(ctx, "freeze"); err != nil && !isState(err) {
				return err
			}
			return tr.freeze(ctx, "unfreeze")
		}},
	{event: "dispute.opened", about: "paid payment, sandbox dispute", stage: "M2",
		run: func(tr *trigger, ctx context.Context) error { _, err := tr.dispute(ctx, ""); return err }},
	{event: "dispute.evidence_required", about: "sandbox dispute, simulate evidence_required", stage: "M2",
		run: func(tr *trigger, ctx context.Context) error {
			_, err := tr.dispute(ctx, "evidence_required")
			return err
		}},
	{event: "dispute.submitted", about: "sandbox dispute, evidence uploaded and attached, operator submits it to the bank", operator: true, stage: "M2",
		run: func(tr *trigger, ctx context.Context) error {
			id, err := tr.dispute(ctx, "")
			if err != nil {
				return err
			}
			if err := tr.evidence(ctx, id); err != nil {
				return err
			}
			return tr.c.do(ctx, true, http.MethodPost, "/admin/v1/disputes/"+id+"/submit", "", map[string]any{}, nil)
		}},
	{event: "dispute.closed", about: "sandbox dispute, simulate won", stage: "M2",
		run: func(tr *trigger, ctx context.Context) error { _, err := tr.dispute(ctx, "won"); return err }},
}

func recipeFor(event string) (*recipe, bool) {
	for i := range recipes {
		if recipes[i].event == event {
			return &recipes[i], true
		}
	}
	return nil, false
}

func isState(err error) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.Code == "invalid_state"
}

// payment makes a QR test payment and simulates outcome on it, then waits
// for status; it returns the payment's id.
func (tr *trigger) payment(ctx context.Context, capture bool, outcome, status string) (string, error) {
	body := map[string]any{
		"amount": map[string]any{"value": "100.00", "currency": tr.currency}, "capture": capture,
		"order_id": tr.name("order"), "description": "payd trigger " + tr.event,
		"confirmation": map[string]any{"type": "qr"},
	}
	var p struct{ ID string }
	if err := tr.post(ctx, "payment", "/payments", body, &p); err != nil {
		return "", err
	}
	tr.object("payment", p.ID)
	if err := tr.post(ctx, "simulate", "/test/payments/"+p.ID+"/simulate", map[string]any{"outcome": outcome}, nil); err != nil {
		return "", err
	}
	return p.ID, tr.waitFor(ctx, "/payments/"+p.ID, status)
}

func (tr *trigger) refund(ctx context.Context, metadata map[string]string) error {
	pay, err := tr.payment(ctx, true, "succeed", "succeeded")
	if err != nil {
		return err
	}
	body := map[string]any{"payment_id": pay, "amount": map[string]any{"value": "10.00", "currency": tr.currency}}
	if metadata != nil {
		body["metadata"] = metadata
	}
	var r struct{ ID string }
	if err := tr.post(ctx, "refund", "/refunds", body, &r); err != nil {
		return err
	}
	tr.object("refund", r.ID)
	return nil
}

// dispute opens a sandbox dispute on a paid payment and, unless outcome
// is empty, simulates the bank's outcome on it.
func (tr *trigger) dispute(ctx context.Context, outcome string) (string, error) {
	pay, err := tr.payment(ctx, true, "succeed", "succeeded")
	if err != nil {
		return "", err
	}
	var d struct{ ID string }
	if err := tr.post(ctx, "dispute", "/test/payments/"+pay+"/disputes", map[string]any{}, &d); err != nil {
		return "", err
	}
	tr.object("dispute", d.ID)
	if outcome != "" {
		err = tr.post(ctx, "dispute_simulate", "/test/disputes/"+d.ID+"/simulate", map[string]any{"outcome": outcome}, nil)
	}
	return d.ID, err
}

func (tr *trigger) authorizeRequest(ctx context.Context) error {
	var shop struct {
		Settings map[string]any `json:"settings"`
	}
	if err := tr.c.do(ctx, true, http.MethodGet, "/admin/v1/shops/"+tr.c.shopID, "", nil, &shop); err != nil {
		return err
	}
	was, _ := shop.Settings["authorize_request_webhook"].(bool)
	if !was {
		if err := tr.c.do(ctx, true, http.MethodPatch, "/admin/v1/shops/"+tr.c.shopID, "", map[string]any{"authorize_request_webhook": true}, nil); err != nil {
			return err
		}
		defer tr.c.do(context.WithoutCancel(ctx), true, http.MethodPatch, "/admin/v1/shops/"+tr.c.shopID, "", map[string]any{"authorize_request_webhook": false}, nil)
	}
	// The pre-check is asked when the QR payment's attempt is made; with
	// no endpoint subscribed, the shop's default decides it.
	body := map[string]any{
		"amount": map[string]any{"value": "100.00", "currency": tr.currency}, "order_id": tr.name("order"),
		"description": "payd trigger " + tr.event, "confirmation": map[string]any{"type": "qr"},
	}
	var p struct{ ID string }
	if err := tr.post(ctx, "payment", "/payments", body, &p); err != nil {
		return err
	}
	tr.object("payment", p.ID)
	// The setting must hold until the payment's job asked the question.
	return tr.waitEvent(ctx)
}

// merchantID reads the shop's merchant from the operator API.
func (tr *trigger) merchantID(ctx context.Context) (string, error) {
	var shop struct {
		MerchantID string `json:"merchant_id"`
	}
	err := tr.c.do(ctx, true, http.MethodGet, "/admin/v1/shops/"+tr.c.shopID, "", nil, &shop)
	return shop.MerchantID, err
}

func (tr *trigger) freeze(ctx context.Context, action string) error {
	m, err := tr.merchantID(ctx)
	if err != nil {
		return err
	}
	body := map[string]any{"test": true}
	if action == "freeze" {
		body["reason"] = "manual_review"
	}
	return tr.c.do(ctx, true, http.MethodPost, "/admin/v1/merchants/"+m+"/"+action, "", body, nil)
}

// advance moves the service's test clock, which only a service started
// with --test-clock has.
func (tr *trigger) advance(ctx context.Context, d time.Duration) error {
	err := tr.c.do(ctx, true, http.MethodPost, "/admin/v1/clock/advance", "", map[string]any{"seconds": int64(d / time.Second)}, nil)
	var ae *apiError
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return fmt.Errorf("%s needs time to pass: start payd serve with --test-clock (make run does) so that the clock can be moved", tr.event)
	}
	if err == nil {
		// The whole service's clock moved, for every shop, and it does
		// not move back: say so where it happens.
		fmt.Fprintf(tr.out, "  the service's test clock moved forward %s, for every shop (payd admin clock shows it)\n", d)
	}
	return err
}

func (tr *trigger) settlementPaid(ctx context.Context) error {
	m, err := tr.merchantID(ctx)
	if err != nil {
		return err
	}
	if _, err := tr.payment(ctx, true, "succeed", "succeeded"); err != nil {
		return err
	}
	var now struct {
		Now time.Time `json:"now"`
	}
	if err := tr.c.do(ctx, true, http.MethodGet, "/admin/v1/clock", "", nil, &now); err != nil {
		return tr.advance(ctx, 0)
	}
	if err := tr.advance(ctx, 48*time.Hour); err != nil {
		return err
	}
	// The register of the payment's day: formed by the service's
	// schedule once the clock moved, or else here.
	var st struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	day := now.Now.Format(time.DateOnly)
	err = tr.c.do(ctx, true, http.MethodPost, "/admin/v1/merchants/"+m+"/settlements", "",
		map[string]any{"test": true, "currency": tr.currency, "date": day}, &st)
	if err != nil {
		var list struct {
			Items []struct{ ID, Status string }
		}
		if lerr := tr.c.do(ctx, false, http.MethodGet, "/settlements?status=draft&limit=1", "", nil, &list); lerr != nil || len(list.Items) == 0 {
			return err
		}
		st.ID = list.Items[0].ID
	}
	tr.object("settlement", st.ID)
	for _, a := range []string{"approve", "send", "pay"} {
		if err := tr.c.do(ctx, true, http.MethodPost, "/admin/v1/settlements/"+st.ID+"/"+a, "", map[string]any{}, nil); err != nil {
			return err
		}
	}
	return nil
}

func (tr *trigger) payout(ctx context.Context, token, status string) error {
	// A paid payment's money waits a day; once a business day has passed
	// after the payment's day, that day's register takes it
	// (settlement_delay_days), and money in a register is not paid out.
	// Made late in the evening, the payment would be in a register by
	// the time its day had passed. So it is made just after midnight in
	// the shop's region, and the clock moves a day and an hour from there.
	if err := tr.toMorning(ctx); err != nil {
		return err
	}
	if _, err := tr.payment(ctx, true, "succeed", "succeeded"); err != nil {
		return err
	}
	// A paid payment's money is pending for a day (docs/sandbox.md).
	if err := tr.advance(ctx, 25*time.Hour); err != nil {
		return err
	}
	body := map[string]any{"amount": map[string]any{"value": "10.00", "currency": tr.currency},
		"destination": map[string]any{"type": "card", "card_token": token}}
	var po struct{ ID string }
	deadline := time.Now().Add(tr.timeout)
	for {
		err := tr.post(ctx, "payout", "/payouts", body, &po)
		var ae *apiError
		if err == nil || !errors.As(err, &ae) || ae.Code != "insufficient_merchant_balance" || time.Now().After(deadline) {
			if err != nil {
				return err
			}
			break
		}
		// The release runs as a job just after the clock moved.
		time.Sleep(200 * time.Millisecond)
	}
	tr.object("payout", po.ID)
	if err := tr.waitFor(ctx, "/payouts/"+po.ID, "processing"); err != nil {
		return err
	}
	if err := tr.advance(ctx, 15*time.Second); err != nil {
		return err
	}
	return tr.waitFor(ctx, "/payouts/"+po.ID, status)
}

// toMorning moves the clock to a minute past the next midnight in the
// shop's region.
func (tr *trigger) toMorning(ctx context.Context) error {
	var now struct {
		Now time.Time `json:"now"`
	}
	if err := tr.c.do(ctx, true, http.MethodGet, "/admin/v1/clock", "", nil, &now); err != nil {
		return tr.advance(ctx, 0)
	}
	local := now.Now.In(payd.Region(tr.region).Location())
	next := time.Date(local.Year(), local.Month(), local.Day()+1, 0, 1, 0, 0, local.Location())
	return tr.advance(ctx, next.Sub(now.Now).Truncate(time.Second)+time.Second)
}

// hiddenInput finds the hidden inputs and the method buttons of a hosted
// page's form: the payer's side of a link payment is pages, not the API.
var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)

// payerForm reads the page at pageURL and posts its form, as the payer's
// browser would, with extra fields; it returns where the answer sends the
// payer (its Location).
func (tr *trigger) payerForm(ctx context.Context, browser *http.Client, pageURL string, extra url.Values) (string, error) {
	fmt.Fprintf(tr.out, "  payer GET %s\n", pageURL)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, pageURL, nil)
	resp, err := browser.Do(req)
	if err != nil {
		return "", err
	}
	page, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("payer GET %s: %d", pageURL, resp.StatusCode)
	}
	form := url.Values{}
	for _, m := range hiddenInput.FindAllSubmatch(page, -1) {
		form.Set(string(m[1]), html.UnescapeString(string(m[2])))
	}
	for k, v := range extra {
		form[k] = v
	}
	fmt.Fprintf(tr.out, "  payer POST %s %s\n", pageURL, strings.Join(slices.Sorted(maps.Keys(form)), ","))
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, pageURL, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if u, err := url.Parse(pageURL); err == nil {
		req.Header.Set("Origin", u.Scheme+"://"+u.Host)
	}
	resp, err = browser.Do(req)
	if err != nil {
		return "", err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther && resp.StatusCode != http.StatusFound {
		return "", fmt.Errorf("payer POST %s: %d", pageURL, resp.StatusCode)
	}
	to, err := resp.Location()
	if err != nil {
		return "", err
	}
	return to.String(), nil
}

func (tr *trigger) linkPaid(ctx context.Context) error {
	var link struct {
		ID  string `json:"id"`
		URL string `json:"url"`
	}
	body := map[string]any{"description": "payd trigger " + tr.event, "amount": map[string]any{"value": "100.00", "currency": tr.currency}}
	if err := tr.post(ctx, "payment_link", "/payment-links", body, &link); err != nil {
		return err
	}
	tr.object("payment_link", link.ID)
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	checkout, err := tr.payerForm(ctx, browser, link.URL, nil)
	if err != nil {
		return err
	}
	// The payer chooses the region's QR method: its attempt is made at
	// once, so the sandbox's simulate applies.
	method := "sbp"
	if tr.currency == "KZT" {
		method = "kz_qr"
	}
	if _, err := tr.payerForm(ctx, browser, checkout, url.Values{"method": {method}}); err != nil {
		return err
	}
	var full struct {
		Payments []string `json:"payments"`
	}
	if err := tr.c.do(ctx, false, http.MethodGet, "/payment-links/"+link.ID, "", nil, &full); err != nil {
		return err
	}
	if len(full.Payments) == 0 {
		return fmt.Errorf("the link %s has no payment after the payer's form", link.ID)
	}
	pay := full.Payments[len(full.Payments)-1]
	tr.object("payment", pay)
	if err := tr.post(ctx, "simulate", "/test/payments/"+pay+"/simulate", map[string]any{"outcome": "succeed"}, nil); err != nil {
		return err
	}
	return tr.waitFor(ctx, "/payments/"+pay, "succeeded")
}

// evidence uploads a small receipt and attaches it to the dispute, as the
// merchant's code would (docs/disputes.md, "Evidence").
func (tr *trigger) evidence(ctx context.Context, dispute string) error {
	file := []byte("%PDF-1.4\n% payd trigger receipt\n")
	var up struct {
		FileID    string `json:"file_id"`
		UploadURL string `json:"upload_url"`
	}
	if err := tr.post(ctx, "evidence_upload", "/disputes/"+dispute+"/evidence/uploads",
		map[string]any{"file_name": "receipt.pdf", "content_type": "application/pdf", "size_bytes": len(file)}, &up); err != nil {
		return err
	}
	fmt.Fprintf(tr.out, "  PUT %s (%d bytes)\n", up.UploadURL, len(file))
	req, _ := http.NewRequestWithContext(ctx, http.MethodPut, up.UploadURL, bytes.NewReader(file))
	req.Header.Set("Content-Type", "application/pdf")
	resp, err := tr.c.http.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("PUT %s: %d", up.UploadURL, resp.StatusCode)
	}
	tr.object("evidence_file", up.FileID)
	return tr.post(ctx, "evidence", "/disputes/"+dispute+"/evidence", map[string]any{"file_ids": []string{up.FileID}}, nil)
}
