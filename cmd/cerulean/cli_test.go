package main

import (
	"strings"
	"testing"
)

// TestVersion: --version, -version and version print the version and the
// commit.
func TestVersion(t *testing.T) {
	defer func(v, c string) { version, commit = v, c }(version, commit)
	version, commit = "v1.2.3", "0123abcd"
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		var out strings.Builder
		if err := run(args, envOf(nil), &out, &out); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if got := strings.TrimSpace(out.String()); got != "cerulean v1.2.3 (commit 0123abcd)" {
			t.Errorf("%q printed %q", args, got)
		}
	}
	// Without -ldflags the commit comes from the build info, or says it
	// is unknown (go test records no VCS state).
	commit = ""
	if line := versionLine(); !strings.Contains(line, "(commit ") {
		t.Errorf("version line %q names no commit", line)
	}
}

// TestHelpListsCommands: --help, -h and help list the subcommands.
func TestHelpListsCommands(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		var out strings.Builder
		if err := run(args, envOf(nil), &out, &out); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		for _, want := range []string{"serve", "connection-strings", "version", "cerulean serve --help"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%q does not list %q:\n%s", args, want, out.String())
			}
		}
	}
}

// TestSubcommandHelpNamesItself: each subcommand's help starts with its
// own usage line and leaves Azurite's spellings out of the flag list.
func TestSubcommandHelpNamesItself(t *testing.T) {
	for _, cmd := range []string{"serve", "connection-strings"} {
		var out strings.Builder
		if err := run([]string{cmd, "--help"}, envOf(nil), &out, &out); err != nil {
			t.Fatalf("%s --help: %v", cmd, err)
		}
		if !strings.HasPrefix(out.String(), "usage: cerulean "+cmd+" [flags]") {
			t.Errorf("%s --help starts %q", cmd, firstLine(out.String()))
		}
		if strings.Contains(out.String(), "-blobPort value") || !strings.Contains(out.String(), "--blobPort (--blob-port)") {
			t.Errorf("%s --help: Azurite spellings not apart:\n%s", cmd, out.String())
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestAzuriteFlagsAccepted: Azurite's spellings of settings cerulean has
// set them.
func TestAzuriteFlagsAccepted(t *testing.T) {
	f, err := parse(t, []string{"--blobPort", "20000", "--queuePort", "20001", "--tablePort", "20002", "--blobHost", "0.0.0.0",
		"-l", "/tmp/azurite", "--inMemoryPersistence", "--cert", "c.pem", "--key", "k.pem", "--skipApiVersionCheck", "--loose"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.blobPort != 20000 || f.queuePort != 20001 || f.tablePort != 20002 || f.host != "0.0.0.0" || f.dataDir != "/tmp/azurite" ||
		!bool(f.inMemory) || f.certFile != "c.pem" || f.keyFile != "k.pem" {
		t.Errorf("Azurite flags read as %+v", *f)
	}
	if len(f.notes) != 2 || !strings.Contains(strings.Join(f.notes, "\n"), "changes nothing") {
		t.Errorf("no-op Azurite switches left notes %q, want one each", f.notes)
	}
}

// TestAzuriteFlagsRefused: an Azurite flag cerulean has no setting for
// stops the start, naming what to use instead.
func TestAzuriteFlagsRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--oauth", "basic"}, "Shared Key and SAS"},
		{[]string{"--pwd", "secret"}, "--cert and --key"},
		{[]string{"--debug", "/tmp/debug.log"}, "--log-level debug"},
		{[]string{"--silent"}, "--log-level warn"},
	} {
		_, err := parse(t, tc.args, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want refused naming %s", tc.args, err, tc.want)
		}
	}
}

// TestAdminAllowedHosts: --admin-allowed-hosts and its variable take a
// comma-separated list; a URL in it is refused.
func TestAdminAllowedHosts(t *testing.T) {
	f, err := parse(t, []string{"--admin-allowed-hosts", "devbox, cerulean.internal:8443"}, nil)
	if err != nil || len(f.adminAllowed) != 2 || f.adminAllowed[0] != "devbox" || f.adminAllowed[1] != "cerulean.internal:8443" {
		t.Errorf("flag: %q, %v", f.adminAllowed, err)
	}
	f, err = parse(t, nil, map[string]string{"CERULEAN_ADMIN_ALLOWED_HOSTS": "devbox"})
	if err != nil || len(f.adminAllowed) != 1 {
		t.Errorf("variable: %+v, %v", f, err)
	}
	for _, bad := range []string{"http://devbox", "devbox,", "devbox/console"} {
		if _, err := parse(t, []string{"--admin-allowed-hosts", bad}, nil); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
