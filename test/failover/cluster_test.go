package failover_test

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pgBin is the directory of the newest installed PostgreSQL server.
func pgBin(t *testing.T) string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) < version(dirs[j]) })
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i]
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("PostgreSQL's server binaries are missing: `make test` installs Debian's postgresql package")
	}
	t.Skip("PostgreSQL's server binaries are not installed (Debian's postgresql package; `make test` installs it)")
	return ""
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// cluster is one PostgreSQL server of the test, in its own directory.
type cluster struct {
	t    *testing.T
	bin  string
	dir  string
	port int
}

// run runs a PostgreSQL program, as the postgres user when the test runs
// as root (PostgreSQL refuses to run as root).
func (c *cluster) run(prog string, args ...string) {
	c.t.Helper()
	cmd := exec.Command(filepath.Join(c.bin, prog), args...)
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", filepath.Join(c.bin, prog)}, args...)...)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		c.t.Fatalf("%s %v: %v\n%s\n%s", prog, args, err, out, log)
	}
}

// newDir makes a directory the cluster's user owns.
func newDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "cerulean-failover-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		if out, err := exec.Command("chown", "postgres:", dir).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
	}
	return dir
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

// startPrimary creates and starts a primary that waits, on every commit,
// for the standby named standby to have flushed it.
func startPrimary(t *testing.T, bin string) *cluster {
	c := &cluster{t: t, bin: bin, dir: newDir(t), port: freePort(t)}
	c.run("initdb", "-D", c.data(), "-U", "postgres", "--auth=trust", "-E", "UTF8")
	c.appendConf(fmt.Sprintf(`
listen_addresses = '127.0.0.1'
port = %d
unix_socket_directories = '%s'
wal_level = replica
max_wal_senders = 4
synchronous_standby_names = 'standby'
synchronous_commit = on
`, c.port, c.dir))
	c.start()
	return c
}

// startStandby copies the primary and follows it as the synchronous
// standby "standby".
func startStandby(t *testing.T, primary *cluster) *cluster {
	c := &cluster{t: t, bin: primary.bin, dir: newDir(t), port: freePort(t)}
	c.run("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(primary.port), "-U", "postgres", "-D", c.data(), "-X", "stream", "-R")
	c.appendConf(fmt.Sprintf(`
port = %d
unix_socket_directories = '%s'
`, c.port, c.dir))
	// pg_basebackup -R wrote a primary_conninfo to postgresql.auto.conf,
	// which wins over postgresql.conf; the last setting in it wins.
	c.appendFile("postgresql.auto.conf", fmt.Sprintf("primary_conninfo = 'host=127.0.0.1 port=%d user=postgres application_name=standby'\n", primary.port))
	c.start()
	return c
}

func (c *cluster) data() string { return filepath.Join(c.dir, "data") }

func (c *cluster) appendConf(s string) { c.appendFile("postgresql.conf", s) }

func (c *cluster) appendFile(name, s string) {
	c.t.Helper()
	f, err := os.OpenFile(filepath.Join(c.data(), name), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		c.t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		c.t.Fatal(err)
	}
}

func (c *cluster) start() {
	c.t.Helper()
	c.run("pg_ctl", "-D", c.data(), "-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "60", "start")
	c.t.Cleanup(func() { c.kill() })
}

// promote turns a standby into a primary.
func (c *cluster) promote() { c.run("pg_ctl", "-D", c.data(), "-w", "-t", "60", "promote") }

// kill sends SIGKILL to the postmaster and every process it started: a
// power cut of the database server, as far as clients can tell.
func (c *cluster) kill() {
	b, err := os.ReadFile(filepath.Join(c.data(), "postmaster.pid"))
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(bytes.SplitN(b, []byte("\n"), 2)[0])))
	if err != nil {
		return
	}
	children, _ := exec.Command("pgrep", "-P", strconv.Itoa(pid)).Output()
	_ = syscall.Kill(pid, syscall.SIGKILL)
	for _, f := range strings.Fields(string(children)) {
		if child, err := strconv.Atoi(f); err == nil {
			_ = syscall.Kill(child, syscall.SIGKILL)
		}
	}
	for range 100 {
		if syscall.Kill(pid, 0) != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = os.Remove(filepath.Join(c.data(), "postmaster.pid"))
}

func (c *cluster) dsn() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
}
