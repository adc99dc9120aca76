package azhttp

import (
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// CORSRule is one rule of a service's CORS settings, as stored by Set
// Service Properties. Header entries may end in "*" to match a prefix.
type CORSRule struct {
	AllowedOrigins  []string
	AllowedMethods  []string
	AllowedHeaders  []string
	ExposedHeaders  []string
	MaxAgeInSeconds int
}

// CORSSource returns the CORS rules of the account the request addresses
// (the service keeps them in its service properties).
type CORSSource func(r *http.Request) ([]CORSRule, error)

// errCORSHeaderMissing answers an OPTIONS request without Origin or
// Access-Control-Request-Method: the Storage services have no OPTIONS
// operation but the preflight.
var errCORSHeaderMissing = azerr.ErrInvalidHeaderValue.WithMessage("A required CORS header is not present.")

// applyCORS handles a request carrying Origin, and every OPTIONS request.
// It answers preflights itself (reporting true), and for actual requests
// arranges for the Access-Control headers to be added when the response
// header is written.
func applyCORS(rec *recorder, r *http.Request, src CORSSource, preflight string, errorWriter func(http.ResponseWriter, *http.Request, error)) bool {
	origin := r.Header.Get("Origin")
	if r.Method == http.MethodOptions {
		// The preflight is the operation (for metrics and fault injection).
		if err := Routed(rec, r, preflight); err != nil {
			errorWriter(rec, r, err)
			return true
		}
		method := r.Header.Get("Access-Control-Request-Method")
		if origin == "" || method == "" {
			missing := "Origin"
			if origin != "" {
				missing = "Access-Control-Request-Method"
			}
			errorWriter(rec, r, errCORSHeaderMissing.WithDetails(azerr.Detail{Name: "MessageDetails", Value: "Invalid required CORS header " + missing}))
			return true
		}
		// Preflights are answered without authentication: the browser
		// never sends credentials on them.
		rules, err := src(r)
		if err != nil {
			errorWriter(rec, r, err)
			return true
		}
		reqHeaders := splitList(r.Header.Get("Access-Control-Request-Headers"))
		for _, rule := range rules {
			if _, ok := rule.matchOrigin(origin); !ok || !rule.matchMethod(method) || !rule.matchHeaders(reqHeaders) {
				continue
			}
			h := rec.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Allow-Methods", method)
			if len(reqHeaders) > 0 {
				h.Set("Access-Control-Allow-Headers", strings.Join(reqHeaders, ","))
			}
			h.Set("Access-Control-Max-Age", strconv.Itoa(rule.MaxAgeInSeconds))
			h.Set("Access-Control-Allow-Credentials", "true")
			h.Add("Vary", "Origin")
			rec.WriteHeader(http.StatusOK)
			return true
		}
		errorWriter(rec, r, azerr.ErrCorsPreflightFailure)
		return true
	}

	rules, err := src(r)
	if err != nil {
		// CORS decorates responses; failing to read the rules must not
		// fail the request itself.
		loggerFrom(r.Context()).WarnContext(r.Context(), "cors rules unavailable", "err", err, "request_id", RequestID(r.Context()))
		return false
	}
	for _, rule := range rules {
		wildcard, ok := rule.matchOrigin(origin)
		if !ok || !rule.matchMethod(r.Method) {
			continue
		}
		exposed := rule.ExposedHeaders
		rec.beforeWrite = func(h http.Header) {
			if wildcard {
				h.Set("Access-Control-Allow-Origin", "*")
			} else {
				// A specific origin may send credentials, and the response
				// then depends on Origin, which caches must know.
				h.Set("Access-Control-Allow-Origin", origin)
				h.Set("Access-Control-Allow-Credentials", "true")
				h.Add("Vary", "Origin")
			}
			if e := exposedHeaders(exposed, h); e != "" {
				h.Set("Access-Control-Expose-Headers", e)
			}
		}
		return false
	}
	if len(rules) > 0 {
		// Another origin might have matched: keep caches from reusing this
		// header-less response for it.
		rec.Header().Add("Vary", "Origin")
	}
	return false
}

// matchOrigin reports whether the rule allows origin, and whether it did
// so only through "*". Origins compare case-sensitively, as Azure does.
func (c CORSRule) matchOrigin(origin string) (wildcard, ok bool) {
	for _, o := range c.AllowedOrigins {
		if strings.TrimSpace(o) == origin {
			return false, true
		}
	}
	for _, o := range c.AllowedOrigins {
		if strings.TrimSpace(o) == "*" {
			return true, true
		}
	}
	return false, false
}

func (c CORSRule) matchMethod(method string) bool {
	for _, m := range c.AllowedMethods {
		if strings.EqualFold(strings.TrimSpace(m), method) {
			return true
		}
	}
	return false
}

// matchHeaders reports whether every requested header is allowed, either
// literally or through a prefix entry such as "x-ms-meta-*".
func (c CORSRule) matchHeaders(requested []string) bool {
	for _, h := range requested {
		if !headerListMatches(c.AllowedHeaders, h) {
			return false
		}
	}
	return true
}

func headerListMatches(list []string, name string) bool {
	name = strings.ToLower(name)
	for _, entry := range list {
		entry = strings.ToLower(strings.TrimSpace(entry))
		if prefix, ok := strings.CutSuffix(entry, "*"); ok {
			if strings.HasPrefix(name, prefix) {
				return true
			}
		} else if entry == name {
			return true
		}
	}
	return false
}

// exposedHeaders lists the literal exposed headers plus every response
// header a prefix entry matches: browsers do not understand "x-ms-meta-*".
func exposedHeaders(rule []string, h http.Header) string {
	var out []string
	seen := map[string]bool{}
	add := func(name string) {
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	var wild []string
	for _, e := range rule {
		e = strings.ToLower(strings.TrimSpace(e))
		if strings.HasSuffix(e, "*") {
			wild = append(wild, e)
		} else {
			add(e)
		}
	}
	if len(wild) > 0 {
		names := make([]string, 0, len(h))
		for k := range h {
			names = append(names, strings.ToLower(k))
		}
		sort.Strings(names)
		for _, n := range names {
			if headerListMatches(wild, n) {
				add(n)
			}
		}
	}
	return strings.Join(out, ",")
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, strings.ToLower(f))
		}
	}
	return out
}
