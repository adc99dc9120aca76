package azauth

import (
	"net/http"
	"sync/atomic"
	"time"
)

// MaxDateSkew is how far the date a Shared Key request was signed at may
// be from the server's clock. Azure refuses a request more than 15
// minutes old when it arrives, so that a captured request cannot be
// replayed later; one dated as far ahead is refused too, or a client
// could sign requests for replay in the future.
const MaxDateSkew = 15 * time.Minute

// checkRequestDate refuses a Shared Key request whose x-ms-date (or, when
// absent, Date) is missing, unreadable or more than MaxDateSkew from both
// the wall clock and the service's clock (Now). In production the two are
// one; tests move the service's clock to cross lease, retention and expiry
// windows while SDK clients keep signing with real time, and a client
// that signs by the service's clock (the console) stays valid too.
func (a *Authenticator) checkRequestDate(r *http.Request) error {
	if a.Wall == nil {
		return nil
	}
	v := RequestDate(r)
	if v == "" {
		return authFailed("Request date header not specified. Send x-ms-date or Date.")
	}
	when, err := parseRequestDate(v)
	if err != nil {
		return authFailed("The Date header in the request is incorrect: %q.", v)
	}
	wall, service := a.Wall(), a.now()
	if WithinDateSkew(when, wall) || WithinDateSkew(when, service) {
		return nil
	}
	if when.Before(wall) {
		return authFailed("Request date header too old: '%s'", when.UTC().Format(http.TimeFormat))
	}
	return authFailed("Request date header too far in the future: '%s'", when.UTC().Format(http.TimeFormat))
}

// parsedDate is a request date's text and the time it names.
type parsedDate struct {
	text string
	when time.Time
}

// lastDate is the request date parsed last: a date has a resolution of a
// second, so the requests of one second, from every client, mostly send
// the same text, and parsing it was 1% of a small write's CPU.
var lastDate atomic.Pointer[parsedDate]

// parseRequestDate is http.ParseTime through lastDate.
func parseRequestDate(v string) (time.Time, error) {
	if d := lastDate.Load(); d != nil && d.text == v {
		return d.when, nil
	}
	when, err := http.ParseTime(v)
	if err != nil {
		return time.Time{}, err
	}
	lastDate.Store(&parsedDate{text: v, when: when})
	return when, nil
}

// RequestDate is the date a request was signed at: x-ms-date, or Date
// when x-ms-date is absent ("" when neither is sent).
func RequestDate(r *http.Request) string {
	if v := r.Header.Get("X-Ms-Date"); v != "" {
		return v
	}
	return r.Header.Get("Date")
}

// WithinDateSkew reports whether a request signed at when may be served
// at now: at most MaxDateSkew either way (Storage and Cosmos DB alike).
func WithinDateSkew(when, now time.Time) bool {
	d := now.Sub(when)
	return d <= MaxDateSkew && d >= -MaxDateSkew
}
