package office

import (
	"bytes"
	"context"
	"embed"
	"net/http"
	"net/url"
	"strings"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

//go:embed templates
var templateFS embed.FS

// templates holds one set per page: the layout and the page's own file,
// which defines "content".
var templates = webpage.ParsePages(templateFS, "templates", funcs)

// page is one route of the signed-in back office.
type page struct {
	method string
	// path follows Prefix: "" is the home page.
	path string
	// enroll lets a session that has not enrolled its second factor in:
	// only the enrolment's pages.
	enroll bool
	fn     func(*req)
}

// req is one signed-in request.
type req struct {
	h     *Handler
	w     http.ResponseWriter
	r     *http.Request
	ctx   context.Context
	sess  *payd.Session
	staff *payd.Staff
	token string
	l     webpage.Locale
}

// actor is the signed-in member as the operator API and its audit know
// it.
func (q *req) actor() *payd.StaffActor {
	return &payd.StaffActor{StaffID: q.staff.ID, Email: q.staff.Email, Role: q.staff.Role, Via: payd.StaffViaSession,
		Addr: q.h.source.Addr(q.r).String()}
}

// origin is the back office's address as the member reached it: a setup
// link it hands out opens the same back office.
func (q *req) origin() string {
	scheme := "http"
	if q.r.TLS != nil || q.h.secure {
		scheme = "https"
	}
	return scheme + "://" + q.r.Host
}

// can reports whether the member's role allows p: the pages show only
// the forms the role may post (the API refuses the others whatever a page
// shows).
func (q *req) can(p payd.StaffPermission) bool { return q.staff.Role.Can(p) }

// layout is what every page's template gets.
type layout struct {
	L      webpage.Locale
	Title  string
	Nav    string
	Staff  *payd.Staff
	CSRF   string
	Notice string
	Path   string
	// Sections are the navigation's links.
	Sections []section
	can      func(payd.StaffPermission) bool
	// P is the page's own data.
	P any
}

// Can reports whether the member may do p, for a template's forms.
func (l layout) Can(p string) bool { return l.can != nil && l.can(payd.StaffPermission(p)) }

// section is a link of the navigation.
type section struct{ Nav, Href, Label string }

func (q *req) sections() []section {
	s := []section{
		{"home", Prefix, q.l.T("Approvals")},
		{"merchants", Prefix + "merchants", q.l.T("Merchants")},
		{"settlements", Prefix + "settlements", q.l.T("Registers")},
		{"disputes", Prefix + "disputes", q.l.T("Disputes")},
		{"payments", Prefix + "payments", q.l.T("Payments")},
		{"ledger", Prefix + "ledger", q.l.T("Ledger")},
		{"routes", Prefix + "routes", q.l.T("Routes")},
		{"discrepancies", Prefix + "discrepancies", q.l.T("Discrepancies")},
	}
	if q.can(payd.StaffManageStaff) {
		s = append(s, section{"staff", Prefix + "staff", q.l.T("Staff")})
	}
	if q.can(payd.StaffAudit) {
		s = append(s, section{"audit", Prefix + "audit", q.l.T("Audit log")})
	}
	return s
}

// render writes a signed-in page: its template in the layout.
func (q *req) render(status int, name, nav, title string, p any) {
	v := layout{L: q.l, Title: title, Nav: nav, Staff: q.staff, CSRF: q.h.csrf(q.sess), Path: q.r.URL.Path,
		Notice: q.notice(), can: q.can, P: p}
	if q.sess.State == payd.SessionActive {
		v.Sections = q.sections()
	}
	q.h.write(q.w, status, name, v)
}

// write renders a page's template set into w.
func (h *Handler) write(w http.ResponseWriter, status int, name string, v any) {
	var buf bytes.Buffer
	if err := templates[name].ExecuteTemplate(&buf, "layout.html", v); err != nil {
		h.log.Error("office: render", "page", name, "err", err.Error())
		http.Error(w, "the page could not be shown", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// notices are the texts a redirect after a change may show, by name: the
// address carries the name, never the text.
var notices = map[string]string{
	"done":     "Done.",
	"proposed": "Proposed: a second staff member with the same permission must confirm it within 24 hours.",
	"rejected": "The proposal is rejected.",
}

func (q *req) notice() string {
	if text, ok := notices[q.r.URL.Query().Get("notice")]; ok {
		return q.l.T(text)
	}
	return ""
}

// redirect sends the browser to path after a change, with a notice.
func (q *req) redirect(path, notice string) {
	if notice != "" {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		path += sep + "notice=" + url.QueryEscape(notice)
	}
	http.Redirect(q.w, q.r, path, http.StatusSeeOther)
}

// problem renders a page that says what went wrong and changes nothing.
func (q *req) problem(status int, msg string) {
	q.render(status, "problem", "", q.l.T("Not done"), struct{ Message, Detail string }{Message: msg})
}

// refuse answers a request refused before any session was looked at.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	l := chooseLocale(w, r)
	h.write(w, status, "problem", layout{L: l, Title: l.T("Not done"), P: struct{ Message, Detail string }{Message: l.T(msg)}})
}
