package dashboard

import (
	"html/template"
	"net/url"
	"strconv"
	"strings"
)

// Rows of the longest lists are written here rather than in their
// templates: html/template runs each of a row's twenty-odd actions, and
// the escaper after each, through reflection, and a page of 50 rows spent
// four tenths or more of its CPU there (docs/benchmarks-history.md, "The
// dashboard's payments page against the API's"). Every value goes through
// the escaping of where it lands, as the templates did: text and quoted
// attributes through template.HTMLEscapeString, a link's path segment and
// query value through url.PathEscape and url.QueryEscape first. The tests
// (rows_test.go) hold the markup to what the templates wrote.

// rowWriter is the markup of a list's rows under way.
type rowWriter struct{ strings.Builder }

// text writes s escaped, for an element's text or a quoted attribute, as
// template.HTMLEscapeString escapes it, straight into the rows rather than
// through an escaped copy of it.
func (w *rowWriter) text(s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		if esc := escaped(s[i], true); esc != "" {
			w.WriteString(s[last:i])
			w.WriteString(esc)
			last = i + 1
		}
	}
	w.WriteString(s[last:])
}

// escaped is what byte c is written as in markup, "" when as it is:
// quotes only where they would end an attribute's value.
func escaped(c byte, quotes bool) string {
	switch c {
	case '&':
		return "&amp;"
	case '<':
		return "&lt;"
	case '>':
		return "&gt;"
	case 0:
		return "\uFFFD"
	case '"':
		if quotes {
			return "&#34;"
		}
	case '\'':
		if quotes {
			return "&#39;"
		}
	}
	return ""
}

// monoLink writes a link to href in the monospaced face of ids, its text
// escaped.
func (w *rowWriter) monoLink(href, text string) {
	w.WriteString(`<a class="mono" href="`)
	w.text(href)
	w.WriteString(`">`)
	w.text(text)
	w.WriteString(`</a>`)
}

// badge writes a status's badge: its class the status, its text the word
// shown for it.
func (w *rowWriter) badge(status, word string) {
	w.WriteString(`<span class="badge `)
	w.text(status)
	w.WriteString(`">`)
	w.text(word)
	w.WriteString("</span>")
}

// textOrDash writes s escaped, or a dash for a value the row lacks.
func (w *rowWriter) textOrDash(s string) {
	if s == "" {
		w.WriteString("—")
		return
	}
	w.text(s)
}

// prettyJSON writes the JSON document doc indented by two spaces, as
// json.Indent indents it, and escaped as element text, in one pass: an
// events page showed 50 bodies, and indenting them through json.Indent's
// scanner (which checks every byte) into a copy to be escaped took more
// CPU than the rest of the rows. The bodies are the service's own, valid
// JSON; a document that is not comes out indented some other way, still
// escaped. It reads the stored bytes as they came from the database: a
// string of each body would be one more copy of a page's 60 KB.
func (w *rowWriter) prettyJSON(doc []byte) {
	depth, opened := 0, false
	newline := func() {
		w.WriteByte('\n')
		for range depth {
			w.WriteString("  ")
		}
	}
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			continue
		}
		// After { or [ the line breaks only if the object or array has
		// something in it: an empty one stays {} or [].
		if opened && c != '}' && c != ']' {
			opened = false
			depth++
			newline()
		}
		switch c {
		case '{', '[':
			w.WriteByte(c)
			opened = true
		case ',':
			w.WriteByte(',')
			newline()
		case ':':
			w.WriteString(": ")
		case '}', ']':
			if opened {
				opened = false
			} else {
				depth--
				newline()
			}
			w.WriteByte(c)
		case '"':
			j := i + 1
			for j < len(doc) && doc[j] != '"' {
				if doc[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(doc))
			w.content(doc[i:j])
			i = j - 1
		default:
			// A number, true, false or null: up to the next token.
			j := i + 1
			for j < len(doc) && !strings.ContainsRune(" \t\r\n,:{}[]\"", rune(doc[j])) {
				j++
			}
			w.content(doc[i:j])
			i = j - 1
		}
	}
}

// content writes b escaped as the text of an element, where only &, <
// and > mean markup; unlike text it leaves quotes as they are, which in
// a JSON body are a fifth of the bytes and would each grow fivefold
// (&#34;). It must never be used inside an attribute's value.
func (w *rowWriter) content(b []byte) {
	last := 0
	for i, c := range b {
		if esc := escaped(c, false); esc != "" {
			w.Write(b[last:i])
			w.WriteString(esc)
			last = i + 1
		}
	}
	w.Write(b[last:])
}

// cell opens a cell labelled with its column's name for the phone's
// layout (data-label), of class when it is not "".
func (w *rowWriter) cell(class, label string) {
	w.WriteString("<td")
	if class != "" {
		w.WriteString(` class="` + class + `"`)
	}
	w.WriteString(` data-label="`)
	w.text(label)
	w.WriteString(`">`)
}

// rowsHTML is a list's rows as the page prints them: one markup in pieces
// of at most rowsPiece bytes. A template prints each value through fmt,
// whose buffer is pooled only up to 64 KiB: a page's rows printed whole
// (an events log's are 150 KiB and more) were copied into a buffer
// allocated for them every time.
type rowsHTML []template.HTML

const rowsPiece = 16 << 10

// html returns the rows written. The pieces are cut at any byte: they are
// printed one after the other, never escaped, so the page is the same.
// No rows are no pieces: a page tests the list for being empty.
func (w *rowWriter) html() rowsHTML {
	s := w.String()
	if s == "" {
		return nil
	}
	pieces := make(rowsHTML, 0, len(s)/rowsPiece+1)
	for len(s) > rowsPiece {
		pieces = append(pieces, template.HTML(s[:rowsPiece]))
		s = s[rowsPiece:]
	}
	return append(pieces, template.HTML(s))
}

