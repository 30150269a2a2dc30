package payd

import (
	"strings"
	"unicode/utf8"
)

// checkText checks a text field's length in characters and refuses control
// characters.
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
	return nil
}
