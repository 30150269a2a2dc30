package urlguard

// Reason classifies why a URL or a connection was refused. Callers map every
// Reason to the same API error (400 invalid_request with the parameter that
// carried the URL); the Reason is for logs, metrics and tests.
type Reason string

// Reasons returned in (*Error).Reason.
const (
	ReasonMalformed      Reason = "malformed"
	ReasonTooLong        Reason = "too_long"
	ReasonControlChars   Reason = "control_chars"
	ReasonNotHTTPS       Reason = "not_https"
	ReasonCredentials    Reason = "credentials"
	ReasonNoHost         Reason = "no_host"
	ReasonPrivateAddress Reason = "private_address"
	ReasonInternalName   Reason = "internal_name"
	// ReasonNonCanonicalIP is an IP address written other than in its
	// one canonical form ("134744072", "0x8.8.8.8", "8.8.8.8.",
	// "[::ffff:8.8.8.8]"); refused in every mode, since parsers disagree
	// about such hosts.
	ReasonNonCanonicalIP Reason = "noncanonical_ip"
	// ReasonPlatformAddress is a link-local address or a cloud platform's
	// metadata or wire-server address or name; refused in every mode and
	// despite Options.AllowHosts.
	ReasonPlatformAddress Reason = "platform_address"
)

// messages are fixed sentences so that nothing the merchant sent is echoed
// back verbatim; an echo could carry control characters into logs or
// dashboards.
var messages = map[Reason]string{
	ReasonMalformed:      "URL is not a valid absolute URL",
	ReasonTooLong:        "URL is longer than 2048 characters",
	ReasonControlChars:   "URL must not contain spaces, control or invisible characters",
	ReasonNotHTTPS:       "URL must use the https scheme",
	ReasonCredentials:    "URL must not contain credentials (user:password@)",
	ReasonNoHost:         "URL must include a host",
	ReasonPrivateAddress: "URL must point to a public address; private, loopback and reserved addresses are not allowed",
	ReasonInternalName:   "URL host must be a public domain name; internal names such as localhost are not allowed",
	ReasonNonCanonicalIP: "URL host must be a domain name or an IP address in its standard form, " +
		"such as 203.0.113.7 or [2001:db8::1]",
	ReasonPlatformAddress: "URL must not point to a link-local address or to a cloud platform's metadata service",
}

// Error is the error returned by Check, Dialer and DialControl.
//
// Detail is built only from canonicalized, printable ASCII (a canonical
// host name or IP address, a port), never from the raw input.
type Error struct {
	Reason Reason
	Detail string
}

// Error returns a short sentence suitable for an API error description.
func (e *Error) Error() string {
	msg, ok := messages[e.Reason]
	if !ok {
		msg = "URL is not allowed"
	}
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg
}

func fail(r Reason, detail string) *Error {
	return &Error{Reason: r, Detail: detail}
}