// paymentRows writes the rows of the payments list.
func paymentRows(rows []rowView, c paymentCols, base string, all bool) rowsHTML {
	var w rowWriter
	w.Grow(len(rows) * 900)
	for _, r := range rows {
		href := base + "payments/" + url.PathEscape(r.ID)
		if r.ShopID != "" {
			href += "?shop=" + url.QueryEscape(r.ShopID)
		}
		w.WriteString("<tr>")
		w.cell("", c.Created)
		w.WriteString(string(r.When))
		w.WriteString("</td>")
		w.cell("", c.Payment)
		if r.Description != "" {
			w.WriteString(`<a href="`)
			w.text(href)
			w.WriteString(`">`)
			w.text(r.Description)
			w.WriteString(`</a><br><span class="mono muted">`)
			w.text(r.ID)
			w.WriteString(`</span>`)
		} else {
			w.monoLink(href, r.ID)
		}
		w.WriteString("</td>")
		w.cell("anywhere", c.Customer)
		w.textOrDash(r.Customer)
		w.WriteString("</td>")
		w.cell("mono", c.OrderID)
		w.text(r.OrderID)
		w.WriteString("</td>\n")
		w.cell("", c.Status)
		w.badge(r.Status, r.StatusLabel)
		w.WriteString("</td>")
		w.cell("num", c.Amount)
		w.text(r.Amount)
		w.WriteString("</td>")
		w.cell("", c.Method)
		w.text(r.Method)
		w.WriteString("</td>")
		if all {
			w.cell("", c.Shop)
			w.text(r.ShopName)
			w.WriteString("</td>")
		}
		w.WriteString("</tr>")
	}
	return w.html()
}

// eventRows writes the rows of the events log. A user whose role may
// resend gets each event's resend form, carrying the session's form token
// csrf and an idempotency key made of key and the event's id.
func eventRows(rows []eventRow, c eventCols, base, csrf, key string, resend bool) rowsHTML {
	// Sized once: a row is about a kilobyte besides its body, which
	// indenting makes up to half as long again.
	size := 0
	for _, r := range rows {
		size += 1200 + 3*len(r.Body)/2
	}
	var w rowWriter
	w.Grow(size)
	for _, r := range rows {
		w.WriteString(`<tr id="event-`)
		w.text(r.ID)
		w.WriteString(`">`)
		w.cell("", c.Created)
		w.WriteString(string(r.When))
		w.WriteString("</td>")
		w.cell("mono", c.Event)
		w.text(r.ID)
		w.WriteString("</td>")
		w.cell("mono", c.Type)
		w.text(string(r.Type))
		switch {
		case r.Payment != "":
			w.WriteString(`<br><a href="`)
			w.text(base + "payments/" + url.PathEscape(r.Payment))
			w.WriteString(`">`)
			w.text(r.Payment)
			w.WriteString("</a>")
		case r.ObjectID != "":
			w.WriteString("<br>")
			w.text(r.ObjectID)
		}
		w.WriteString("</td>\n")
		w.cell("", c.Delivery)
		w.WriteString(`<span class="badge">`)
		w.text(r.Status)
		w.WriteString("</span> · ")
		w.text(c.Attempts)
		w.WriteString(": " + strconv.Itoa(r.Delivery.Attempts))
		if code := r.Delivery.LastResponseCode; code != nil {
			w.WriteString(" · HTTP " + strconv.Itoa(*code))
		}
		if r.LastAttempt != "" {
			w.WriteString(" · " + string(r.LastAttempt))
		}
		w.WriteString("\n")
		if resend {
			w.WriteString(`<form method="post" action="`)
			w.text(base + "events/" + url.PathEscape(r.ID) + "/resend")
			w.WriteString(`" class="inline" id="resend-`)
			w.text(r.ID)
			w.WriteString(`"><input type="hidden" name="csrf" value="`)
			w.text(csrf)
			w.WriteString(`"><input type="hidden" name="idempotency_key" value="`)
			w.text(key + "-" + r.ID)
			w.WriteString(`"><button class="secondary" type="submit">`)
			w.text(c.Resend)
			w.WriteString("</button></form>")
		}
		w.WriteString("</td>\n")
		w.cell("", c.Body)
		w.WriteString("<details><summary>")
		w.text(c.ShowBody)
		w.WriteString("</summary><pre>")
		w.prettyJSON(r.Body)
		w.WriteString("</pre></details></td></tr>")
	}
	return w.html()
}

// options writes a select's options, the chosen one selected: the
// template function of the lists' filters, in place of a range that put
// each option through three actions, every one a call through reflection
// and an escaper after it.
func options(cs []choice) template.HTML {
	var w rowWriter
	for _, c := range cs {
		w.WriteString(`<option value="`)
		w.text(c.Value)
		w.WriteString(`"`)
		if c.Selected {
			w.WriteString(` selected`)
		}
		w.WriteString(`>`)
		w.text(c.Text)
		w.WriteString(`</option>`)
	}
	return template.HTML(w.String())
}

// nav writes the links of the sections, the current one (nav) marked as
// the page's: the layout's template function, for the same reason as
// options.
func nav(sections []section, current string) template.HTML {
	var w rowWriter
	for _, s := range sections {
		w.WriteString(`<a href="`)
		w.text(s.Href)
		w.WriteString(`"`)
		if s.Nav == current {
			w.WriteString(` aria-current="page"`)
		}
		w.WriteString(`>`)
		w.text(s.Label)
		w.WriteString(`</a>`)
	}
	return template.HTML(w.String())
}
