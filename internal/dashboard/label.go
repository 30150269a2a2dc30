package dashboard

import (
	"fmt"

	"github.com/paydhq/payd/internal/webpage"
)

// labels are the words the pages show for the values of the contract's
// enums, as keys of the catalogue (English); a value without one is shown
// as it is, so a new status is never hidden. Each page group keeps its
// own kinds beside its pages.
var labels = mergeLabels(coreLabels, moneyLabels, developerLabels)

// mergeLabels joins the groups' kinds; a kind named by two groups is a
// mistake that would silently show one group's words on the other's
// pages, so it stops the program at start (and every test).
func mergeLabels(groups ...map[string]map[string]string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, g := range groups {
		for kind, words := range g {
			if _, dup := out[kind]; dup {
				panic("dashboard: label kind " + kind + " is named twice")
			}
			out[kind] = words
		}
	}
	return out
}

// coreLabels are the kinds of the payments pages and the users'.
var coreLabels = map[string]map[string]string{
	"status": {
		"pending": "Pending", "waiting_for_capture": "Waiting for capture", "succeeded": "Succeeded", "canceled": "Canceled",
	},
	"refund": {"pending": "Pending", "succeeded": "Succeeded", "canceled": "Canceled"},
	"method": {"bank_card": "Bank card", "sbp": "SBP (Faster Payments)", "kz_qr": "QR in your bank's app", "installments": "Installments"},
	"role":   {"admin": "Administrator", "support": "Support", "developer": "Developer", "viewer": "Viewer"},
	"delivery": {
		"pending": "Pending", "succeeded": "Delivered", "failed": "Failed", "skipped": "Skipped", "retrying": "Retrying",
	},
}

// label is the page's word for value of the enum kind.
func label(l webpage.Locale, kind string, value any) string {
	v := fmt.Sprint(value)
	if text, ok := labels[kind][v]; ok {
		return l.T(text)
	}
	return v
}
