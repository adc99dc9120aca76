package azhttp

import (
	"errors"
	"io"
	"net/http"
	"time"
)

// IdleReadTimeout cuts a request whose body stalls for longer than d
// (and less than d + d/16) between reads, without bounding how long a large upload may take in
// all: each read of the body gets a fresh deadline. Slow-body clients
// cannot pin a connection forever.
func IdleReadTimeout(d time.Duration, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			// A copy of the request carries the wrapper: the server must
			// still see its own body type afterwards, to close rather than
			// drain an unread body (an early error answer to a client
			// waiting on 100-continue would otherwise wait for the body).
			r = r.WithContext(r.Context())
			r.Body = &idleBody{ReadCloser: r.Body, rc: rc, d: d}
		}
		h.ServeHTTP(w, r)
	})
}

type idleBody struct {
	io.ReadCloser
	rc       *http.ResponseController
	d        time.Duration
	deadline time.Time // the connection's read deadline; zero when none is set
}

// Read moves the deadline only once it is less than d away: setting one
// updates a runtime timer, and a small body is read whole by the first
// call. A stall of d is still always allowed; one of d + d/16 never is.
func (b *idleBody) Read(p []byte) (int, error) {
	if now := time.Now(); b.deadline.IsZero() || b.deadline.Sub(now) < b.d {
		b.deadline = now.Add(b.d + b.d/16)
		_ = b.rc.SetReadDeadline(b.deadline)
	}
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		// Reading is over: the deadline must not cut the connection
		// while the handler still works. At the end of the body the
		// server clears it itself, as it starts watching for the client
		// going away (TestIdleReadTimeout's slow handler pins that).
		if !errors.Is(err, io.EOF) {
			_ = b.rc.SetReadDeadline(time.Time{})
		}
		b.deadline = time.Time{}
	}
	return n, err
}
