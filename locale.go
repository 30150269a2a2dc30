package payd

import "slices"

// locales are the languages of the payer's pages, the values of
// confirmation.locale without a region (docs/payments.md, Payer's
// language).
var locales = []string{"ru", "kk", "en"}

// Locales returns the languages of the payer's pages ("ru", "kk", "en"),
// in that order. Each call returns a new slice.
func Locales() []string { return slices.Clone(locales) }

// ParseLocale reads confirmation.locale: one of Locales, alone or with a
// two-letter region in upper case joined by '-' (BCP 47) or '_' (POSIX):
// "ru", "ru-RU", "ru_RU", "kk_KZ", "en-US". It returns the language alone:
// the region changes nothing on the pages, whose amounts are written by
// their currency. The accepted forms are those of the pattern of
// ConfirmationLocale in openapi/openapi.yaml.
func ParseLocale(s string) (string, bool) {
	if len(s) != 2 && len(s) != 5 {
		return "", false
	}
	lang := s[:2]
	if !slices.Contains(locales, lang) {
		return "", false
	}
	if len(s) == 5 && (s[2] != '-' && s[2] != '_' || !upperASCII(s[3]) || !upperASCII(s[4])) {
		return "", false
	}
	return lang, true
}

func upperASCII(c byte) bool { return c >= 'A' && c <= 'Z' }
