package urlguard

import (
	"errors"
	"strings"
	"testing"
)

// ok marks an accepted URL in the tables.
const ok Reason = ""

type checkCase struct {
	raw   string
	live  Reason // expected result with Options{}
	test  Reason // expected result with Options{TestReturn: true} (a test key's return address)
	canon string // canonical form; required whenever either mode accepts
}

// pad returns an https URL of exactly n characters.
func pad(prefix string, n int) string {
	return prefix + strings.Repeat("a", n-len([]rune(prefix)))
}

var checkCases = []checkCase{
	// Ordinary public URLs.
	{"https://example.com/", ok, ok, "https://example.com/"},
	{"https://example.com", ok, ok, "https://example.com"},
	{"https://shop.example.com:8443/return?order=42&x=y#done", ok, ok, "https://shop.example.com:8443/return?order=42&x=y#done"},
	{"https://example.com:443/x", ok, ok, "https://example.com/x"},
	{"https://example.com:0443/x", ok, ok, "https://example.com/x"},
	{"https://example.com:08443/x", ok, ok, "https://example.com:8443/x"},
	{"HTTPS://EXAMPLE.COM/Path?Q=V", ok, ok, "https://example.com/Path?Q=V"},
	{"HtTpS://Example.Com/", ok, ok, "https://example.com/"},
	{"https://example.com./a", ok, ok, "https://example.com/a"},
	{"https://a-b.example.co.uk/p/a/t/h?", ok, ok, "https://a-b.example.co.uk/p/a/t/h?"},
	{"https://example.com/a%20b?q=a+b#frag%20x", ok, ok, "https://example.com/a%20b?q=a+b#frag%20x"},
	{"https://example.com/%0d%0a", ok, ok, "https://example.com/%0d%0a"},
	{"https://example.com/?q=привет&h=\"<>'", ok, ok, "https://example.com/?q=%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82&h=%22%3C%3E%27"},
	{"https://example.com/путь", ok, ok, "https://example.com/%D0%BF%D1%83%D1%82%D1%8C"},
	{`https://example.com/\evil.com`, ok, ok, "https://example.com/%5Cevil.com"},
	{"https://пример.рф/", ok, ok, "https://xn--e1afmkfd.xn--p1ai/"},
	{"https://ПРИМЕР.РФ/оплата", ok, ok, "https://xn--e1afmkfd.xn--p1ai/%D0%BE%D0%BF%D0%BB%D0%B0%D1%82%D0%B0"},
	{"https://xn--e1afmkfd.xn--p1ai/", ok, ok, "https://xn--e1afmkfd.xn--p1ai/"},
	{"https://bücher.de/", ok, ok, "https://xn--bcher-kva.de/"},
	{"https://ｅｘａｍｐｌｅ．ｃｏｍ/", ok, ok, "https://example.com/"},
	{"https://8.8.8.8/", ok, ok, "https://8.8.8.8/"},
	{"https://1.1.1.1:8443/cb", ok, ok, "https://1.1.1.1:8443/cb"},
	{"https://172.32.0.1/", ok, ok, "https://172.32.0.1/"},
	{"https://100.128.0.1/", ok, ok, "https://100.128.0.1/"},
	{"https://[2606:4700:4700::1111]:8443/x", ok, ok, "https://[2606:4700:4700::1111]:8443/x"},
	{"https://[64:ff9b::808:808]/", ok, ok, "https://[64:ff9b::808:808]/"},
	{"https://[2002:808:808::1]/", ok, ok, "https://[2002:808:808::1]/"},
	{"https://168.63.129.15/", ok, ok, "https://168.63.129.15/"}, // the wire server's neighbours
	{"https://168.63.129.17/", ok, ok, "https://168.63.129.17/"}, // are ordinary addresses
	{"https://100.100.100.201/", ReasonPrivateAddress, ok, "https://100.100.100.201/"},

	// Empty port: parsers disagree about "host:", so it is refused in
	// both modes.
	{"https://example.com:/x", ReasonMalformed, ReasonMalformed, ""},
	{"https://example.com:/hook", ReasonMalformed, ReasonMalformed, ""},
	{"https://example.com:", ReasonMalformed, ReasonMalformed, ""},
	{"https://example.com:?q=1", ReasonMalformed, ReasonMalformed, ""},
	{"https://8.8.8.8:/x", ReasonMalformed, ReasonMalformed, ""},
	{"https://[2606:4700:4700::1111]:/x", ReasonMalformed, ReasonMalformed, ""},
	{"https://localhost:/x", ReasonMalformed, ReasonMalformed, ""},
	{"https://[::1]:/x", ReasonMalformed, ReasonMalformed, ""},

	// IP addresses in any non-canonical notation, public ones included,
	// are refused in both modes (1572395042 is 93.184.216.34).
	{"https://1572395042/", ReasonNonCanonicalIP, ok, "https://93.184.216.34/"},
	{"https://0x5db8d822/", ReasonNonCanonicalIP, ok, "https://93.184.216.34/"},
	{"https://0X5DB8D822/", ReasonNonCanonicalIP, ok, "https://93.184.216.34/"},
	{"https://013556154042/", ReasonNonCanonicalIP, ok, "https://93.184.216.34/"},
	{"https://0135.0270.0330.042/", ReasonNonCanonicalIP, ok, "https://93.184.216.34/"},
	{"https://0x5d.0xb8.0xd8.0x22/", ReasonNonCanonicalIP, ok, "https://93.184.216.34/"},
	{"https://93.184.55330/", ReasonNonCanonicalIP, ok, "https://93.184.216.34/"},
	{"https://93.12114978/", ReasonNonCanonicalIP, ok, "https://93.184.220.34/"},
	{"https://93.0270.216.34/", ReasonNonCanonicalIP, ok, "https://93.184.216.34/"},
	{"https://010.8.8.8/", ReasonNonCanonicalIP, ok, "https://8.8.8.8/"}, // octal: 8.8.8.8
	{"https://08.8.8.8/", ReasonMalformed, ReasonMalformed, ""},          // not even octal
	{"https://134744072/", ReasonNonCanonicalIP, ok, "https://8.8.8.8/"},
	{"https://0x08.0x08.0x08.0x08/", ReasonNonCanonicalIP, ok, "https://8.8.8.8/"},
	{"https://8.8.8.8./", ReasonNonCanonicalIP, ok, "https://8.8.8.8/"},
	{"https://%38.8.8.8/", ReasonMalformed, ReasonMalformed, ""}, // url.Parse refuses escaped ASCII in a host
	{"https://８.８.８.８/", ReasonNonCanonicalIP, ok, "https://8.8.8.8/"},
	{"https://[::ffff:8.8.8.8]/", ReasonNonCanonicalIP, ok, "https://[::ffff:8.8.8.8]/"},
	{"https://[::ffff:5db8:d822]/", ReasonNonCanonicalIP, ok, "https://[::ffff:93.184.216.34]/"},
	{"https://[::8.8.8.8]/", ReasonNonCanonicalIP, ok, "https://[::808:808]/"},
	{"https://[2606:4700:4700:0:0:0:0:1111]/", ReasonNonCanonicalIP, ok, "https://[2606:4700:4700::1111]/"},
	{"https://[2606:4700:4700::01111]/", ReasonMalformed, ReasonMalformed, ""},
	{"https://[2606:4700:4700:0::1111]/", ReasonNonCanonicalIP, ok, "https://[2606:4700:4700::1111]/"},
	{"https://[2606:4700:4700::ABCD]/", ReasonNonCanonicalIP, ok, "https://[2606:4700:4700::abcd]/"},
	{"https://[2606:4700:4700::0abc]/", ReasonNonCanonicalIP, ok, "https://[2606:4700:4700::abc]/"},
	{"https://[64:ff9b::8.8.8.8]/", ReasonNonCanonicalIP, ok, "https://[64:ff9b::808:808]/"},

	// Link-local and cloud platform addresses and names are refused in
	// both modes, also where they sit in public ranges.
	{"https://169.254.169.254/", ReasonPlatformAddress, ok, "https://169.254.169.254/"},
	{"https://169.254.170.2/v2/credentials", ReasonPlatformAddress, ok, "https://169.254.170.2/v2/credentials"},
	{"https://169.254.42.42/", ReasonPlatformAddress, ok, "https://169.254.42.42/"},
	{"https://169.254.0.1/", ReasonPlatformAddress, ok, "https://169.254.0.1/"},
	{"https://168.63.129.16/", ReasonPlatformAddress, ok, "https://168.63.129.16/"},
	{"https://168.63.129.16:32526/vmSettings", ReasonPlatformAddress, ok, "https://168.63.129.16:32526/vmSettings"},
	{"https://100.100.100.200/latest/meta-data/", ReasonPlatformAddress, ok, "https://100.100.100.200/latest/meta-data/"},
	{"https://192.0.0.192/", ReasonPlatformAddress, ok, "https://192.0.0.192/"},
	{"https://[fd00:ec2::254]/latest/meta-data/", ReasonPlatformAddress, ok, "https://[fd00:ec2::254]/latest/meta-data/"},
	{"https://[fd00:ec2::23]/", ReasonPlatformAddress, ok, "https://[fd00:ec2::23]/"},
	{"https://[fd20:ce::254]/", ReasonPlatformAddress, ok, "https://[fd20:ce::254]/"},
	{"https://[fd00:42::42]/", ReasonPlatformAddress, ok, "https://[fd00:42::42]/"},
	{"https://[fe80::a9fe:a9fe]/", ReasonPlatformAddress, ok, "https://[fe80::a9fe:a9fe]/"},
	{"https://[::ffff:a9fe:a9fe]/", ReasonNonCanonicalIP, ok, "https://[::ffff:169.254.169.254]/"}, // IPv4 in IPv6 notation
	{"https://[::ffff:169.254.169.254]/", ReasonNonCanonicalIP, ok, "https://[::ffff:169.254.169.254]/"},
	{"https://[64:ff9b::a9fe:a9fe]/", ReasonPlatformAddress, ok, "https://[64:ff9b::a9fe:a9fe]/"},
	{"https://[64:ff9b::a83f:8110]/", ReasonPlatformAddress, ok, "https://[64:ff9b::a83f:8110]/"},
	{"https://[64:ff9b::6464:64c8]/", ReasonPlatformAddress, ok, "https://[64:ff9b::6464:64c8]/"},
	{"https://[64:ff9b:1::a9fe:a9fe]/", ReasonPlatformAddress, ok, "https://[64:ff9b:1::a9fe:a9fe]/"},
	{"https://[64:ff9b:1:a9fe:a9:fe00::]/", ReasonPlatformAddress, ok, "https://[64:ff9b:1:a9fe:a9:fe00::]/"}, // RFC 6052 /48 position
	{"https://[2002:a9fe:a9fe::1]/", ReasonPlatformAddress, ok, "https://[2002:a9fe:a9fe::1]/"},
	{"https://[2002:a83f:8110::]/", ReasonPlatformAddress, ok, "https://[2002:a83f:8110::]/"},
	{"https://[2001:0:a9fe:a9fe::1]/", ReasonPlatformAddress, ok, "https://[2001:0:a9fe:a9fe::1]/"},                                   // Teredo server
	{"https://[2001:0:4136:e378:8000:63bf:5601:5601]/", ReasonPlatformAddress, ok, "https://[2001:0:4136:e378:8000:63bf:5601:5601]/"}, // Teredo client
	{"https://metadata.google.internal/computeMetadata/v1/", ReasonPlatformAddress, ok, "https://metadata.google.internal/computeMetadata/v1/"},
	{"https://METADATA.GOOGLE.INTERNAL./", ReasonPlatformAddress, ok, "https://metadata.google.internal/"},
	{"https://x.metadata.google.internal/", ReasonPlatformAddress, ok, "https://x.metadata.google.internal/"},
	{"https://metadata/computeMetadata/v1/", ReasonPlatformAddress, ok, "https://metadata/computeMetadata/v1/"},
	{"https://metadata.goog/", ReasonPlatformAddress, ok, "https://metadata.goog/"},
	{"https://instance-data/latest/", ReasonPlatformAddress, ok, "https://instance-data/latest/"},
	{"https://instance-data.ec2.internal/", ReasonPlatformAddress, ok, "https://instance-data.ec2.internal/"},
	{"https://metadata.tencentyun.com/", ReasonPlatformAddress, ok, "https://metadata.tencentyun.com/"},
	{"https://metadata.example.com/", ok, ok, "https://metadata.example.com/"},

	// Scheme.
	{"http://example.com/", ReasonNotHTTPS, ReasonNotHTTPS, ""},
	{"HTTP://example.com/", ReasonNotHTTPS, ReasonNotHTTPS, ""},
	{"javascript:alert(1)", ReasonNotHTTPS, ReasonNotHTTPS, ""},
	{"javascript://example.com/%0aalert(1)", ReasonNotHTTPS, ReasonNotHTTPS, ""},
	{"data:text/html,<script>x</script>", ReasonNotHTTPS, ReasonNotHTTPS, ""},
	{"ftp://example.com/", ReasonNotHTTPS, ReasonNotHTTPS, ""},
	{"httpss://example.com/", ReasonNotHTTPS, ReasonNotHTTPS, ""},
	{"//example.com/x", ReasonNotHTTPS, ReasonNotHTTPS, ""},
	{"example.com/x", ReasonNotHTTPS, ReasonNotHTTPS, ""},
	{"", ReasonNotHTTPS, ReasonNotHTTPS, ""},

	// Missing host.
	{"https:///x", ReasonNoHost, ReasonNoHost, ""},
	{"https://", ReasonNoHost, ReasonNoHost, ""},
	{"https:example.com", ReasonNoHost, ReasonNoHost, ""},
	{"https:/example.com", ReasonNoHost, ReasonNoHost, ""},
	{"https://:443/", ReasonNoHost, ReasonNoHost, ""},

	// Credentials, in every spelling.
	{"https://user:pass@example.com/", ReasonCredentials, ReasonCredentials, ""},
	{"https://user@example.com/", ReasonCredentials, ReasonCredentials, ""},
	{"https://@example.com/", ReasonCredentials, ReasonCredentials, ""},
	{"https://:@example.com/", ReasonCredentials, ReasonCredentials, ""},
	{"https://example.com@evil.com/", ReasonCredentials, ReasonCredentials, ""},
	{"https://user%40x:p@example.com/", ReasonCredentials, ReasonCredentials, ""},
	{"https://user:pass@localhost/", ReasonCredentials, ReasonCredentials, ""},

	// Spaces and control characters, raw and percent-encoded in the host.
	{" https://example.com/", ReasonControlChars, ReasonControlChars, ""},
	{"https://example.com/ ", ReasonControlChars, ReasonControlChars, ""},
	{"https://example.com/a b", ReasonControlChars, ReasonControlChars, ""},
	{"https://example.com/#a b", ReasonControlChars, ReasonControlChars, ""},
	{"https://exa\tmple.com/", ReasonControlChars, ReasonControlChars, ""},
	{"https://example.com/\r\nSet-Cookie:x=1", ReasonControlChars, ReasonControlChars, ""},
	{"https://example.com/\n", ReasonControlChars, ReasonControlChars, ""},
	{"https://example.com/\x7f", ReasonControlChars, ReasonControlChars, ""},
	{"https://example.com/\x00", ReasonControlChars, ReasonControlChars, ""},
	{"https://example.com/\u0085", ReasonControlChars, ReasonControlChars, ""},
	{"https://example.com/\u00a0", ReasonControlChars, ReasonControlChars, ""},
	{"https://example.com/\u200b", ReasonControlChars, ReasonControlChars, ""},
	{"https://example.com/\u202e", ReasonControlChars, ReasonControlChars, ""},
	{"https://ex\u00adample.com/", ReasonControlChars, ReasonControlChars, ""},
	{"https://exa%0Ample.com/", ReasonControlChars, ReasonControlChars, ""},
	{"https://exa%09mple.com/", ReasonControlChars, ReasonControlChars, ""},
	{"https://example%20.com/", ReasonControlChars, ReasonControlChars, ""},
	{"https://exa%7fmple.com/", ReasonControlChars, ReasonControlChars, ""},
	{"https://exa%C2%85mple.com/", ReasonControlChars, ReasonControlChars, ""},
	{"https://localhost%00.example.com/", ReasonControlChars, ReasonControlChars, ""},

	// Length.
	{pad("https://example.com/", 2048), ok, ok, pad("https://example.com/", 2048)},
	{pad("https://example.com/", 2049), ReasonTooLong, ReasonTooLong, ""},
	{pad("https://пример.рф/", 2048), ReasonTooLong, ReasonTooLong, ""}, // canonical form is longer

	// Private and reserved IPv4 addresses.
	{"https://127.0.0.1/", ReasonPrivateAddress, ok, "https://127.0.0.1/"},
	{"https://127.0.0.1:8443/cb", ReasonPrivateAddress, ok, "https://127.0.0.1:8443/cb"},
	{"https://127.255.255.254/", ReasonPrivateAddress, ok, "https://127.255.255.254/"},
	{"https://10.0.0.1/", ReasonPrivateAddress, ok, "https://10.0.0.1/"},
	{"https://172.16.0.1/", ReasonPrivateAddress, ok, "https://172.16.0.1/"},
	{"https://172.31.255.255/", ReasonPrivateAddress, ok, "https://172.31.255.255/"},
	{"https://192.168.1.1/", ReasonPrivateAddress, ok, "https://192.168.1.1/"},
	{"https://100.64.0.1/", ReasonPrivateAddress, ok, "https://100.64.0.1/"},
	{"https://100.127.255.255/", ReasonPrivateAddress, ok, "https://100.127.255.255/"},
	{"https://0.0.0.0/", ReasonPrivateAddress, ok, "https://0.0.0.0/"},
	{"https://198.18.0.1/", ReasonPrivateAddress, ok, "https://198.18.0.1/"},
	{"https://192.0.2.1/", ReasonPrivateAddress, ok, "https://192.0.2.1/"},
	{"https://224.0.0.1/", ReasonPrivateAddress, ok, "https://224.0.0.1/"},
	{"https://255.255.255.255/", ReasonPrivateAddress, ok, "https://255.255.255.255/"},

	// Other notations for private IPv4 addresses (WHATWG IPv4 parser):
	// refused in both modes as notations, whatever the address.
	{"https://2130706433/", ReasonNonCanonicalIP, ok, "https://127.0.0.1/"},
	{"https://0177.0.0.1/", ReasonNonCanonicalIP, ok, "https://127.0.0.1/"},
	{"https://0x7f.1/", ReasonNonCanonicalIP, ok, "https://127.0.0.1/"},
	{"https://0X7F000001/", ReasonNonCanonicalIP, ok, "https://127.0.0.1/"},
	{"https://017700000001/", ReasonNonCanonicalIP, ok, "https://127.0.0.1/"},
	{"https://127.1/", ReasonNonCanonicalIP, ok, "https://127.0.0.1/"},
	{"https://127.0.1/", ReasonNonCanonicalIP, ok, "https://127.0.0.1/"},
	{"https://0x7f.0.0.01/", ReasonNonCanonicalIP, ok, "https://127.0.0.1/"},
	{"https://0300.0xa8.257/", ReasonNonCanonicalIP, ok, "https://192.168.1.1/"},
	{"https://3232235777/", ReasonNonCanonicalIP, ok, "https://192.168.1.1/"},
	{"https://0xA9.0xFE.0xA9.0xFE/", ReasonNonCanonicalIP, ok, "https://169.254.169.254/"},
	{"https://2852039166/", ReasonNonCanonicalIP, ok, "https://169.254.169.254/"}, // 169.254.169.254
	{"https://127.0.0.1./", ReasonNonCanonicalIP, ok, "https://127.0.0.1/"},
	{"https://１２７．０．０．１/", ReasonNonCanonicalIP, ok, "https://127.0.0.1/"},
	{"https://0/", ReasonNonCanonicalIP, ok, "https://0.0.0.0/"},
	{"https://0x/", ReasonNonCanonicalIP, ok, "https://0.0.0.0/"},
	{"https://1.2.3.4.5/", ReasonMalformed, ReasonMalformed, ""},
	{"https://example.123/", ReasonMalformed, ReasonMalformed, ""},
	{"https://foo.0x10/", ReasonMalformed, ReasonMalformed, ""},
	{"https://256.0.0.1/", ReasonMalformed, ReasonMalformed, ""},
	{"https://1.256.0.0/", ReasonMalformed, ReasonMalformed, ""},
	{"https://0x100000000/", ReasonMalformed, ReasonMalformed, ""},
	{"https://99999999999999999999/", ReasonMalformed, ReasonMalformed, ""},
	{"https://08.0.0.1/", ReasonMalformed, ReasonMalformed, ""},

	// IPv6 literals.
	{"https://[::1]/", ReasonPrivateAddress, ok, "https://[::1]/"},
	{"https://[::]/", ReasonPrivateAddress, ok, "https://[::]/"},
	{"https://[::1]:8443/", ReasonPrivateAddress, ok, "https://[::1]:8443/"},
	{"https://[0:0:0:0:0:0:0:1]:8443/", ReasonNonCanonicalIP, ok, "https://[::1]:8443/"},
	{"https://[::ffff:127.0.0.1]/", ReasonNonCanonicalIP, ok, "https://[::ffff:127.0.0.1]/"},
	{"https://[::ffff:7f00:1]/", ReasonNonCanonicalIP, ok, "https://[::ffff:127.0.0.1]/"},
	{"https://[::FFFF:a9fe:a9fe]/", ReasonNonCanonicalIP, ok, "https://[::ffff:169.254.169.254]/"},
	{"https://[::127.0.0.1]/", ReasonNonCanonicalIP, ok, "https://[::7f00:1]/"},
	{"https://[::7f00:1]/", ReasonNonCanonicalIP, ok, "https://[::7f00:1]/"},
	{"https://[64:ff9b::127.0.0.1]/", ReasonNonCanonicalIP, ok, "https://[64:ff9b::7f00:1]/"},
	{"https://[64:ff9b::7f00:1]/", ReasonPrivateAddress, ok, "https://[64:ff9b::7f00:1]/"},
	{"https://[64:ff9b::a00:1]/", ReasonPrivateAddress, ok, "https://[64:ff9b::a00:1]/"},
	{"https://[2002:7f00:1::]/", ReasonPrivateAddress, ok, "https://[2002:7f00:1::]/"},
	{"https://[2002:c0a8:101::1]/", ReasonPrivateAddress, ok, "https://[2002:c0a8:101::1]/"},
	{"https://[fe80::1]/", ReasonPlatformAddress, ok, "https://[fe80::1]/"},
	{"https://[fd12:3456::1]/", ReasonPrivateAddress, ok, "https://[fd12:3456::1]/"},
	{"https://[ff02::1]/", ReasonPrivateAddress, ok, "https://[ff02::1]/"},
	{"https://[2001:db8::1]/", ReasonPrivateAddress, ok, "https://[2001:db8::1]/"},
	{"https://[2001::1]/", ReasonPrivateAddress, ok, "https://[2001::1]/"},
	{"https://[fe80::1%25eth0]/", ReasonMalformed, ReasonMalformed, ""},
	{"https://[2606:4700::1%25eth0]/", ReasonMalformed, ReasonMalformed, ""},
	{"https://[127.0.0.1]/", ReasonMalformed, ReasonMalformed, ""},
	{"https://[::1/", ReasonMalformed, ReasonMalformed, ""},
	{"https://[::1]x/", ReasonMalformed, ReasonMalformed, ""},
	{"https://::1/", ReasonMalformed, ReasonMalformed, ""},

	// Internal names.
	{"https://localhost/", ReasonInternalName, ok, "https://localhost/"},
	{"https://localhost:3000/return", ReasonInternalName, ok, "https://localhost:3000/return"},
	{"https://LOCALHOST./", ReasonInternalName, ok, "https://localhost/"},
	{"https://app.localhost/", ReasonInternalName, ok, "https://app.localhost/"},
	{"https://printer.local/", ReasonInternalName, ok, "https://printer.local/"},
	{"https://LocalHost.Local./", ReasonInternalName, ok, "https://localhost.local/"},
	{"https://db.internal/", ReasonInternalName, ok, "https://db.internal/"},
	{"https://localhost.localdomain/", ReasonInternalName, ok, "https://localhost.localdomain/"},
	{"https://router.home.arpa/", ReasonInternalName, ok, "https://router.home.arpa/"},
	{"https://intranet/", ReasonInternalName, ok, "https://intranet/"},
	{"https://intranet./", ReasonInternalName, ok, "https://intranet/"},
	{"https://ｌｏｃａｌｈｏｓｔ/", ReasonInternalName, ok, "https://localhost/"},
	{"https://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/", ReasonInternalName, ok, "https://localhost/"},
	{"https://%EF%BD%8C%EF%BD%8F%EF%BD%83%EF%BD%81%EF%BD%8C%EF%BD%88%EF%BD%8F%EF%BD%93%EF%BD%94/", ReasonInternalName, ok, "https://localhost/"},
	{"https://xn--e1afmkfd/", ReasonInternalName, ok, "https://xn--e1afmkfd/"},

	// Hosts that are not valid names.
	{"https://exa_mple.com/", ReasonMalformed, ReasonMalformed, ""},
	{`https://evil.com\@good.com/`, ReasonMalformed, ReasonMalformed, ""},
	{`https://good.com\.evil.com/`, ReasonMalformed, ReasonMalformed, ""},
	{"https://a<b.com/", ReasonMalformed, ReasonMalformed, ""},
	{"https://-example.com/", ReasonMalformed, ReasonMalformed, ""},
	{"https://.example.com/", ReasonMalformed, ReasonMalformed, ""},
	{"https://example..com/", ReasonMalformed, ReasonMalformed, ""},
	{"https://example.com../", ReasonMalformed, ReasonMalformed, ""},
	{"https://xn--a.com/", ReasonMalformed, ReasonMalformed, ""},
	{"https://" + strings.Repeat("a", 64) + ".com/", ReasonMalformed, ReasonMalformed, ""},
	{"https://localhost%2ecom/", ReasonMalformed, ReasonMalformed, ""},
	{"https://example.com:99999/", ReasonMalformed, ReasonMalformed, ""},
	{"https://example.com:0/", ReasonMalformed, ReasonMalformed, ""},
	{"https://example.com:https/", ReasonMalformed, ReasonMalformed, ""},
	{"https://example.com/%zz", ReasonMalformed, ReasonMalformed, ""},
	{"https://example.com/\xff", ReasonMalformed, ReasonMalformed, ""},
	{"https://%80.com/", ReasonMalformed, ReasonMalformed, ""},
	{"https://Xn-%80000000000000000", ReasonMalformed, ReasonMalformed, ""}, // found by FuzzCheck
	{"https://%C3%BC.com/", ok, ok, "https://xn--tda.com/"},
}

