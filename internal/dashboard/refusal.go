package dashboard

import (
	"reflect"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
	"github.com/paydhq/payd/money"
)

// said is a text the dashboard wrote in the page's language itself and
// hands on as a refusal's one value, payd.Invalid(param, "%s", said(...)):
// say shows it as it is.
type said string

// say is a refusal of the service in the page's language: its wording
// from the catalogue (errors.gotext.json) with its values written as the
// page writes them — an amount as the page's amounts, a status by its
// label — or, for a wording the catalogue does not hold, the service's
// English Message on an English page and the words of the refusal's code
// on any other: the Message, which the API sends, never shows on a page
// in another language.
func say(l webpage.Locale, pe *payd.Error) string {
	if len(pe.Args) == 1 && pe.Format == "%s" {
		if s, ok := pe.Args[0].(said); ok {
			return string(s)
		}
	}
	if pe.Format != "" && webpage.HasMessage(pe.Format) {
		args := make([]any, len(pe.Args))
		for i, a := range pe.Args {
			args[i] = sayValue(l, a)
		}
		return l.T(pe.Format, args...)
	}
	if l.Lang() == "en" && pe.Message != "" {
		// The service's own English says more than its code's words.
		return pe.Message
	}
	if text, ok := codeTexts[pe.Code]; ok {
		return l.T(text)
	}
	return l.T(codeTexts[payd.CodeInvalidRequest])
}

// sayValue is one value of a refusal as the page writes it.
func sayValue(l webpage.Locale, v any) any {
	switch v := v.(type) {
	case payd.Sum:
		return l.Amount(v.Minor, string(v.Currency))
	case money.Amount:
		return l.Amount(v.Minor, string(v.Currency))
	case money.Signed:
		return l.Amount(v.Minor, string(v.Currency))
	case said:
		return string(v)
	}
	if _, ok := labels[reflect.TypeOf(v)]; ok {
		if text, err := label(l, v); err == nil {
			return text
		}
	}
	return v
}

// codeTexts are the words of each code of the contract, for a refusal
// whose own wording the catalogue lacks: what kind of refusal it is, in
// the page's language, next to the field it names.
var codeTexts = map[payd.ErrorCode]string{
	payd.CodeInvalidRequest:              "This value is not accepted.",
	payd.CodeInvalidCredentials:          "The key or the password is not right.",
	payd.CodeForbidden:                   "Your role does not allow this. Ask an administrator of your account.",
	payd.CodeNotFound:                    "There is no such object in this shop.",
	payd.CodeDuplicateOrderID:            "This shop already has a payment with this order id.",
	payd.CodeIdempotencyConflict:         "This form was already sent with other values. Open the page again and repeat.",
	payd.CodeIdempotencyInProgress:       "This form is still being processed. Wait a few seconds and open the page again.",
	payd.CodeEvidenceDeadlinePassed:      "The deadline for evidence has passed.",
	payd.CodeInvalidState:                "This cannot be done in the object's present status.",
	payd.CodeAmountLimit:                 "The amount is outside the limits of the payment method.",
	payd.CodeLimitsExceeded:              "The shop's limit for this period would be exceeded.",
	payd.CodeMethodUnavailable:           "This payment method is not available.",
	payd.CodeRefundExceedsCaptured:       "The amount is above what can still be refunded.",
	payd.CodeReceiptInvalid:              "The receipt is not valid.",
	payd.CodeShopNotLive:                 "The shop is not live yet: use test data until it is activated.",
	payd.CodeInsufficientMerchantBalance: "The shop's available balance is not enough for this.",
	payd.CodePaymentsSuspended:           "Payments of this shop are suspended.",
	payd.CodeTooManyRequests:             "Too many requests. Try again in a minute.",
	payd.CodeInternal:                    "Something went wrong; try again.",
	payd.CodeNotImplemented:              "This is not available yet.",
	payd.CodeProviderUnavailable:         "The bank is not answering right now. Try again in a minute.",
	payd.CodeEmailTaken:                  "A user with this email already exists.",
}
