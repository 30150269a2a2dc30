package dashboard

import (
	"html"
	"html/template"
	"regexp"
	"strings"
	"testing"
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
		got := string(paymentRows(rows, cols, "/dashboard/test/", all))
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