func TestCheck(t *testing.T) {
	modes := []struct {
		name string
		opts Options
		want func(checkCase) Reason
	}{
		{"live", Options{}, func(c checkCase) Reason { return c.live }},
		{"test", Options{TestReturn: true}, func(c checkCase) Reason { return c.test }},
	}
	for _, c := range checkCases {
		if (c.live == ok || c.test == ok) != (c.canon != "") {
			t.Errorf("table row %q: canon must be set exactly when a mode accepts", c.raw)
		}
		for _, m := range modes {
			assertCheck(t, m.name, c.raw, m.opts, m.want(c), c.canon)
		}
	}
}

func assertCheck(t *testing.T, mode, raw string, opts Options, want Reason, canon string) {
	t.Helper()
	u, err := Check(raw, opts)
	if want == ok {
		if err != nil {
			t.Errorf("%s: Check(%q) = %v, want accepted", mode, raw, err)
			return
		}
		if got := u.String(); got != canon {
			t.Errorf("%s: Check(%q) = %q, want %q", mode, raw, got, canon)
		}
		again, err := Check(u.String(), opts)
		if err != nil || again.String() != u.String() {
			t.Errorf("%s: Check(%q) not idempotent: %v, %v", mode, u, again, err)
		}
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Errorf("%s: Check(%q) = %v, %v; want *Error %s", mode, raw, u, err, want)
		return
	}
	if e.Reason != want {
		t.Errorf("%s: Check(%q) reason %s (%v), want %s", mode, raw, e.Reason, e, want)
	}
	if msg := e.Error(); hasControl(msg) || msg == "" {
		t.Errorf("%s: Check(%q) error text %q is empty or has control characters", mode, raw, msg)
	}
}

