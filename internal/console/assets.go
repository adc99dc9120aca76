package console

import (
	"embed"
	"io/fs"
	"net/http"
)

// web holds the page: index.html and, under static/, its styles and
// scripts. Nothing is fetched from elsewhere, so the console works
// offline.
//
//go:embed web
var web embed.FS

// contentSecurityPolicy lets the page load only its own assets and talk
// only to its own origin, and keeps other sites from framing it.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

func secureHeaders(h http.Header) {
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
}

// pageHandler serves index.html, the one page every view is drawn in.
func pageHandler() http.Handler {
	index, err := web.ReadFile("web/index.html")
	if err != nil {
		panic("console: index.html is not embedded: " + err.Error())
	}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		secureHeaders(w.Header())
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(index)
	})
}

// staticHandler serves web/static under /console/static/.
func staticHandler() http.Handler {
	static, err := fs.Sub(web, "web/static")
	if err != nil {
		panic("console: static assets are not embedded: " + err.Error())
	}
	files := http.StripPrefix("/console/static/", http.FileServerFS(static))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secureHeaders(w.Header())
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}
