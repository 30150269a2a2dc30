package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// masked stands for a secret's value in --print-config.
const masked = "********"

// printConfig writes each setting, its value with secrets masked, and
// where it came from. Masking follows the settings' one mark (Secret,
// EnvSecret), so a secret setting cannot be shown by forgetting it here.
func printConfig(w io.Writer, settings []*setting) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SETTING\tVALUE\tSOURCE")
	for _, s := range settings {
		from := s.source
		if s.origin != "" && s.source != "flag" {
			from += " " + s.origin
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.label(), shownValue(s), from)
	}
	return tw.Flush()
}

// shownValue is a setting's value as --print-config shows it: quoted,
// so that an empty value is seen as one.
func shownValue(s *setting) string {
	v := s.value.String()
	switch {
	case v == "" || s.secret == public:
		return fmt.Sprintf("%q", v)
	case s.secret == secretURLs:
		return fmt.Sprintf("%q", maskURL(v))
	}
	return masked
}

// maskURL masks a URL's password, in its user information and in its
// query (libpq's password and sslpassword parameters), keeping the rest
// an operator checks: scheme, user, hosts, database, options. It reads
// the URL by hand: a PostgreSQL URL may list several hosts
// (db1:5432,db2:5432), which net/url refuses. What is not a URL (a
// key=value connection string) is masked whole.
func maskURL(v string) string {
	scheme, rest, ok := strings.Cut(v, "://")
	if !ok || scheme == "" || strings.ContainsAny(scheme, " =") {
		return masked
	}
	rest, query, hasQuery := strings.Cut(rest, "?")
	authority, path, hasPath := strings.Cut(rest, "/")
	if i := strings.LastIndex(authority, "@"); i >= 0 {
		if user, _, hasPassword := strings.Cut(authority[:i], ":"); hasPassword {
			authority = user + ":" + masked + authority[i:]
		}
	}
	out := scheme + "://" + authority
	if hasPath {
		out += "/" + path
	}
	if hasQuery {
		params := strings.Split(query, "&")
		for i, p := range params {
			k, _, _ := strings.Cut(p, "=")
			if strings.Contains(strings.ToLower(k), "password") {
				params[i] = k + "=" + masked
			}
		}
		out += "?" + strings.Join(params, "&")
	}
	return out
}