// hasControl is hasForbiddenRune without the plain space that sentences
// contain.
func hasControl(s string) bool {
	return hasForbiddenRune(strings.ReplaceAll(s, " ", ""))
}

func TestCheckAllowHosts(t *testing.T) {
	dev := Options{AllowHosts: []string{"LocalHost.", "127.1", "[::1]", "dev.internal"}}
	for _, c := range []struct {
		raw   string
		want  Reason
		canon string
	}{
		{"https://localhost:3000/return", ok, "https://localhost:3000/return"},
		{"https://ｌｏｃａｌｈｏｓｔ/", ok, "https://localhost/"},
		{"https://127.0.0.1/", ok, "https://127.0.0.1/"},
		{"https://2130706433/", ReasonNonCanonicalIP, ""}, // the allowed address, in another notation
		{"https://[::1]:8443/", ok, "https://[::1]:8443/"},
		{"https://[::ffff:127.0.0.1]/", ReasonNonCanonicalIP, ""},
		{"https://[64:ff9b::7f00:1]/", ReasonPrivateAddress, ""}, // exact match only
		{"https://dev.internal/", ok, "https://dev.internal/"},
		{"https://app.localhost/", ReasonInternalName, ""},
		{"https://x.dev.internal/", ReasonInternalName, ""},
		{"https://127.0.0.2/", ReasonPrivateAddress, ""},
		{"http://localhost/", ReasonNotHTTPS, ""},
		{"https://u:p@localhost/", ReasonCredentials, ""},
		{"https://local\thost/", ReasonControlChars, ""},
	} {
		assertCheck(t, "allowhosts", c.raw, dev, c.want, c.canon)
	}
	// No allow-list entry lifts the platform rule, nor does AllowLocal (the
	// mode of a connection payd makes itself).
	platform := Options{AllowLocal: true, AllowHosts: []string{"169.254.169.254", "168.63.129.16", "metadata.google.internal", "[fd00:ec2::254]"}}
	for _, raw := range []string{
		"https://169.254.169.254/", "https://168.63.129.16/", "https://metadata.google.internal/", "https://[fd00:ec2::254]/",
	} {
		assertCheck(t, "platform", raw, platform, ReasonPlatformAddress, "")
	}
}

