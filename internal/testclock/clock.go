package testclock

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// Clock is the real time plus an offset that only grows. It is safe for
// concurrent use.
type Clock struct {
	offset atomic.Int64 // nanoseconds
	real   func() time.Time
}

// New returns a clock that reads the real time until advanced.
func New() *Clock { return &Clock{real: time.Now} }

// Now is the clock's time.
func (c *Clock) Now() time.Time { return c.real().Add(time.Duration(c.offset.Load())) }

// Offset is how far the clock has been moved ahead of the real time.
func (c *Clock) Offset() time.Duration { return time.Duration(c.offset.Load()) }

// ErrBackwards refuses moving the clock back: a time that goes backwards
// breaks what every service assumes (versions, leases, expiry order).
var ErrBackwards = errors.New("the test clock only moves forward")

// Advance moves the clock forward by d and returns the new time.
func (c *Clock) Advance(d time.Duration) (time.Time, error) {
	if d < 0 {
		return time.Time{}, ErrBackwards
	}
	c.offset.Add(int64(d))
	return c.Now(), nil
}

// state is what the /clock endpoint answers.
type state struct {
	Now    time.Time `json:"now"`
	Offset string    `json:"offset"`
}

// Handler serves the clock on the admin port: GET /clock answers its time
// and offset; POST /clock/advance?by=16s (or a JSON {"by":"16s"} body)
// moves it forward.
func (c *Clock) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /clock", func(w http.ResponseWriter, r *http.Request) { c.writeState(w) })
	mux.HandleFunc("POST /clock/advance", func(w http.ResponseWriter, r *http.Request) {
		by := r.URL.Query().Get("by")
		if by == "" {
			var body struct {
				By string `json:"by"`
			}
			if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&body); err != nil {
				http.Error(w, "want ?by=DURATION or a JSON body {\"by\":\"DURATION\"}", http.StatusBadRequest)
				return
			}
			by = body.By
		}
		d, err := time.ParseDuration(by)
		if err != nil {
			http.Error(w, fmt.Sprintf("by=%q: %v", by, err), http.StatusBadRequest)
			return
		}
		if _, err := c.Advance(d); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.writeState(w)
	})
	return mux
}

func (c *Clock) writeState(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(state{Now: c.Now().UTC(), Offset: c.Offset().String()})
}
