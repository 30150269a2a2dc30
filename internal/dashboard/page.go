package dashboard

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
	"github.com/paydhq/payd/money"
)

//go:embed templates
var templateFS embed.FS

// timeLayout is how the pages write a moment in UTC, said so, to the
// second: the title of every time shown, and the moments of pages that
// belong to no shop.
const timeLayout = "2006-01-02 15:04:05 UTC"

// moment is t as a page shows it: in the page's zone (the shop's,
// payd.Shop.Location), with the zone's offset from UTC, in a <time>
// element whose datetime is the UTC moment and whose title, shown on
// hover, is the UTC time.
func moment(l webpage.Locale, t time.Time) template.HTML {
	if t.IsZero() {
		return "—"
	}
	u := t.UTC()
	local := t.In(l.Zone())
	return template.HTML(`<time datetime="` + u.Format(time.RFC3339) + `" title="` + u.Format(timeLayout) + `">` +
		local.Format("2006-01-02 15:04:05") + " " + utcOffset(local) + `</time>`)
}

// utcOffset names the offset of t's zone as "UTC+3", "UTC+5:30", "UTC".
// Zone abbreviations are left out: tzdata has none for Almaty ("+05"),
// and MSK reads as nothing in Kazakh.
func utcOffset(t time.Time) string {
	_, off := t.Zone()
	if off == 0 {
		return "UTC"
	}
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	s := "UTC" + sign + strconv.Itoa(off/3600)
	if m := off % 3600 / 60; m != 0 {
		s += fmt.Sprintf(":%02d", m)
	}
	return s
}

// funcs are the helpers the templates share.
var funcs = template.FuncMap{
	"money": func(l webpage.Locale, a money.Amount) string { return l.Amount(a.Minor, string(a.Currency)) },
	"moneyp": func(l webpage.Locale, a *money.Amount) string {
		if a == nil {
			return "—"
		}
		return l.Amount(a.Minor, string(a.Currency))
	},
	"when": moment,
	"whenp": func(l webpage.Locale, t *time.Time) template.HTML {
		if t == nil {
			return "—"
		}
		return moment(l, *t)
	},
	"day":          func(t time.Time) string { return t.UTC().Format("2006-01-02") },
	"label":        label,
	"options":      options,
	"nav":          nav,
	"disputeBadge": disputeBadge,
	"cancellation": cancellation,
	"destination":  destination,
}

// templates holds one template set per page: the layout and the page's
// own file, which defines "content".
var templates = webpage.ParsePages(templateFS, "templates", funcs)

// page is one route of the signed-in dashboard, served for live data
// under Prefix and for test data under Prefix+"test/".
type page struct {
	method string
	// path follows the mode's prefix: "" is the home page.
	path string
	// perm is what the user's role must allow, checked here on the server
	// whatever the page shows. A change's page takes it from the domain's
	// action (payd.AuditAction.Permission), which the domain checks again
	// in the change's own transaction: this check only answers sooner.
	perm payd.Permission
	fn   func(*req)
}

// req is one signed-in request: who, which shop and mode, in which
// language.
type req struct {
	h     *Handler
	w     http.ResponseWriter
	r     *http.Request
	ctx   context.Context
	sess  *payd.Session
	user  *payd.User
	shops []*payd.Shop
	shop  *payd.Shop
	test  bool
	l     webpage.Locale
}

// base is the prefix of the request's mode: test pages live under
// /dashboard/test/.
func (q *req) base() string {
	if q.test {
		return Prefix + "test/"
	}
	return Prefix
}

// principal acts as the chosen shop in the page's mode, as the user: the
// same Service methods as the API, with the actor recorded in the audit
// log.
func (q *req) principal() *payd.Principal {
	return &payd.Principal{Shop: q.shop, Mode: payd.ModeOf(q.test), Actor: q.actor()}
}

func (q *req) actor() *payd.Actor {
	return &payd.Actor{UserID: q.user.ID, Email: q.user.Email, Addr: q.h.source.Addr(q.r).String()}
}

// can reports whether the user's role allows p.
func (q *req) can(p payd.Permission) bool { return q.user.Role.Can(p) }

// layout is what every signed-in page shows around its content.
type layout struct {
	L        webpage.Locale
	Title    string
	Nav      string
	User     *payd.User
	Shops    []*payd.Shop
	Shop     *payd.Shop
	Test     bool
	Base     string
	CSRF     string
	Path     string
	Other    string // the same page in the other mode
	Notice   string
	Problem  string
	P        any
	can      func(payd.Permission) bool
	Sections []section
}

// Can lets a template hide what the role does not allow; the server
// checks again on every post.
func (l layout) Can(p string) bool { return l.can != nil && l.can(payd.Permission(p)) }

type section struct {
	Nav, Href, Label string
}

