package sandbank

import "github.com/paydhq/payd"

// qrApp is the sandbox bank's banking-app page of a QR method: the address
// its QR code holds, where the payer confirms or declines. Every QR method
// shares one handler and one template; only this data differs.
type qrApp struct {
	method string
	// path is the page's address without the attempt id.
	path string
	// name is the app's name on the page.
	name string
}

// qrApps are the app pages of the QR methods of both regions.
var qrApps = []qrApp{
	{method: payd.MethodSBP, path: "/sandbox/sbp/", name: "SBP"},
	{method: payd.MethodKZQR, path: "/sandbox/kz-qr/", name: "KZ QR"},
}

// appOf returns the app page of a QR method.
func appOf(method string) (qrApp, bool) {
	for _, a := range qrApps {
		if a.method == method {
			return a, true
		}
	}
	return qrApp{}, false
}
