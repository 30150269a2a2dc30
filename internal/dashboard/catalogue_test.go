package dashboard

import (
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

// The words of enum values and of notices come from maps, not from
// literal calls of T that the catalogue's own test reads: each must be in
// the catalogue too, or a Russian page would show it in English.
func TestMappedTextsAreInTheCatalogue(t *testing.T) {
	for _, k := range labels {
		for v, text := range k.words {
			if !webpage.HasMessage(text) {
				t.Errorf("label %s %s = %q is not in the catalogue", k.typ, v, text)
			}
		}
	}
	for code, text := range codeTexts {
		for _, lang := range payd.Locales() {
			if !webpage.Translated(lang, text) {
				t.Errorf("the words of code %s, %q, have no text in %s", code, text, lang)
			}
		}
	}
	for _, set := range []map[string]string{cancelParties, cancelReasons} {
		for v, text := range set {
			for _, lang := range payd.Locales() {
				if !webpage.Translated(lang, text) {
					t.Errorf("cancellation %q = %q has no text in %s", v, text, lang)
				}
			}
		}
	}
	for _, set := range []map[string]string{notices, moneyNotices, developersNotices, usersNotices} {
		for code, text := range set {
			if !webpage.HasMessage(text) {
				t.Errorf("notice %q = %q is not in the catalogue", code, text)
			}
		}
	}
	for _, text := range []string{"Sign in", "Second factor", "Set your password", "Done.", "Not done"} {
		if !webpage.HasMessage(text) {
			t.Errorf("%q is not in the catalogue", text)
		}
	}
}

// A kind of label named by two page groups stops the program rather than
// showing one group's words on the other's pages.
func TestLabelKindNamedTwice(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("merging two groups that both name payd.PaymentStatus did not panic")
		}
	}()
	mergeLabels([]labelKind{kindLabels(payd.PaymentStatusAll, map[payd.PaymentStatus]string{payd.PaymentPending: "Pending"})},
		[]labelKind{kindLabels(payd.PaymentStatusAll, map[payd.PaymentStatus]string{payd.PaymentSucceeded: "Succeeded"})})
}
