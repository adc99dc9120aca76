package console

import (
	"net"
	"testing"
)

func TestHostIsLocal(t *testing.T) {
	v4 := &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 9090}
	v6 := &net.TCPAddr{IP: net.ParseIP("::1"), Port: 9090}
	lan := &net.TCPAddr{IP: net.ParseIP("10.1.2.3"), Port: 9090}
	for _, c := range []struct {
		host  string
		local net.Addr
		want  bool
	}{
		{"127.0.0.1:9090", v4, true},
		{"localhost:9090", v4, true},
		{"[::1]:9090", v6, true},
		{"localhost:9090", v6, true},
		{"10.1.2.3:9090", lan, true},
		{"localhost:9090", lan, false}, // not the address it was reached on
		{"127.0.0.1:9091", v4, false},
		{"127.0.0.1", v4, false},
		{"rebound.example:9090", v4, false},
		{"[::ffff:127.0.0.1]:9090", v4, true},
		{"127.0.0.1:9090", nil, false},
		{"127.0.0.1:9090", &net.UnixAddr{Name: "/tmp/s"}, false},
	} {
		if got := hostIsLocal(c.host, c.local); got != c.want {
			t.Errorf("hostIsLocal(%q, %v) = %v, want %v", c.host, c.local, got, c.want)
		}
	}
}

// TestForwardedLoopback: a loopback Host on any port is a port forward's
// only when the peer is on loopback too; a remote peer (a container's
// published port) needs --admin-allowed-hosts.
func TestForwardedLoopback(t *testing.T) {
	for _, c := range []struct {
		host, peer string
		want       bool
	}{
		{"localhost:8080", "127.0.0.1:50000", true},
		{"127.0.0.1:8080", "[::1]:50000", true},
		{"[::1]:8080", "127.0.0.1:50000", true},
		{"localhost.:8080", "127.0.0.1:50000", true},
		{"localhost:8080", "172.17.0.1:50000", false},
		{"rebound.example:8080", "127.0.0.1:50000", false},
		{"10.0.0.5:8080", "127.0.0.1:50000", false},
		{"localhost", "127.0.0.1:50000", false},
		{"localhost:8080", "garbage", false},
	} {
		if got := forwardedLoopback(c.host, c.peer); got != c.want {
			t.Errorf("forwardedLoopback(%q, %q) = %v, want %v", c.host, c.peer, got, c.want)
		}
	}
}
