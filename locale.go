package payd

import "slices"

// Locales are the languages of the payer's pages, the values of
// confirmation.locale without a region (docs/payments.md, Payer's
// language).
var Locales = []string{"ru", "kk", "en"}

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
	if !slices.Contains(Locales, lang) {
		return "", false
	}
	if len(s) == 5 && (s[2] != '-' && s[2] != '_' || !upperASCII(s[3]) || !upperASCII(s[4])) {
		return "", false
	}
	return lang, true
}

func upperASCII(c byte) bool { return c >= 'A' && c <= 'Z' }
