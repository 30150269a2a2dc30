package dashboard

import (
	"bytes"
	"encoding/json"
	"html"
	"html/template"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
	"github.com/paydhq/payd/money"
)

// rowTemplate is the markup of the payments list's rows as payments.html
// held it, escaped by html/template.
var rowTemplate = template.Must(template.New("rows").Parse(`{{$c := .Cols}}{{range .Rows}}<tr><td data-label="{{$c.Created}}">{{.When}}</td><td data-label="{{$c.Payment}}">{{if .Description}}<a href="{{$.Base}}payments/{{.ID}}{{if .ShopID}}?shop={{.ShopID}}{{end}}">{{.Description}}</a><br><span class="mono muted">{{.ID}}</span>{{else}}<a class="mono" href="{{$.Base}}payments/{{.ID}}{{if .ShopID}}?shop={{.ShopID}}{{end}}">{{.ID}}</a>{{end}}</td><td class="anywhere" data-label="{{$c.Customer}}">{{if .Customer}}{{.Customer}}{{else}}—{{end}}</td><td class="mono" data-label="{{$c.OrderID}}">{{.OrderID}}</td>
<td data-label="{{$c.Status}}"><span class="badge {{.Status}}">{{.StatusLabel}}</span></td><td class="num" data-label="{{$c.Amount}}">{{.Amount}}</td><td data-label="{{$c.Method}}">{{.Method}}</td>{{if $.All}}<td data-label="{{$c.Shop}}">{{.ShopName}}</td>{{end}}</tr>{{end}}`))

// read is markup with its entities read and its percent escapes in
// capitals (html/template writes them in small letters, net/url in
// capitals: the same link).
func read(markup string) string {
	return percent.ReplaceAllStringFunc(html.UnescapeString(markup), strings.ToUpper)
}

var percent = regexp.MustCompile(`%[0-9a-fA-F]{2}`)

// TestPaymentRowsAsTheTemplate: the rows written in Go are the template's,
// character for character once the entities are read, for plain rows and
// for values that would break out of their element or attribute, in one
// shop and across shops; and no value reaches the markup unescaped.
func TestPaymentRowsAsTheTemplate(t *testing.T) {
	hostile := `<script>alert("x")</script> & 'quoted' +7`
	cols := paymentCols{Created: "Создан", Payment: "Payment", Customer: `Cust"omer`, OrderID: "Order id",
		Status: "Status", Amount: "Amount", Method: "Method", Shop: "Shop <1>"}
	rows := []rowView{
		{ID: "pay_01JQ4ZK9", OrderID: "order-1", Status: "succeeded", StatusLabel: "Succeeded", Amount: "1 000,00 ₽",
			Method: "SBP", When: `<time datetime="2026-11-30T06:00:00Z">2026-11-30 09:00:00 UTC+3</time>`},
		{ID: "pay_01JQ4ZKA", OrderID: hostile, Status: "canceled", StatusLabel: hostile, Amount: hostile, Method: hostile,
			Description: hostile, Customer: hostile, ShopID: "shop_01&x=1", ShopName: hostile},
		{ID: "pay_01JQ4ZKB", Description: "Order #5", Customer: "buyer@example.com", ShopID: "shop_01JQ", ShopName: "Second shop"},
	}
	for _, all := range []bool{false, true} {
		var want strings.Builder
		if err := rowTemplate.Execute(&want, map[string]any{"Cols": cols, "Rows": rows, "Base": "/dashboard/test/", "All": all}); err != nil {
			t.Fatal(err)
		}
		got := joined(paymentRows(rows, cols, "/dashboard/test/", all))
		if read(got) != read(want.String()) {
			t.Errorf("all=%v: rows differ from the template's\n got %s\nwant %s", all, got, want.String())
		}
		if strings.Contains(got, "<script>") || strings.Contains(got, `"x"`) || strings.Contains(got, `<1>`) || strings.Contains(got, `Cust"omer`) {
			t.Errorf("all=%v: a value reached the markup unescaped:\n%s", all, got)
		}
		if n := strings.Count(got, "<tr>"); n != len(rows) {
			t.Errorf("all=%v: %d rows written, want %d", all, n, len(rows))
		}
		if has := strings.Contains(got, "Second shop"); has != all {
			t.Errorf("all=%v: the shop column shown = %v", all, has)
		}
	}
}