// TestErrorDetailShowsCanonicalForm: a refused notation names the form to
// write instead, built from the canonical address, never from the input.
func TestErrorDetailShowsCanonicalForm(t *testing.T) {
	for raw, want := range map[string]string{
		"https://1572395042/":                    "(write it as 93.184.216.34)",
		"https://[::ffff:8.8.8.8]/":              "(write it as 8.8.8.8)",
		"https://[2606:4700:4700:0:0:0:0:1111]/": "(write it as [2606:4700:4700::1111])",
	} {
		_, err := Check(raw, Options{})
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("Check(%q) = %v; want the detail %s", raw, err, want)
		}
	}
}

func TestErrorText(t *testing.T) {
	_, err := Check("https://exa%0Ample.com/\u202e", Options{})
	if err == nil || strings.Contains(err.Error(), "exa") {
		t.Fatalf("error %q should be a fixed sentence without the input", err)
	}
	for r := range messages {
		e := &Error{Reason: r, Detail: "d"}
		if !strings.HasPrefix(e.Error(), messages[r]) || !strings.HasSuffix(e.Error(), "(d)") {
			t.Errorf("%s: Error() = %q", r, e.Error())
		}
	}
	if (&Error{Reason: "other"}).Error() == "" {
		t.Error("unknown reason gives empty text")
	}
}
