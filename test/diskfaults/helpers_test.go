package diskfaults

import (
	"bytes"
	"testing"
)

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// err2 keeps the error of a call that also returns a response.
func err2[T any](_ T, err error) error { return err }

type readSeekNopCloser struct{ *bytes.Reader }

func (readSeekNopCloser) Close() error { return nil }

func nopCloser(b []byte) readSeekNopCloser { return readSeekNopCloser{bytes.NewReader(b)} }