// eventTemplate is the markup of the events log's rows as events.html
// held it.
var eventTemplate = template.Must(template.New("events").Parse(`{{$c := .Cols}}{{$dev := .Dev}}{{range .Rows}}<tr id="event-{{.ID}}"><td data-label="{{$c.Created}}">{{.When}}</td><td class="mono" data-label="{{$c.Event}}">{{.ID}}</td><td class="mono" data-label="{{$c.Type}}">{{.Type}}{{if .Payment}}<br><a href="{{$.Base}}payments/{{.Payment}}">{{.Payment}}</a>{{else if .ObjectID}}<br>{{.ObjectID}}{{end}}</td>
<td data-label="{{$c.Delivery}}"><span class="badge">{{.Status}}</span> · {{$c.Attempts}}: {{.Delivery.Attempts}}{{with .Delivery.LastResponseCode}} · HTTP {{.}}{{end}}{{if .LastAttempt}} · {{.LastAttempt}}{{end}}
{{if $dev}}<form method="post" action="{{$.Base}}events/{{.ID}}/resend" class="inline" id="resend-{{.ID}}"><input type="hidden" name="csrf" value="{{$.CSRF}}"><input type="hidden" name="idempotency_key" value="{{$.Key}}-{{.ID}}"><button class="secondary" type="submit">{{$c.Resend}}</button></form>{{end}}</td>
<td data-label="{{$c.Body}}"><details><summary>{{$c.ShowBody}}</summary><pre>{{.Pretty}}</pre></details></td></tr>{{end}}`))

// TestEventRowsAsTheTemplate: the events log's rows written in Go are the
// template's, for a user who may resend and one who may not, with bodies
// and object ids that would break out of their elements escaped.
func TestEventRowsAsTheTemplate(t *testing.T) {
	hostile := `</pre><script>alert("x")</script> & 'q' +1`
	code := 503
	cols := eventCols{Created: "Создан", Event: "Event", Type: "Type", Delivery: `Deli"very`, Body: "Body",
		Attempts: "attempts <n>", ShowBody: "Show the body", Resend: "Resend"}
	hostileBody, _ := json.Marshal(map[string]any{"id": "evt_01B", "data": map[string]any{"object": map[string]any{"description": hostile,
		"metadata": map[string]any{}, "items": []any{}, "amount": 1.5, "ok": true, "none": nil}}})
	rows := []eventRow{
		{Event: &payd.Event{ID: "evt_01A", Type: payd.EventPaymentSucceeded, ObjectID: "pay_01A", Body: []byte(`{"id":"evt_01A"}`),
			Delivery: payd.EventDelivery{Status: payd.DeliverySucceeded, Attempts: 1}},
			Payment: "pay_01A", Status: "Delivered",
			When: `<time datetime="2026-11-30T06:00:00Z">2026-11-30 09:00:00 UTC+3</time>`},
		{Event: &payd.Event{ID: "evt_01B", Type: payd.EventRefundSucceeded, ObjectID: hostile, Body: hostileBody,
			Delivery: payd.EventDelivery{Status: payd.DeliveryFailed, Attempts: 7, LastResponseCode: &code}},
			Status: hostile, LastAttempt: `<time datetime="2026-11-30T07:00:00Z">later</time>`},
		{Event: &payd.Event{ID: "evt_01C", Type: payd.EventPaymentCanceled, Body: []byte(`{}`), Delivery: payd.EventDelivery{Status: payd.DeliveryNone}},
			Status: "No endpoints"},
	}
	// The template showed each body as json.Indent indented it.
	type shownRow struct {
		eventRow
		Pretty string
	}
	var shown []shownRow
	for _, r := range rows {
		var b bytes.Buffer
		if err := json.Indent(&b, r.Body, "", "  "); err != nil {
			t.Fatal(err)
		}
		shown = append(shown, shownRow{r, b.String()})
	}
	for _, dev := range []bool{false, true} {
		var want strings.Builder
		data := map[string]any{"Cols": cols, "Rows": shown, "Base": "/dashboard/test/", "Dev": dev, "CSRF": `tok"1`, "Key": "dash_k"}
		if err := eventTemplate.Execute(&want, data); err != nil {
			t.Fatal(err)
		}
		got := joined(eventRows(rows, cols, "/dashboard/test/", `tok"1`, "dash_k", dev))
		if read(got) != read(want.String()) {
			t.Errorf("resend=%v: rows differ from the template's\n got %s\nwant %s", dev, got, want.String())
		}
		if strings.Contains(got, "<script>") || strings.Contains(got, "</pre><script") || strings.Contains(got, `tok"1`) || strings.Contains(got, "<n>") {
			t.Errorf("resend=%v: a value reached the markup unescaped:\n%s", dev, got)
		}
		if n := strings.Count(got, `id="resend-`); (n == len(rows)) != dev || (n == 0) == dev {
			t.Errorf("resend=%v: %d resend forms", dev, n)
		}
	}
}

