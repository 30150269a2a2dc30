package dashboard

import (
	"fmt"

	"github.com/paydhq/payd/internal/webpage"
)

// labels are the words the pages show for the values of the contract's
// enums, as keys of the catalogue (English); a value without one is shown
// as it is, so a new status is never hidden.
var labels = map[string]map[string]string{
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
