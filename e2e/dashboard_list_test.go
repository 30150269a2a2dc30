package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// A list pages both ways: older twice, then newer, then the first page,
// each landing on the rows it showed before; a row is named by what the
// payment was for and who paid, not by its id alone.
func TestDashboardListPagesBothWays(t *testing.T) {
	d := openDesk(t, paydtest.Backends(t)[0], payd.RoleSupport)
	const n = 2*50 + 3 // three pages of the dashboard's 50 rows
	for i := range n {
		d.api.Post("/v1/payments", fmt.Sprintf("e2e-list-%04d", i), map[string]any{
			"amount": map[string]any{"value": "100.00", "currency": "RUB"}, "order_id": fmt.Sprintf("order-list-%04d", i),
			"description": fmt.Sprintf("Teapot no. %d", i), "customer": map[string]any{"email": fmt.Sprintf("buyer%d@example.com", i)},
			"confirmation": map[string]any{"type": "qr"}}).Expect(t, 201)
	}
	d.signIn(t, d.email, d.match)
	firstRow := func(what string) string {
		t.Helper()
		return get(d.tab, "the first row of "+what, chromedp.Text(chromedp.CSS(`#payments tbody tr`)))
	}
	follow := func(rel string) {
		t.Helper()
		before := get(d.tab, "the address", chromedp.Location())
		d.tab.do("follow "+rel, chromedp.Click(chromedp.CSS(`nav.pager a`+rel)))
		d.tab.waitFor(t, "the page after "+rel, fmt.Sprintf(`location.href !== %q && document.readyState === "complete"`, before))
	}
	d.tab.do("open the payments", chromedp.Navigate(d.base+"/dashboard/test/payments?lang=en"), chromedp.WaitVisible(chromedp.ID("payments")))
	page1 := firstRow("page 1")
	if !strings.Contains(page1, "Teapot no. 102") || !strings.Contains(page1, "buyer102@example.com") {
		t.Fatalf("the newest row shows %q, without its description and customer", page1)
	}
	if n := get(d.tab, "newer links on page 1", chromedp.Evaluate[int](`document.querySelectorAll('nav.pager a[rel=prev]').length`)); n != 0 {
		t.Fatal("the first page links to a newer one")
	}
	d.tab.checkAccessible(t, "payments, page 1")
	follow(`[rel=next]`)
	page2 := firstRow("page 2")
	follow(`[rel=next]`)
	if rows := get(d.tab, "rows of page 3", chromedp.Evaluate[int](`document.querySelectorAll("#payments tbody tr").length`)); rows != n-100 {
		t.Fatalf("the last page shows %d rows, want %d", rows, n-100)
	}
	if n := get(d.tab, "older links on the last page", chromedp.Evaluate[int](`document.querySelectorAll('nav.pager a[rel=next]').length`)); n != 0 {
		t.Fatal("the last page links to an older one")
	}
	d.tab.checkAccessible(t, "payments, page 3")
	follow(`[rel=prev]`)
	if got := firstRow("page 2 again"); got != page2 {
		t.Fatalf("newer from page 3 shows %q, want page 2's %q", got, page2)
	}
	follow(`:not([rel])`)
	if got := firstRow("page 1 again"); got != page1 {
		t.Fatalf("the first page shows %q, want %q", got, page1)
	}
}
