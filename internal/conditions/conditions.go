package conditions

import (
	"errors"
	"net/http"
	"strings"
	"time"
)

var (
	// ErrConditionNotMet: a write's precondition failed (412), or a read's
	// If-Match / If-Unmodified-Since failed (412).
	ErrConditionNotMet = errors.New("condition not met")
	// ErrNotModified: a read's If-None-Match / If-Modified-Since failed (304).
	ErrNotModified = errors.New("not modified")
	// ErrAlreadyExists: a create with If-None-Match: * found the resource (409).
	ErrAlreadyExists = errors.New("already exists")
)

// Conditions are the parsed conditional headers of one request, with a
// prefix such as "x-ms-source-" for the source of a copy.
type Conditions struct {
	IfMatch           []string // ETags or "*"
	IfNoneMatch       []string
	IfModifiedSince   time.Time
	IfUnmodifiedSince time.Time
}

// Kind distinguishes how a failed condition is reported.
type Kind int

const (
	// Read is GET/HEAD: If-None-Match / If-Modified-Since failures are 304.
	Read Kind = iota
	// Write is every other operation: every failure is 412.
	Write
	// Create is a write where If-None-Match: * on an existing resource is 409.
	Create
)

// State is the resource as the condition sees it.
type State struct {
	Exists       bool
	ETag         string // quoted, as sent on the wire
	LastModified time.Time
}

// FromHeader parses the conditional headers, each name optionally prefixed
// (prefix "" for the usual ones). Unparseable dates are ignored, as HTTP
// requires and Azure does.
func FromHeader(h http.Header, prefix string) Conditions {
	return Conditions{
		IfMatch:           etagList(h.Get(prefix + "If-Match")),
		IfNoneMatch:       etagList(h.Get(prefix + "If-None-Match")),
		IfModifiedSince:   httpDate(h.Get(prefix + "If-Modified-Since")),
		IfUnmodifiedSince: httpDate(h.Get(prefix + "If-Unmodified-Since")),
	}
}

// Empty reports whether no condition was given.
func (c Conditions) Empty() bool {
	return len(c.IfMatch) == 0 && len(c.IfNoneMatch) == 0 && c.IfModifiedSince.IsZero() && c.IfUnmodifiedSince.IsZero()
}

// Check evaluates c against s. Dates compare at one-second resolution, as
// HTTP dates carry no more.
func (c Conditions) Check(kind Kind, s State) error {
	notModified := ErrConditionNotMet
	if kind == Read {
		notModified = ErrNotModified
	}
	if len(c.IfMatch) > 0 {
		if !s.Exists || !matches(c.IfMatch, s.ETag) {
			return ErrConditionNotMet
		}
	} else if !c.IfUnmodifiedSince.IsZero() && s.Exists && truncate(s.LastModified).After(c.IfUnmodifiedSince) {
		return ErrConditionNotMet
	}
	if len(c.IfNoneMatch) > 0 {
		if s.Exists && matches(c.IfNoneMatch, s.ETag) {
			if kind == Create && isStar(c.IfNoneMatch) {
				return ErrAlreadyExists
			}
			return notModified
		}
	} else if !c.IfModifiedSince.IsZero() && s.Exists && !truncate(s.LastModified).After(c.IfModifiedSince) {
		return notModified
	}
	return nil
}

// Answers are a protocol's errors for the failures Check reports.
type Answers struct {
	NotModified   error // for ErrNotModified
	AlreadyExists error // for ErrAlreadyExists
	NotMet        error // for ErrConditionNotMet
}

// Answer evaluates c against s as Check does and answers a failure with
// the protocol's error for it.
func (c Conditions) Answer(kind Kind, s State, a Answers) error {
	switch err := c.Check(kind, s); {
	case err == nil:
		return nil
	case errors.Is(err, ErrNotModified):
		return a.NotModified
	case errors.Is(err, ErrAlreadyExists):
		return a.AlreadyExists
	default:
		return a.NotMet
	}
}

func matches(list []string, etag string) bool {
	for _, e := range list {
		if e == "*" || e == etag || strings.TrimPrefix(e, "W/") == etag {
			return true
		}
	}
	return false
}

func isStar(list []string) bool { return len(list) == 1 && list[0] == "*" }

func etagList(v string) []string {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	var out []string
	for _, part := range splitETags(v) {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, normalizeETag(part))
		}
	}
	return out
}

// splitETags splits on commas outside quotes.
func splitETags(v string) []string {
	var parts []string
	quoted, start := false, 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				parts = append(parts, v[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, v[start:])
}

// normalizeETag quotes a bare ETag: SDKs send them quoted, but some clients
// and the Table service's form do not.
func normalizeETag(e string) string {
	if e == "*" || strings.HasPrefix(e, `"`) || strings.HasPrefix(e, `W/"`) {
		return e
	}
	return `"` + e + `"`
}

func httpDate(v string) time.Time {
	if v == "" {
		return time.Time{}
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

func truncate(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }
