package webpage

import (
	"html/template"
	"io/fs"
	"net/http"
	"strings"
)

// What the signed-in sites have in common — the merchant dashboard and
// the operator's back office: their answers' headers, the cache of their
// stylesheet and script, and their template sets.

// AppHeaders marks every answer of next as a signed-in site's: no inline
// script and nothing from another origin, never framed, never cached
// (pages show money and personal data), no Referer beyond the origin.
func AppHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
			"form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "same-origin")
		hd.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// CacheStatic lets browsers keep a site's stylesheet and script for a day.
func CacheStatic(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		next.ServeHTTP(w, r)
	})
}

// ParsePages reads a site's templates: one set per page of dir in fsys,
// the layout (layout.html) and the page's own file, which defines
// "content". A template that does not parse stops the process at start.
func ParsePages(fsys fs.FS, dir string, funcs template.FuncMap) map[string]*template.Template {
	layout := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(fsys, dir+"/layout.html"))
	names, err := fs.ReadDir(fsys, dir)
	if err != nil {
		panic(err)
	}
	sets := map[string]*template.Template{}
	for _, e := range names {
		name := strings.TrimSuffix(e.Name(), ".html")
		if name != "layout" {
			sets[name] = template.Must(template.Must(layout.Clone()).ParseFS(fsys, dir+"/"+e.Name()))
		}
	}
	return sets
}
