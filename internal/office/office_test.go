package office_test

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/paydtest"
	"github.com/paydhq/payd/money"
)

// member is a staff member at a browser without JavaScript: a cookie jar
// and the forms of the pages, posted as the pages would post them.
type member struct {
	t        testing.TB
	env      *paydtest.Env
	c        *http.Client
	email    string
	password string
	secret   string
	id       string
	csrf     string
}

type answer struct {
	status   int
	body     string
	location string
}

func (m *member) do(req *http.Request) answer {
	m.t.Helper()
	req.Header.Set("Accept-Language", "en")
	resp, err := m.c.Do(req)
	if err != nil {
		m.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, body: string(b), location: resp.Header.Get("Location")}
}

func (m *member) get(path string) answer {
	m.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, m.env.Admin.URL+path, nil)
	return m.do(req)
}

// post sends a form from the back office's own origin; csrf is added
// unless the form has one.
func (m *member) post(path string, form url.Values) answer {
	m.t.Helper()
	if !form.Has("csrf") {
		form.Set("csrf", m.csrf)
	}
	req, _ := http.NewRequest(http.MethodPost, m.env.Admin.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return m.do(req)
}

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)"`)

// formOf returns the hidden inputs of the form with id on the page.
func formOf(t testing.TB, body, id string) url.Values {
	t.Helper()
	start := strings.Index(body, `id="`+id+`"`)
	if start < 0 {
		t.Fatalf("no form %q on the page:\n%s", id, body)
	}
	end := strings.Index(body[start:], "</form>")
	vals := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(body[start:start+end], -1) {
		vals.Set(m[1], html.UnescapeString(m[2]))
	}
	return vals
}

var secretOnPage = regexp.MustCompile(`id="totp-secret">([A-Z2-7]+)<`)

