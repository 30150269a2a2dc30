package client

// Ptr returns a pointer to v, for the optional fields of the generated
// types: PaymentCreate{Capture: client.Ptr(false)}.
func Ptr[T any](v T) *T { return &v }

// Redirect is the confirmation of a payment paid on the hosted payment
// page: the payer is sent to the payment's confirmation URL and comes back
// to returnURL.
func Redirect(returnURL string) ConfirmationRequest {
	var c ConfirmationRequest
	// Marshalling a struct of strings cannot fail.
	_ = c.FromConfirmationRequestRedirect(ConfirmationRequestRedirect{ReturnURL: &returnURL})
	return c
}

// QR is the confirmation of a payment paid by scanning a QR code: the
// payment's Confirmation.ConfirmationData holds what the code encodes.
func QR() ConfirmationRequest {
	var c ConfirmationRequest
	_ = c.FromConfirmationRequestQr(ConfirmationRequestQr{})
	return c
}

// Embedded is the confirmation of a payment paid in the form payd's
// widget frames inside the merchant's own page (stage M5): the payment's
// Confirmation.ConfirmationToken, given only by the create call, is what
// the page passes to the widget (docs/embedded.md). returnURL, when not
// empty, is offered to the payer on the form's result page.
func Embedded(returnURL string) ConfirmationRequest {
	var c ConfirmationRequest
	e := ConfirmationRequestEmbedded{}
	if returnURL != "" {
		e.ReturnURL = &returnURL
	}
	_ = c.FromConfirmationRequestEmbedded(e)
	return c
}

// Amt is an amount of currency, value written with its decimals as the
// contract wants them: client.Amt("1500.00", client.RUB).
func Amt(value string, currency Currency) Amount { return Amount{Value: value, Currency: currency} }
