package parity

import (
	"fmt"
	"io"
	"net/http"
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
	hosts := t.hostRewriter(rec)
	c := &comparer{b: newBinder()}
	shift := time.Since(recordedStart(rec))
	for i := range rec.Entries {
		e := &rec.Entries[i]
		diff := func(format string, args ...any) Result {
			return Result{Recording: rec, Diff: &Difference{Index: i, Method: e.RequestMethod, URI: e.RequestURI, Reason: fmt.Sprintf(format, args...)}}
		}
		req, err := t.request(e, hosts, c.b, shift, time.Now())
		if err != nil {
			return diff("cannot replay: %v", err)
		}
		resp, err := t.Client.Do(req)
		if err != nil {
			return diff("request failed: %v", err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return diff("reading the answer: %v", err)
		}
		if err := c.compare(e, resp, body); err != nil {
			return diff("%v", err)
		}
	}
	return Result{Recording: rec}
}

// recordedStart is when the recording began: the first date its first
// request or answer carries.
func recordedStart(rec *Recording) time.Time {
	for _, e := range rec.Entries {
		for _, h := range []Headers{e.RequestHeaders, e.ResponseHeaders} {
			for _, name := range []string{"x-ms-date", "Date"} {
				if v, ok := h.Get(name); ok {
					if t, err := http.ParseTime(v); err == nil {
						return t
					}
				}
			}
		}
	}
	return time.Now()
}
