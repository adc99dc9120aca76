package script

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A script that doubles a string forever is stopped for its memory long
// before its time runs out, and other scripts keep running afterwards.
func TestMemoryBombIsStopped(t *testing.T) {
	e := NewEngine()
	bomb := Script{ID: "bomb", ETag: "1", Body: `function bomb() { var s = "xxxxxxxx"; var keep = []; while (true) { s = s + s; keep.push(s); } }`}
	start := time.Now()
	_, err := e.RunSproc(context.Background(), bomb, []byte(`[]`), newFakeCollection(), Options{Budget: time.Minute, MaxMemory: 64 << 20})
	if !errors.Is(err, ErrMemory) {
		t.Fatalf("got %v, want ErrMemory", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("stopped after %v", d)
	}
	ok := Script{ID: "ok", ETag: "1", Body: `function ok() { getContext().getResponse().setBody(new Array(1000).join("y").length); }`}
	res, err := e.RunSproc(context.Background(), ok, []byte(`[]`), newFakeCollection(), Options{MaxMemory: 64 << 20})
	if err != nil || string(res.Body) != "999" {
		t.Fatalf("a script after the bomb: %s, %v", res.Body, err)
	}
}
