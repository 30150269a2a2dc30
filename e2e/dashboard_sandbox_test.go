package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
)

// The sandbox's test clock in a browser. With one merchant its developer
// moves it from the page, by more than a session's idle timeout, and stays
// signed in (sessions count real time). Once a second merchant runs on
// the clock, the page shows the time and a sentence saying only the
// operator moves it, in each language, without the form.
func TestSandboxClockInABrowser(t *testing.T) {
	d := openDesk(t, paydtest.Backends(t)[0], payd.RoleDeveloper)
	d.signIn(t, d.email, d.match)

	before := d.env.Clock.Now()
	d.tab.do("open the sandbox",
		chromedp.Navigate(d.base+"/dashboard/test/sandbox?lang=en"),
		chromedp.WaitVisible(chromedp.ID("clock-form")))
	d.tab.checkAccessible(t, "sandbox")
	get(d.tab, "choose minutes", chromedp.Evaluate[bool](`(() => { document.getElementById("clock-unit").value = "minutes"; return true })()`))
	d.tab.do("move the clock 45 minutes",
		chromedp.SendKeys(chromedp.ID("clock-amount"), "45"),
		chromedp.Submit(chromedp.ID("clock-amount")),
		chromedp.WaitVisible(chromedp.CSS(`p.notice`)))
	if moved := d.env.Clock.Now().Sub(before); moved < 45*time.Minute || moved > 50*time.Minute {
		t.Fatalf("the clock moved %s, want 45 minutes", moved)
	}
	if got := get(d.tab, "the page after the move", chromedp.Evaluate[bool](`!!document.querySelector("nav.sections") && !!document.getElementById("clock-form")`)); !got {
		t.Fatal("a move longer than the idle timeout signed the developer out")
	}

	d.env.NewShop(payd.RegionRU, "") // another merchant's sandbox now runs on the clock
	for lang, want := range map[string]string{
		"en": "only the service's operator moves it",
		"ru": "переводит их только оператор сервиса",
		"kk": "тек сервис операторы жылжытады",
	} {
		d.tab.do("open the shared clock in "+lang,
			chromedp.Navigate(d.base+"/dashboard/test/sandbox?lang="+lang),
			chromedp.WaitVisible(chromedp.ID("clock-shared")))
		if text := get(d.tab, "read the sentence", chromedp.Text(chromedp.ID("clock-shared"))); !strings.Contains(text, want) {
			t.Errorf("the shared clock in %s says %q, want %q", lang, text, want)
		}
		if form := get(d.tab, "look for the form", chromedp.Evaluate[bool](`!!document.getElementById("clock-form")`)); form {
			t.Errorf("the shared clock in %s still has its form", lang)
		}
		if lang == "en" {
			d.tab.checkAccessible(t, "sandbox with a shared clock")
		}
	}
}