// sections are the dashboard's navigation, each shown to the roles that
// may read it.
func (q *req) sections() []section {
	b := q.base()
	s := []section{
		{"home", b, q.l.T("Home")},
		{"payments", b + "payments", q.l.T("Payments")},
		{"refunds", b + "refunds", q.l.T("Refunds")},
	}
	if q.h.svc.Stage() >= payd.StageM2 {
		s = append(s, section{"disputes", b + "disputes", q.l.T("Disputes")})
	}
	if q.h.svc.Stage() >= payd.StageM5 {
		s = append(s, section{"links", b + "links", q.l.T("Payment links")}, section{"payouts", b + "payouts", q.l.T("Payouts")})
	}
	s = append(s, section{"balance", b + "balance", q.l.T("Balance")},
		section{"developers", b + "developers", q.l.T("Developers")})
	if q.test {
		s = append(s, section{"sandbox", b + "sandbox", q.l.T("Sandbox")})
	}
	if q.can(payd.PermUsers) {
		s = append(s, section{"users", Prefix + "users", q.l.T("Users")})
	}
	return s
}

// shown is the page's locale in the chosen shop's zone, in which its
// moments are written.
func (q *req) shown() webpage.Locale {
	if q.shop != nil {
		return q.l.In(q.shop.Location())
	}
	return q.l
}

// render writes a page in the layout.
func (q *req) render(status int, name, nav, title string, p any) {
	other := Prefix + "test/" + strings.TrimPrefix(q.r.URL.Path, q.base())
	if q.test {
		other = Prefix + strings.TrimPrefix(q.r.URL.Path, q.base())
	}
	v := layout{L: q.shown(), Title: title, Nav: nav, User: q.user, Shops: q.shops, Shop: q.shop, Test: q.test,
		Base: q.base(), CSRF: q.h.csrf(q.sess), Path: q.r.URL.Path, Other: sectionOf(other), P: p, can: q.can,
		Notice: q.r.URL.Query().Get("done"), Sections: q.sections()}
	switch {
	case v.Notice == switchedNotice:
		v.Notice = q.l.T("Opened in the shop %s, where this belongs: it is now the selected shop.", q.shop.Name)
	case v.Notice != "":
		v.Notice = q.l.T(noticeText(v.Notice))
	}
	q.h.write(q.w, status, name, v)
}

// sectionOf keeps the mode switch from leading to an object of the other
// mode: /dashboard/payments/pay_1 switches to /dashboard/test/payments.
func sectionOf(path string) string {
	rest := strings.TrimPrefix(path, Prefix)
	test := strings.HasPrefix(rest, "test/")
	rest = strings.TrimPrefix(rest, "test/")
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	if test {
		return Prefix + "test/" + rest
	}
	return Prefix + rest
}

func (h *Handler) write(w http.ResponseWriter, status int, name string, v any) {
	t, ok := templates[name]
	if !ok {
		panic("dashboard: no template " + name)
	}
	// Rendered to a buffer first, so a template error is a clean 500 and
	// never half a page.
	buf := rendered.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledPage {
			buf.Reset()
			rendered.Put(buf)
		}
	}()
	if err := t.ExecuteTemplate(buf, "layout.html", v); err != nil {
		h.log.Error("dashboard: render", "page", name, "err", err.Error())
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// rendered hold the buffers pages are rendered into: a list page is tens
// of KiB, grown afresh for every page before.
var rendered = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledPage is the largest buffer kept for the next page.
const maxPooledPage = 1 << 20

// redirect answers a post with 303 to a page of the same mode, with a
// notice to show there.
func (q *req) redirect(path, notice string) {
	u := q.base() + path
	if notice != "" {
		u += "?done=" + url.QueryEscape(notice)
	}
	http.Redirect(q.w, q.r, u, http.StatusSeeOther)
}

// fail shows an error of the service on a page of its own: a refusal in
// its own words, anything else as a generic failure logged with the
// request (act.go).
func (q *req) fail(err error) {
	if pe := refusal(err); pe != nil {
		q.showRefusal(pe)
		return
	}
	q.failed(err)
}

// problem renders a page that says what went wrong and changes nothing.
func (q *req) problem(status int, msg string) {
	q.render(status, "problem", "", q.l.T("Not done"), struct{ Message string }{msg})
}

// notices are the words shown after a post succeeded, by the code its
// redirect carries (?done=); an unknown code shows a plain "Done.".
var notices = map[string]string{
	"captured": "The payment was captured.",
	"canceled": "The payment was canceled.",
	"refunded": "The refund was created.",
	"resent":   "The event will be delivered again.",
}

func noticeText(code string) string {
	for _, set := range []map[string]string{notices, moneyNotices, developersNotices, usersNotices} {
		if t, ok := set[code]; ok {
			return t
		}
	}
	return "Done."
}

// refuse answers a request refused before any session was looked at.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	l := chooseLocale(w, r)
	h.write(w, status, "problem", layout{L: l, Title: l.T("Not done"), Base: Prefix, P: struct{ Message string }{l.T(msg)}})
}