func code(t testing.TB, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newMember makes a staff member of role with a password, as `payd admin
// staff create` and the setup page do, and signs it in through the pages,
// enrolling its second factor: the first sign-in may do nothing else.
func newMember(t *testing.T, env *paydtest.Env, email string, role payd.StaffRole) *member {
	t.Helper()
	ctx := context.Background()
	st, token, err := env.Accounts.CreateStaff(ctx, payd.BreakGlass("127.0.0.1"), email, role)
	if err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	m := &member{t: t, env: env, email: email, password: "correct horse battery staple", id: st.ID,
		c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	setup := m.get("/office/setup/" + token)
	form := formOf(t, setup.body, "setup-form")
	form.Set("password", m.password)
	form.Set("password_again", m.password)
	if a := m.post("/office/setup/"+token, form); a.status != http.StatusOK || !strings.Contains(a.body, `id="signin-form"`) {
		t.Fatalf("setup answered %d:\n%s", a.status, a.body)
	}

	a := m.signIn()
	if a.location != "/office/second-factor" {
		t.Fatalf("the first sign-in went to %q, want the enrolment", a.location)
	}
	if p := m.get("/office/"); p.status != http.StatusSeeOther || p.location != "/office/second-factor" {
		t.Fatalf("an enroll session opened the home page: %d %q", p.status, p.location)
	}
	page := m.get("/office/second-factor")
	m.csrf = formOf(t, page.body, "enroll-begin").Get("csrf")
	begun := m.post("/office/second-factor", url.Values{})
	found := secretOnPage.FindStringSubmatch(begun.body)
	if found == nil {
		t.Fatalf("no secret on the enrolment page:\n%s", begun.body)
	}
	m.secret = found[1]
	done := m.post("/office/second-factor/confirm", url.Values{"code": {code(t, m.secret, time.Now())}})
	if done.status != http.StatusSeeOther {
		t.Fatalf("enrolment answered %d:\n%s", done.status, done.body)
	}
	m.refreshCSRF()
	return m
}

// signIn posts the sign-in form with the member's password.
func (m *member) signIn() answer {
	m.t.Helper()
	pre := formOf(m.t, m.get("/office/signin").body, "signin-form")
	pre.Set("email", m.email)
	pre.Set("password", m.password)
	a := m.post("/office/signin", pre)
	if a.status != http.StatusSeeOther {
		m.t.Fatalf("sign-in answered %d:\n%s", a.status, a.body)
	}
	return a
}

// refreshCSRF reads the session's form token from the home page.
func (m *member) refreshCSRF() {
	m.t.Helper()
	home := m.get("/office/")
	if home.status != http.StatusOK {
		m.t.Fatalf("home answered %d %q:\n%s", home.status, home.location, home.body)
	}
	m.csrf = formOf(m.t, home.body, "signout-form").Get("csrf")
}

// draftRegister forms a settlement register of a new merchant, as the
// daily job would.
func draftRegister(t *testing.T, env *paydtest.Env) string {
	t.Helper()
	ctx := context.Background()
	mer, err := env.Service.CreateMerchant(ctx, payd.MerchantCreate{Name: "Registered"})
	if err != nil {
		t.Fatal(err)
	}
	day := env.Clock.Now().In(payd.RegionRU.Location()).AddDate(0, 0, -1).Format("2006-01-02")
	st, err := env.Service.FormSettlement(ctx, mer.ID, false, money.RUB, day)
	if err != nil {
		t.Fatal(err)
	}
	return st.ID
}

// register reads a register as it is stored.
func register(env *paydtest.Env, id string) (st *payd.Settlement, err error) {
	err = env.Instance.Store.View(context.Background(), func(tx payd.Tx) error {
		st, err = tx.SettlementGet(context.Background(), id)
		return err
	})
	return st, err
}

// TestTwoPeopleApproveARegister: one finance member proposes approving a
// register, the same person cannot confirm it, another finance member
// does, and the audit log names both; a support member is refused the
// change by a form posted by hand, and nothing changes.
func TestTwoPeopleApproveARegister(t *testing.T) {
	t.Parallel()
	paydtest.ForEachBackend(t, func(t *testing.T, be paydtest.Backend) {
		env := paydtest.Start(t, be, nil)
		first := newMember(t, env, "first@operator.test", payd.StaffFinance)
		second := newMember(t, env, "second@operator.test", payd.StaffFinance)
		support := newMember(t, env, "support@operator.test", payd.StaffSupport)
		id := draftRegister(t, env)

		refused := support.post("/office/settlements/"+id+"/approve", url.Values{"from": {"draft"}})
		if refused.status != http.StatusForbidden || !strings.Contains(refused.body, "Your role does not allow this.") {
			t.Fatalf("support's approval answered %d:\n%s", refused.status, refused.body)
		}

		proposed := first.post("/office/settlements/"+id+"/approve", url.Values{"from": {"draft"}})
		if proposed.status != http.StatusSeeOther || !strings.Contains(proposed.location, "notice=proposed") {
			t.Fatalf("the proposal answered %d %q:\n%s", proposed.status, proposed.location, proposed.body)
		}
		st, err := register(env, id)
		if err != nil || st.Status != payd.SettlementDraft {
			t.Fatalf("the register after a proposal: %+v, %v; want it still a draft", st, err)
		}
		home := first.get("/office/")
		m := regexp.MustCompile(`id="proposal-(prp_[0-9A-Za-z]+)"`).FindStringSubmatch(home.body)
		if m == nil {
			t.Fatalf("no proposal on the home page:\n%s", home.body)
		}
		if strings.Contains(home.body, `action="/office/proposals/`+m[1]+`/confirm"`) {
			t.Error("the home page offers the proposer its own confirmation")
		}
		if own := first.post("/office/proposals/"+m[1]+"/confirm", url.Values{}); own.status != http.StatusForbidden {
			t.Fatalf("the proposer's own confirmation answered %d:\n%s", own.status, own.body)
		}
		if ok := second.post("/office/proposals/"+m[1]+"/confirm", url.Values{}); ok.status != http.StatusSeeOther {
			t.Fatalf("the second person's confirmation answered %d:\n%s", ok.status, ok.body)
		}
		if st, err = register(env, id); err != nil || st.Status != payd.SettlementApproved {
			t.Fatalf("the register after the confirmation: %+v, %v; want approved", st, err)
		}
		entries, err := env.Service.ListOperatorAudit(context.Background(), payd.OperatorAuditListParams{
			ListParams: payd.ListParams{Limit: 10}, ObjectID: id})
		if err != nil {
			t.Fatal(err)
		}
		if len(entries.Items) != 1 || entries.Items[0].Action != "settlements.approve" || entries.Items[0].StaffID != first.id ||
			entries.Items[0].ConfirmedByID != second.id || entries.Items[0].Via != payd.StaffViaProposal {
			t.Fatalf("audit of the register: %+v", entries.Items)
		}
	})
}

// TestPagesNeedASession: every page sends a browser without a session to
// sign in; a form posted without the session's token changes nothing.
func TestPagesNeedASession(t *testing.T) {
	t.Parallel()
	env := paydtest.Start(t, paydtest.Backends(t)[0], nil)
	jar, _ := cookiejar.New(nil)
	stranger := &member{t: t, env: env, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	for _, path := range []string{"/office/", "/office/settlements", "/office/staff", "/office/audit"} {
		if a := stranger.get(path); a.status != http.StatusSeeOther || !strings.HasPrefix(a.location, "/office/signin") {
			t.Errorf("GET %s without a session: %d %q", path, a.status, a.location)
		}
	}
	admin := newMember(t, env, "admin@operator.test", payd.StaffAdmin)
	if a := admin.post("/office/staff", url.Values{"csrf": {"forged"}, "email": {"x@operator.test"}, "role": {"support"}}); a.status != http.StatusForbidden {
		t.Errorf("a form with a forged token answered %d", a.status)
	}
	list, err := env.Accounts.ListStaff(context.Background())
	if err != nil || len(list) != 1 {
		t.Errorf("staff after a forged form: %d members, %v; want only the admin", len(list), err)
	}
}
