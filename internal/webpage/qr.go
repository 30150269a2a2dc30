package webpage

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"net/url"
	"strings"

	"github.com/boombuler/barcode/qr"
)

// qrQuiet is the blank margin around a QR code, in modules: the four the
// standard asks for, so that phone cameras find the code on any
// background.
const qrQuiet = 4

// QRSVG draws text as a QR code, an SVG image in a data: URL (the
// dashboard's and the back office's CSP allow data: images, and no
// request is made for it). The
// encoder is boombuler/barcode, which the service already carries for its
// authenticator (otp); each run of dark modules in a row is a rectangle of
// a single path, so the image is small and scales without blur.
func QRSVG(text string) (template.URL, error) {
	code, err := qr.Encode(text, qr.M, qr.Auto)
	if err != nil {
		return "", fmt.Errorf("qr of %q: %w", text, err)
	}
	b := code.Bounds()
	size := b.Dx() + 2*qrQuiet
	var path strings.Builder
	dark := func(x, y int) bool { r, _, _, _ := code.At(x, y).RGBA(); return r == 0 }
	for y := b.Min.Y; y < b.Max.Y; y++ {
		// A run of dark modules in a row is one rectangle.
		for x := b.Min.X; x < b.Max.X; {
			if !dark(x, y) {
				x++
				continue
			}
			run := 1
			for x+run < b.Max.X && dark(x+run, y) {
				run++
			}
			fmt.Fprintf(&path, "M%d %dh%dv1h-%dz", x-b.Min.X+qrQuiet, y-b.Min.Y+qrQuiet, run, run)
			x += run
		}
	}
	svg := fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges">`+
		`<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="%s"/></svg>`, size, size, size, size, path.String())
	// The URL is made here from the encoder's output alone, never from
	// what a user typed, so it may pass html/template's URL filter.
	return template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(svg))), nil
}

// OTPAuthURL marks the otpauth: address the service built as safe for an
// href. html/template lets only http, https and mailto through and
// otherwise writes "#ZgotmplZ", which left the "open in the authenticator
// app" link dead. Only an otpauth://totp/ address with nothing but a path
// and a query passes; anything else gives "", and the page then shows no
// link, so the mark never vouches for a javascript: or data: address.
func OTPAuthURL(raw string) template.URL {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "otpauth" || u.Host != "totp" || u.User != nil || u.Fragment != "" || u.Opaque != "" {
		return ""
	}
	return template.URL(raw)
}
