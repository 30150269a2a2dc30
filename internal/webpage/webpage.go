// Package webpage holds what every HTML page the service shows payers has
// in common: the security headers; the one reader of their posts
// (ReadForm), bounded and url-encoded only; and the payer's language —
// the choice of it (Choose), the catalogue of every text in Russian,
// Kazakh and English (messages.go), and amounts written for that language
// (Amount) and read as its payers type them (ParseAmount). Each page binds
// its forms with a Signer of internal/mac labelled with the page's name.
// The pages (checkout, sandbox bank, payment links) carry one-time tokens
// or shareable links in their addresses and take decisions with money.
package webpage

import "net/http"

// SetHeaders marks a response as a payer-facing HTML page: never cached,
// no scripts or outside resources, never framed, no Referer (the address
// may hold a one-time token). There is no form-action: browsers apply it to
// the redirect after a post too, and the pages' forms end in redirects to
// other origins (a provider's page, the merchant's return_url).
func SetHeaders(h http.Header) {
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
}