// A row's text is escaped exactly as html/template's escaper escapes it,
// whatever bytes it holds.
func TestRowTextEscapedAsTheTemplate(t *testing.T) {
	for _, s := range []string{"", "plain", `{"a": "b's & <c>"}`, "nul\x00byte", "\xff\xfe broken utf-8 <", "ünïcödé ' \" & < >",
		`&amp; already`, "<<>>", "'"} {
		var w rowWriter
		w.text(s)
		if got, want := w.String(), template.HTMLEscapeString(s); got != want {
			t.Errorf("text(%q) = %q, want %q", s, got, want)
		}
	}
}

// An event's body is shown as json.Indent indents it, escaped as an
// element's text, whatever the document holds: nesting, empty objects and
// arrays, quotes and backslashes in strings, markup, numbers, space
// between tokens. What the browser shows is the indented document itself,
// and no markup of the document survives as markup.
func TestPrettyJSONAsIndent(t *testing.T) {
	for _, doc := range []string{
		`{}`, `[]`, `null`, `"<b>&'x'</b>"`, `12.5e-3`,
		`{"a":1,"b":[1,2,{"c":[]}],"d":{},"e":{"f":null,"g":true,"h":false}}`,
		`{"q":"a \"quoted\" \\ word, with: {braces} [and] commas","u":"\u003cscript\u003e ü"}`,
		` { "spaced" : [ 1 , 2 ] , "s" : " in  string " } `,
		`[[[[]]],[{}],[{"x":[{"y":{}}]}]]`,
		`{"html":"</pre><script>alert(1)</script>","amp":"a&b","apos":"it's"}`,
	} {
		var b bytes.Buffer
		if err := json.Indent(&b, []byte(doc), "", "  "); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		var w rowWriter
		w.prettyJSON([]byte(doc))
		indented := strings.TrimSpace(b.String())
		if got, want := w.String(), contentEscaper.Replace(indented); got != want {
			t.Errorf("prettyJSON(%s)\n got %s\nwant %s", doc, got, want)
		}
		if shown := html.UnescapeString(w.String()); shown != indented {
			t.Errorf("prettyJSON(%s) shows\n%s\nwant\n%s", doc, shown, indented)
		}
		if strings.ContainsAny(w.String(), "<>") {
			t.Errorf("prettyJSON(%s) = %s: markup left unescaped", doc, w.String())
		}
	}
}

// contentEscaper escapes what means markup in an element's text.
var contentEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// settlementTemplate is the markup of the balance page's registers as
// balance.html held it.
var settlementTemplate = template.Must(template.New("settlements").Funcs(template.FuncMap{
	"money": func(l webpage.Locale, a money.Amount) string { return l.Amount(a.Minor, string(a.Currency)) },
	"label": label,
}).Parse(`{{range .P.Settlements}}<tr><td data-label="{{$.L.T "Settlement"}}"><a class="mono" href="{{$.Base}}settlements/{{.ID}}">{{.ID}}</a></td><td data-label="{{$.L.T "Period"}}">{{.PeriodFrom}} – {{.PeriodTo}}</td><td data-label="{{$.L.T "State"}}"><span class="badge">{{label $.L .Status}}</span></td><td class="num" data-label="{{$.L.T "Turnover"}}">{{money $.L .GrossAmount}}</td><td class="num" data-label="{{$.L.T "Fee"}}">{{money $.L .FeeAmount}}</td><td class="num" data-label="{{$.L.T "Refunds"}}">{{money $.L .RefundsAmount}}</td><td class="num" data-label="{{$.L.T "Net"}}">{{$.L.Amount .NetAmount.Minor (print .Currency)}}</td><td data-label="{{$.L.T "Register"}}"><a href="{{$.Base}}settlements/{{.ID}}.csv">CSV</a></td></tr>{{end}}`))

