package office

import (
	"encoding/json"
	"fmt"
	"html/template"
	"time"

	"github.com/paydhq/payd/internal/webpage"
	"github.com/paydhq/payd/money"
)

// The pages show what the operator API answered, as JSON: an amount is
// {"value": "1500.00", "currency": "RUB"}, a moment RFC 3339 in UTC.

// timeLayout is how the back office writes a moment: in UTC, said so;
// its staff work across the regions' zones.
const timeLayout = "2006-01-02 15:04:05 UTC"

var funcs = template.FuncMap{
	"money": amount,
	"when":  when,
	"str":   func(v any) string { return fmt.Sprint(v) },
	"eqs":   func(a any, b string) bool { return fmt.Sprint(a) == b },
	"minor": minorAmount,
	"word":  word,
	// nextSteps are a register's moves from its state, as the API's
	// actions name them.
	"nextSteps": func(status any) []string { return settlementSteps[fmt.Sprint(status)] },
}

// settlementSteps are the moves of a register by state, as the API's
// actions name them (payd's settlementNext).
var settlementSteps = map[string][]string{
	"draft":    {"approve"},
	"approved": {"send"},
	"sent":     {"pay", "fail"},
}

// minorAmount writes minor units of currency, as some operator answers
// give them, in the page's language.
func minorAmount(l webpage.Locale, minor, currency any) string {
	return l.Amount(number(minor), fmt.Sprint(currency))
}

// amount writes an amount of the API in the page's language ("—" when
// there is none or it cannot be read).
func amount(l webpage.Locale, v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return "—"
	}
	value, _ := m["value"].(string)
	currency, _ := m["currency"].(string)
	minor, err := money.ParseSigned(value)
	if err != nil {
		return "—"
	}
	return l.Amount(minor, currency)
}

// when writes a moment of the API in a <time> element.
func when(v any) template.HTML {
	s, _ := v.(string)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return "—"
	}
	u := t.UTC()
	return template.HTML(`<time datetime="` + u.Format(time.RFC3339) + `">` + u.Format(timeLayout) + `</time>`)
}

// number reads a JSON number of an answer.
func number(v any) int64 {
	n, _ := v.(json.Number)
	i, _ := n.Int64()
	return i
}
