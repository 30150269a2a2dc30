// Package webpage holds what every HTML page the service shows payers has
// in common: the security headers; the one reader of their posts
// (ReadForm), bounded and url-encoded only; and the payer's language —
// the choice of it (Choose), the catalogue of every text in Russian,
// Kazakh and English (catalogue.go, the files of locales/), and amounts written for that language
// (Amount) and read as its payers type them (ParseAmount). Each page binds
// its forms with a Signer of internal/mac labelled with the page's name.
// The pages (checkout, sandbox bank, payment links) carry one-time tokens
// or shareable links in their addresses and take decisions with money.
package webpage

import (
	"net/http"
	"strings"
)

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

// FrameScript is the one script of a framed page (internal/embed): it
// tells the merchant's page, through postMessage to the frame's origin
// alone, the page's height and the payment's outcome. A page loads it from
// payd's own origin; no page has inline script.
const FrameScript = "/embed/v2/frame.js"

// SetFramedHeaders marks a payer page shown inside the embedded form, in a
// frame of the merchant page at origin: as SetHeaders, except that origin,
// and only it, may frame the page (frame-ancestors, which browsers apply
// in place of X-Frame-Options, so that header is left out), and the page
// may run FrameScript from payd's origin. An empty origin, or one that is
// not a plain serialized origin, gives SetHeaders: the page is never
// framed.
func SetFramedHeaders(h http.Header, origin string) {
	SetHeaders(h)
	if !plainOrigin(origin) {
		return
	}
	h.Del("X-Frame-Options")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; frame-ancestors "+origin+"; base-uri 'none'")
}

// plainOrigin reports an origin that can stand in a header as one source:
// scheme, host and port in printable ASCII, without the separators of a
// policy (space, ';', ',', quotes). The service stored it as checked
// (urlguard.CheckOrigin); this keeps a header from ever carrying more.
func plainOrigin(o string) bool {
	if !strings.HasPrefix(o, "https://") && !strings.HasPrefix(o, "http://") {
		return false
	}
	for _, c := range []byte(o) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(";,'\"*", c) >= 0 {
			return false
		}
	}
	return true
}
