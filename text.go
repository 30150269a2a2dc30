package payd

import (
	"strings"
	"unicode/utf8"
)

// checkText checks a text field's length in characters and refuses control
// characters and bidirectional text controls. Every free text a merchant
// (or an operator) sends goes through it: payer pages, the dashboard, the
// operator's views and exports show these texts to people.
func checkText(param, v string, minLen, maxLen int) error {
	n := utf8.RuneCountInString(v)
	if n < minLen || n > maxLen {
		if minLen > 0 && n == 0 {
			return Invalid(param, "%s is required", param)
		}
		return Invalid(param, "must be %d..%d characters", minLen, maxLen)
	}
	if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return Invalid(param, "must not contain control characters")
	}
	return CheckBidi(param, v)
}

// CheckBidi refuses the bidirectional text controls in a text people will
// read, as invalid_request naming param. The account service checks
// emails with it.
func CheckBidi(param, v string) error {
	if strings.ContainsFunc(v, isBidiControl) {
		return Invalid(param, "%s must not contain bidirectional text controls (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069): they make a text show as another", param)
	}
	return nil
}

// isBidiControl reports the Unicode bidirectional formatting characters:
// the embeddings, overrides and isolates (U+202A..U+202E, U+2066..U+2069)
// and the marks (U+061C, U+200E, U+200F). They are invisible and reorder
// what is shown: the file name "invoice\u202Efdp.exe" shows as
// "invoiceexe.pdf", an order_id "12\u202E43" as "1234" in a list a
// merchant's staff searches. Right-to-left letters themselves are text
// like any other.
func isBidiControl(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
