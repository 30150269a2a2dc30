// Package urlguard decides whether a URL supplied by a merchant may be
// stored and used by payd: a payment's confirmation.return_url (and a
// payment link's return_url), where the customer's browser is sent after
// paying, and a webhook endpoint url, to which payd itself connects.
//
// # Policy
//
// A URL is accepted by Check when all of these hold:
//
//   - it is at most 2048 characters, as sent and in canonical form;
//   - it contains no white space, control characters (C0, DEL, C1) or
//     invisible format characters, raw or percent-encoded in the host;
//   - its scheme is https (in any letter case);
//   - it carries no userinfo at all: not "user:pass@", not "user@", not
//     even an empty "@";
//   - it has a host, and the host is a valid domain name or IP address;
//   - a port, if the authority has a colon, is a number 1..65535: an empty
//     port ("https://example.com:/") is refused;
//   - an IP host is written in its canonical form: dotted decimal IPv4
//     (203.0.113.7), or RFC 5952 IPv6 in brackets ([2001:db8::1]); any
//     other notation of an address ("134744072", "0x7f.1", "010.0.0.1",
//     "8.8.8.8.", "[::ffff:8.8.8.8]", "[2001:db8:0:0:0:0:0:1]") is refused,
//     even for a public address;
//   - the host is not a link-local or cloud platform address or name
//     (instance metadata, wire server: see IsPlatformAddr and
//     platformNames), also when the address is embedded in an IPv6
//     address or sits in a public range (168.63.129.16);
//   - in live mode, the host is neither an internal name (localhost,
//     *.localhost, *.local, *.internal, other special-use or private-use
//     suffixes, any single label without a dot) nor an IP address outside
//     the globally reachable space (see IsPublicAddr).
//
// With a test key (Options.AllowLocal) the last rule is lifted, so a
// merchant can test against a server on its own machine; every other rule
// still holds. Options.AllowHosts names individual hosts that an operator
// exempts from the last rule, for local development. Nothing lifts the
// platform rule: no merchant endpoint or return page lives at a metadata
// service, and a request there from payd's network would expose the
// service's own cloud credentials.
//
// A test key's return address (Options.TestReturn) is the one exception:
// payd never connects to a return address, and in the test contour only
// the merchant's own developer follows it, so every reachability rule,
// the platform rule and the IP notation rule included, is lifted there.
// Live return addresses and webhook URLs in both contours keep them all.
//
// # Why canonicalize first
//
// A browser and a naive validator disagree about many URLs. The browser
// maps "ｌｏｃａｌｈｏｓｔ" and "ⓛⓞⓒⓐⓛⓗⓞⓢⓣ" to localhost, reads
// "2130706433", "0177.0.0.1", "0x7f.1" and "127.1" as 127.0.0.1, reaches
// 127.0.0.1 through "[::ffff:7f00:1]", ignores a trailing dot and strips
// tab and newline characters. So Check first brings the host to the form
// the browser and the resolver will use (UTS #46 mapping to lower-case
// A-labels, the WHATWG IPv4 number parser, IPv6 literals with embedded
// IPv4 addresses judged by that IPv4 address) and applies the policy to
// the result. Names may be written in any letter case or script and are
// stored canonically; IP addresses must already be written canonically,
// because other parsers (proxies, resolver libraries, log scanners) read
// the other notations differently, and a refusal is clearer than a silent
// rewrite. The canonical URL is returned and is what callers must store;
// re-checking it gives the same URL.
//
// # Why a dial-time check as well
//
// Check cannot know what a name resolves to, and the answer can change
// between validation and delivery (DNS rebinding). Outgoing webhook
// deliveries therefore go through Dialer, which resolves once, checks every
// resolved address and connects only to those addresses, or through
// DialControl, which checks the socket address itself. Redirects must not
// be followed (the webhook contract rejects them) and no HTTP proxy may sit
// between the dialer and the endpoint; otherwise the check applies to the
// wrong address.
//
// All refusals are *Error values whose Error text is a fixed sentence that
// never repeats the merchant's input, suitable for the description of a
// 400 invalid_request response.
package urlguard
