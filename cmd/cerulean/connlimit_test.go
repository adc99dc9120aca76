package main

import "testing"

// TestServeMaxConnectionsFlag: the per-listener connection bound is read
// from the flag and the environment, defaults to the server's (0), and a
// bound below one is refused.
func TestServeMaxConnectionsFlag(t *testing.T) {
	f, err := parse(t, []string{"--max-connections", "20000"}, nil)
	if err != nil || f.maxConns != 20000 {
		t.Fatalf("--max-connections 20000 read as %d, %v", f.maxConns, err)
	}
	f, err = parse(t, nil, map[string]string{"CERULEAN_MAX_CONNECTIONS": "100"})
	if err != nil || f.maxConns != 100 {
		t.Fatalf("CERULEAN_MAX_CONNECTIONS=100 read as %d, %v", f.maxConns, err)
	}
	// Unset is 0: the server's own default.
	f, err = parse(t, nil, nil)
	if err != nil || f.maxConns != 0 {
		t.Fatalf("default read as %d, %v", f.maxConns, err)
	}
	for _, v := range []string{"0", "-5", "many"} {
		if _, err := parse(t, []string{"--max-connections", v}, nil); err == nil {
			t.Errorf("--max-connections %s accepted", v)
		}
	}
}
