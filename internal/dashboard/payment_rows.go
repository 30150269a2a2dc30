package dashboard

import (
	"html/template"
	"net/url"
	"strings"
)

// paymentRows writes the rows of the payments list, each cell labelled
// with its column's name for the phone's layout (data-label).
//
// They are written here rather than in payments.html: html/template runs
// each of a row's twenty-odd actions, and the escaper after each, through
// reflection, and a page of 50 rows spent four tenths of its CPU there
// (docs/benchmarks-history.md, "The dashboard's payments page against the
// API's"). Every value goes through the escaping of where it lands, as
// the template did: text and quoted attributes through
// template.HTMLEscapeString, a link's path segment and query value through
// url.PathEscape and url.QueryEscape first. TestPaymentRowsAsTheTemplate
// holds the markup to what the template wrote.
func paymentRows(rows []rowView, c paymentCols, base string, all bool) template.HTML {
	var b strings.Builder
	b.Grow(len(rows) * 900)
	text := func(s string) { b.WriteString(template.HTMLEscapeString(s)) }
	cell := func(class, label string) {
		b.WriteString("<td")
		if class != "" {
			b.WriteString(` class="` + class + `"`)
		}
		b.WriteString(` data-label="`)
		text(label)
		b.WriteString(`">`)
	}
	for _, r := range rows {
		href := base + "payments/" + url.PathEscape(r.ID)
		if r.ShopID != "" {
			href += "?shop=" + url.QueryEscape(r.ShopID)
		}
		b.WriteString("<tr>")
		cell("", c.Created)
		b.WriteString(string(r.When))
		b.WriteString("</td>")
		cell("", c.Payment)
		if r.Description != "" {
			b.WriteString(`<a href="`)
			text(href)
			b.WriteString(`">`)
			text(r.Description)
			b.WriteString(`</a><br><span class="mono muted">`)
			text(r.ID)
			b.WriteString(`</span>`)
		} else {
			b.WriteString(`<a class="mono" href="`)
			text(href)
			b.WriteString(`">`)
			text(r.ID)
			b.WriteString(`</a>`)
		}
		b.WriteString("</td>")
		cell("anywhere", c.Customer)
		if r.Customer != "" {
			text(r.Customer)
		} else {
			b.WriteString("—")
		}
		b.WriteString("</td>")
		cell("mono", c.OrderID)
		text(r.OrderID)
		b.WriteString("</td>\n")
		cell("", c.Status)
		b.WriteString(`<span class="badge `)
		text(r.Status)
		b.WriteString(`">`)
		text(r.StatusLabel)
		b.WriteString("</span></td>")
		cell("num", c.Amount)
		text(r.Amount)
		b.WriteString("</td>")
		cell("", c.Method)
		text(r.Method)
		b.WriteString("</td>")
		if all {
			cell("", c.Shop)
			text(r.ShopName)
			b.WriteString("</td>")
		}
		b.WriteString("</tr>")
	}
	return template.HTML(b.String())
}
