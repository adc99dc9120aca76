package parity

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// A Result is how one recording replayed.
type Result struct {
	Recording *Recording
	// Diff is the first answer that differed from Azure's; nil when every
	// answer matched.
	Diff *Difference
}

// A Difference is the first answer that differed, and how.
type Difference struct {
	Index  int // the entry's index in the recording
	Method string
	URI    string // as recorded
	Reason string
}

func (d *Difference) String() string {
	return fmt.Sprintf("#%d %s %s: %s", d.Index, d.Method, d.URI, d.Reason)
}

// Replay sends the recording's requests in order to t and compares each
// answer with Azure's, stopping at the first that differs: every later
// request depends on the state the earlier ones left.
func (t *Target) Replay(rec *Recording) Result {
	start := recordedStart(rec)
	liveStart := t.now()
	shift := liveStart.Sub(start)
	c := &comparer{b: newBinder(), shift: shift, account: recordedAccount(rec), live: t.Account,
		local:    func(v string) string { return t.localPlaceholderURL(v, rec.Service) },
		keyOrder: keyOrdered[rec.Service]}
	for i := range rec.Entries {
		e := &rec.Entries[i]
		if t.Clock != nil {
			// Keep the server's clock at least as far from the start
			// as the recording's was when it sent this request.
			if at, ok := entryTime(e); ok {
				if behind := at.Sub(start) - t.now().Sub(liveStart); behind > 0 {
					if _, err := t.Clock.Advance(behind); err != nil {
						return Result{Recording: rec, Diff: &Difference{Index: i, Method: e.RequestMethod, URI: e.RequestURI, Reason: err.Error()}}
					}
				}
			}
		}
		diff := func(format string, args ...any) Result {
			return Result{Recording: rec, Diff: &Difference{Index: i, Method: e.RequestMethod, URI: e.RequestURI, Reason: fmt.Sprintf(format, args...)}}
		}
		req, err := t.request(e, rec.Service, c.b, shift, t.now())
		if err != nil {
			return diff("cannot replay: %v", err)
		}
		resp, err := t.Client.Do(req)
		if err != nil {
			return diff("request failed: %v", err)
		}
		body, err := io.ReadAll(resp.Body)
		if cerr := resp.Body.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return diff("reading the answer: %v", err)
		}
		if t.Settle != nil {
			t.Settle()
		}
		c.b.noteReceipts(req.URL, resp.Header.Get("X-Ms-Popreceipt"), body)
		if err := c.compare(e, resp, body); err != nil {
			return diff("%v", err)
		}
	}
	return Result{Recording: rec}
}

// recordedAccount is the account the recording ran on: the first label
// of its first request's host.
func recordedAccount(rec *Recording) string {
	if len(rec.Entries) == 0 {
		return ""
	}
	u, err := url.Parse(rec.Entries[0].RequestURI)
	if err != nil {
		return ""
	}
	name, _, _ := strings.Cut(u.Hostname(), ".")
	return name
}

// recordedStart is when the recording began: the first date one of its
// requests carries.
func recordedStart(rec *Recording) time.Time {
	for i := range rec.Entries {
		if t, ok := entryTime(&rec.Entries[i]); ok {
			return t
		}
	}
	return time.Now()
}

// entryTime is when the recording sent e: its request's x-ms-date or
// Date, else the Date of Azure's answer.
func entryTime(e *Entry) (time.Time, bool) {
	for _, h := range []Headers{e.RequestHeaders, e.ResponseHeaders} {
		for _, name := range []string{"x-ms-date", "Date"} {
			if v, ok := h.Get(name); ok {
				if t, err := http.ParseTime(v); err == nil {
					return t, true
				}
			}
		}
	}
	return time.Time{}, false
}