// TestSettlementRowsAsTheTemplate: the registers' rows written in Go are
// the template's in both languages, for a paid register and a draft with
// a negative net and an id that would break out of its attribute.
func TestSettlementRowsAsTheTemplate(t *testing.T) {
	sts := []*payd.SettlementJSON{
		{ID: "stl_01A", Status: payd.SettlementPaid, PeriodFrom: "2026-11-01", PeriodTo: "2026-11-02", Currency: money.RUB,
			GrossAmount: money.New(1_234_500, money.RUB), FeeAmount: money.New(19_135, money.RUB),
			RefundsAmount: money.New(0, money.RUB), NetAmount: money.Signed{Minor: 1_215_365, Currency: money.RUB}},
		{ID: `stl_"><script>x`, Status: payd.SettlementDraft, PeriodFrom: "2026-11-02", PeriodTo: "2026-11-03", Currency: money.KZT,
			GrossAmount: money.New(100, money.KZT), FeeAmount: money.New(3, money.KZT),
			RefundsAmount: money.New(500, money.KZT), NetAmount: money.Signed{Minor: -403, Currency: money.KZT}},
	}
	for _, lang := range []string{"en", "ru"} {
		l := webpage.For(lang)
		var want strings.Builder
		data := map[string]any{"L": l, "Base": "/dashboard/test/", "P": map[string]any{"Settlements": sts}}
		if err := settlementTemplate.Execute(&want, data); err != nil {
			t.Fatal(err)
		}
		got, err := settlementRows(l, sts, "/dashboard/test/")
		if err != nil {
			t.Fatal(err)
		}
		if read(joined(got)) != read(want.String()) {
			t.Errorf("%s: rows differ from the template's\n got %s\nwant %s", lang, got, want.String())
		}
		if strings.Contains(joined(got), "<script>") {
			t.Errorf("%s: an id reached the markup unescaped:\n%s", lang, got)
		}
	}
}

// refundTemplate is the markup of the refunds list's rows as refunds.html
// held it, with each row's moment, status word and amount made in Go.
var refundTemplate = template.Must(template.New("refunds").Parse(`{{$c := .Cols}}{{range .Rows}}<tr><td data-label="{{$c.Created}}">{{.When}}</td><td class="mono" data-label="{{$c.Refund}}">{{.ID}}</td><td data-label="{{$c.Payment}}"><a class="mono" href="{{$.Base}}payments/{{.PaymentID}}">{{.PaymentID}}</a></td><td class="mono" data-label="{{$c.OrderID}}">{{.OrderID}}</td>
<td data-label="{{$c.Status}}"><span class="badge {{.Status}}">{{.StatusLabel}}</span></td><td class="num" data-label="{{$c.Amount}}">{{.Amount}}</td><td data-label="{{$c.Reason}}">{{if .Reason}}{{.Reason}}{{else}}—{{end}}</td></tr>{{end}}`))

// TestRefundRowsAsTheTemplate: the refunds' rows written in Go are the
// template's, with and without a reason, and with values that would break
// out of their element or attribute escaped.
func TestRefundRowsAsTheTemplate(t *testing.T) {
	hostile := `<script>alert("x")</script> & 'q'`
	at := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	refunds := []*payd.Refund{
		{ID: "rf_01A", PaymentID: "pay_01A", OrderID: "order-1", Status: payd.RefundSucceeded, Amount: money.New(150_00, money.RUB),
			Reason: "Returned", CreatedAt: at},
		{ID: "rf_01B", PaymentID: `pay_"><b>`, OrderID: hostile, Status: payd.RefundPending, Amount: money.New(7, money.KZT),
			Reason: hostile, CreatedAt: at.Add(time.Hour)},
		{ID: "rf_01C", PaymentID: "pay_01C", Status: payd.RefundCanceled, Amount: money.New(1, money.RUB), CreatedAt: at},
	}
	cols := refundCols{Created: "Создан", Refund: "Refund", Payment: `Pay"ment`, OrderID: "Order id", Status: "Status <s>",
		Amount: "Amount", Reason: "Reason"}
	l := webpage.For("ru")
	type shownRow struct {
		*payd.Refund
		When                template.HTML
		StatusLabel, Amount string
	}
	var rows []shownRow
	for _, r := range refunds {
		w, err := label(l, r.Status)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, shownRow{r, moment(l, r.CreatedAt), w, l.Amount(r.Amount.Minor, string(r.Amount.Currency))})
	}
	var want strings.Builder
	if err := refundTemplate.Execute(&want, map[string]any{"Cols": cols, "Rows": rows, "Base": "/dashboard/test/"}); err != nil {
		t.Fatal(err)
	}
	got, err := refundRows(l, refunds, cols, "/dashboard/test/")
	if err != nil {
		t.Fatal(err)
	}
	if read(joined(got)) != read(want.String()) {
		t.Errorf("rows differ from the template's\n got %s\nwant %s", got, want.String())
	}
	if strings.Contains(joined(got), "<script>") || strings.Contains(joined(got), "<s>") || strings.Contains(joined(got), `"><b>`) {
		t.Errorf("a value reached the markup unescaped:\n%s", got)
	}
}

// joined is the rows' markup as the page prints it.
func joined(r rowsHTML) string {
	var b strings.Builder
	for _, p := range r {
		b.WriteString(string(p))
	}
	return b.String()
}

// TestRowsInPieces: rows longer than a piece are cut into pieces that
// make the same markup, none longer than a piece.
func TestRowsInPieces(t *testing.T) {
	var w rowWriter
	for i := range 5000 {
		w.WriteString("<tr><td>")
		w.text(strconv.Itoa(i) + ` "é" & <x>`)
		w.WriteString("</td></tr>")
	}
	want := w.String()
	got := w.html()
	if len(want) <= 2*rowsPiece || len(got) < 3 {
		t.Fatalf("%d bytes in %d pieces: the test needs several", len(want), len(got))
	}
	for _, p := range got {
		if len(p) > rowsPiece {
			t.Fatalf("a piece of %d bytes", len(p))
		}
	}
	if joined(got) != want {
		t.Fatal("the pieces do not make the rows")
	}
	var none rowWriter
	if r := none.html(); r != nil {
		t.Fatalf("no rows made %d pieces: a page would not say the list is empty", len(r))
	}
}

// TestOptionsAndNavAsTheTemplate: the filters' options and the sections'
// links written in Go are what the templates' ranges wrote, for plain
// values and for values that would break out of their attribute or
// element, with one chosen or none.
func TestOptionsAndNavAsTheTemplate(t *testing.T) {
	hostile := `<b>"x"</b> & 'y'`
	optionTemplate := template.Must(template.New("options").Parse(
		`{{range .}}<option value="{{.Value}}"{{if .Selected}} selected{{end}}>{{.Text}}</option>{{end}}`))
	navTemplate := template.Must(template.New("nav").Parse(
		`{{range .Sections}}<a href="{{.Href}}"{{if eq .Nav $.Nav}} aria-current="page"{{end}}>{{.Label}}</a>{{end}}`))
	for _, cs := range [][]choice{
		nil,
		{{Value: "pending", Text: "Ожидает"}, {Value: "succeeded", Text: "Оплачен", Selected: true}},
		{{Value: hostile, Text: hostile}, {Value: "b", Text: "B"}},
	} {
		var want strings.Builder
		if err := optionTemplate.Execute(&want, cs); err != nil {
			t.Fatal(err)
		}
		if got := string(options(cs)); read(got) != read(want.String()) {
			t.Errorf("options differ from the template's\n got %s\nwant %s", got, want.String())
		}
	}
	if got := string(options([]choice{{Value: hostile, Text: hostile}})); strings.Contains(got, "<b>") || strings.Contains(got, `"x"`) {
		t.Errorf("an option's value reached the markup unescaped: %s", got)
	}
	sections := []section{{"home", "/dashboard/test/", "Главная"}, {"payments", "/dashboard/test/payments", "Платежи"},
		{"users", "/dashboard/users?a=1&b=2", hostile}}
	for _, current := range []string{"payments", "users", "none"} {
		var want strings.Builder
		if err := navTemplate.Execute(&want, map[string]any{"Sections": sections, "Nav": current}); err != nil {
			t.Fatal(err)
		}
		got := string(nav(sections, current))
		if read(got) != read(want.String()) {
			t.Errorf("nav at %s differs from the template's\n got %s\nwant %s", current, got, want.String())
		}
		if strings.Count(got, `aria-current="page"`) != strings.Count(want.String(), `aria-current="page"`) {
			t.Errorf("nav at %s marks another section: %s", current, got)
		}
	}
}
