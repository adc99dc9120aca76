package azhttp

import (
	"io"
	"net/http"
	"time"
)

// IdleReadTimeout cuts a request whose body stalls for longer than d
// between reads, without bounding how long a large upload may take in
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
	rc *http.ResponseController
	d  time.Duration
}

func (b *idleBody) Read(p []byte) (int, error) {
	_ = b.rc.SetReadDeadline(time.Now().Add(b.d))
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		// Reading is over; the connection's next request gets the
		// server's own header timeout.
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}
