package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// A support agent answers a dispute from the browser: the file chosen in
// the page's file input comes back byte for byte through the operator's
// download.
func TestDashboardEvidenceFromTheBrowser(t *testing.T) {
	d := openDesk(t, paydtest.Backends(t)[0], payd.RoleSupport)
	pay := d.pay(t, "1000.00", "order-evidence")
	id := d.api.Post("/v1/test/payments/"+pay+"/disputes", "e2e-dispute-1", map[string]any{
		"amount": map[string]any{"value": "300.00", "currency": "RUB"}, "reason_code": "13.1"}).Expect(t, 201).JSON(t)["id"].(string)
	file := make([]byte, 300<<10)
	_, _ = rand.Read(file)
	copy(file, "%PDF-1.7\n")
	path := filepath.Join(t.TempDir(), "receipt.pdf")
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	d.signIn(t, d.email, d.match)
	d.tab.do("open the dispute",
		chromedp.Navigate(d.base+"/dashboard/test/disputes/"+id),
		chromedp.WaitVisible(chromedp.ID("evidence-file")))
	d.tab.checkAccessible(t, "dispute")
	d.tab.do("attach the receipt",
		chromedp.SetUploadFiles(chromedp.ID("evidence-file"), []string{path}),
		chromedp.Click(chromedp.ID("evidence-submit")))
	d.tab.waitFor(t, "the answer", `location.search.includes("done=") && document.readyState === "complete"`)

	ev := d.api.Get("/v1/disputes/"+id).Expect(t, 200).JSON(t)["evidence"].([]any)
	if len(ev) != 1 {
		t.Fatalf("%d evidence files, want 1", len(ev))
	}
	fileID := ev[0].(map[string]any)["file_id"].(string)

	// The page says the evidence waits to be sent, which step is under
	// way, what the reason code means; the file downloads as an
	// attachment of its type.
	d.tab.checkAccessible(t, "dispute with evidence")
	if got := get(d.tab, "the state", chromedp.Text(chromedp.ID("dispute-status"))); got != "Evidence attached, not sent yet" {
		t.Fatalf("the dispute's state reads %q", got)
	}
	if got := get(d.tab, "the current step", chromedp.Text(chromedp.CSS(`#dispute-steps li.current strong`))); got != "payd sends the evidence to the bank" {
		t.Fatalf("the current step is %q", got)
	}
	if got := get(d.tab, "the reason", chromedp.Text(chromedp.ID("reason-meaning"))); !strings.Contains(got, "not received") {
		t.Fatalf("reason 13.1 reads %q", got)
	}
	// The link's answer, fetched with the browser's own session (the
	// page's policy lets no script fetch it).
	href := get(d.tab, "the file's link", chromedp.Evaluate[string](`document.querySelector("a.evidence-file[download]").href`))
	var cookies []*network.Cookie
	d.tab.do("read the session", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		res, err := cdp.Call(ctx, tg, network.GetCookies, network.GetCookiesParams{})
		cookies = res.Cookies
		return err
	}))
	dlReq, _ := http.NewRequest("GET", href, nil)
	for _, c := range cookies {
		dlReq.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	dlResp, err := http.DefaultClient.Do(dlReq)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(dlResp.Body)
	dlResp.Body.Close()
	if dlResp.StatusCode != 200 || !bytes.Equal(got, file) || dlResp.Header.Get("Content-Type") != "application/pdf" ||
		dlResp.Header.Get("Content-Disposition") != "attachment; filename=receipt.pdf" {
		t.Fatalf("the download answers %d, %d bytes, %v", dlResp.StatusCode, len(got), dlResp.Header)
	}

	// Submitted by the operator: the countdown stops.
	d.env.AdminDo("POST", "/admin/v1/disputes/"+id+"/submit", map[string]any{}).Expect(t, 200)
	d.tab.do("open the submitted dispute",
		chromedp.Navigate(d.base+"/dashboard/test/disputes/"+id),
		chromedp.WaitVisible(chromedp.ID("time-left")))
	if got := get(d.tab, "the deadline", chromedp.Text(chromedp.ID("time-left"))); strings.Contains(got, "left") || !strings.Contains(got, "no longer runs") {
		t.Fatalf("after submission the deadline reads %q", got)
	}
	req, _ := http.NewRequest("GET", d.env.Admin.URL+"/admin/v1/disputes/"+id+"/evidence/"+fileID, nil)
	req.Header.Set("Authorization", "Bearer "+d.env.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	back, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(back, file) {
		t.Fatalf("operator download = %d, %d bytes, the same: %v", resp.StatusCode, len(back), bytes.Equal(back, file))
	}
}

// A link created on the page opens for the payer, and its page shows the
// address and a QR code of it.
func TestDashboardLinkOpens(t *testing.T) {
	d := openDesk(t, paydtest.Backends(t)[0], payd.RoleSupport)
	d.signIn(t, d.email, d.match)
	d.tab.do("open the links",
		chromedp.Navigate(d.base+"/dashboard/test/links"),
		chromedp.WaitVisible(chromedp.ID("link-form")))
	d.tab.checkAccessible(t, "links")
	d.tab.do("create a link",
		chromedp.SendKeys(chromedp.ID("link-description"), "Gift card"),
		chromedp.SendKeys(chromedp.ID("link-amount"), "750.00"),
		chromedp.Click(chromedp.ID("link-submit")),
		chromedp.WaitVisible(chromedp.ID("link-url")))
	d.tab.checkAccessible(t, "link")
	url := get(d.tab, "read the address", chromedp.Text(chromedp.ID("link-url")))
	if !strings.HasPrefix(url, d.base+"/") {
		t.Fatalf("link address %q", url)
	}
	if w := get(d.tab, "QR width", chromedp.Evaluate[int](`document.getElementById("link-qr").naturalWidth`)); w == 0 {
		t.Fatal("the QR code did not load")
	}
	d.tab.do("open the link as a payer", chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("body")))
	if body := get(d.tab, "the link's page", chromedp.Text(chromedp.CSS("body"))); !strings.Contains(body, "Gift card") {
		t.Fatalf("the link's page shows %q", body)
	}
}

// A developer rotates the test key: the new secret is shown once, works
// at once against the API, and no page shows it again.
func TestDashboardKeyRotationShowsTheSecretOnce(t *testing.T) {
	d := openDesk(t, paydtest.Backends(t)[0], payd.RoleDeveloper)
	d.signIn(t, d.email, d.match)
	d.tab.do("open the keys",
		chromedp.Navigate(d.base+"/dashboard/test/developers/keys"),
		chromedp.WaitVisible(chromedp.ID("rotate-form")))
	d.tab.checkAccessible(t, "keys")
	d.tab.do("issue a new key",
		chromedp.Submit(chromedp.ID("rotate-form")),
		chromedp.WaitVisible(chromedp.ID("new-secret")))
	secret := get(d.tab, "read the secret", chromedp.Value(chromedp.ID("new-secret")))
	if !strings.HasPrefix(secret, "test_") {
		t.Fatalf("new secret %q", secret)
	}
	d.api.WithKey(secret).Get("/v1/shop").Expect(t, 200)
	for _, page := range []string{"/dashboard/test/developers/keys", "/dashboard/test/developers", "/dashboard/audit"} {
		d.tab.do("open "+page, chromedp.Navigate(d.base+page), chromedp.WaitReady(chromedp.CSS("main")))
		if html := get(d.tab, "read "+page, chromedp.Evaluate[string](`document.documentElement.outerHTML`)); strings.Contains(html, secret) {
			t.Fatalf("%s shows the secret again", page)
		}
	}
}
