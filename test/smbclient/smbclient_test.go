// Package smbclient_test drives cerulean's SMB server with Samba's own
// smbclient (Debian's package, installed by `make debtools` in CI) and
// checks what it does against the Azure Files REST view of the same
// share through the official SDK. Tests skip when smbclient is absent.
package smbclient_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sharefile "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

type fixture struct {
	env   *servertest.Env
	svc   *service.Client
	share *share.Client
	name  string
	port  string
}

func smbclientPath(t *testing.T) string {
	t.Helper()
	return testkit.Tool(t, "smbclient", "smbclient")
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	smbclientPath(t)
	return benchFixture(t)
}

// smb runs smbclient commands against the share at the given protocol
// level ("SMB3", "SMB2"), with user and key, in dir; it returns the
// combined output and the error.
func (f *fixture) smbAs(t testing.TB, proto, user, key, dir, cmds string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	args := []string{"-p", f.port, "//127.0.0.1/" + f.name, "-U", user + "%" + key, "-c", cmds}
	// proto is the highest dialect, optionally with smbclient options
	// after it ("SMB3 --client-protection=sign").
	fs := strings.Fields(proto)
	args = append(append(args, "-m", fs[0]), fs[1:]...)
	cmd := exec.CommandContext(ctx, "smbclient", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (f *fixture) smb(t *testing.T, proto, dir, cmds string) string {
	t.Helper()
	out, err := f.smbAs(t, proto, f.env.Account, f.env.Key, dir, cmds)
	if err != nil || strings.Contains(out, "NT_STATUS_") {
		t.Fatalf("smbclient -m %s -c %q: %v\n%s", proto, cmds, err, out)
	}
	return out
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// file is the REST client of a file at path ("dir/name").
func (f *fixture) file(path string) *sharefile.Client {
	dir, name := filepath.Split(path)
	if dir == "" {
		return f.share.NewRootDirectoryClient().NewFileClient(name)
	}
	return f.share.NewDirectoryClient(strings.TrimSuffix(dir, "/")).NewFileClient(name)
}

// restWrite creates a file of data over REST.
func (f *fixture) restWrite(t *testing.T, path string, data []byte) {
	t.Helper()
	fc := f.file(path)
	if _, err := fc.Create(t.Context(), int64(len(data)), nil); err != nil {
		t.Fatalf("REST create %s: %v", path, err)
	}
	if err := fc.UploadBuffer(t.Context(), data, nil); err != nil {
		t.Fatalf("REST upload %s: %v", path, err)
	}
}

func (f *fixture) restRead(t *testing.T, path string) []byte {
	t.Helper()
	resp, err := f.file(path).DownloadStream(t.Context(), nil)
	if err != nil {
		t.Fatalf("REST read %s: %v", path, err)
	}
	b := testkit.ReadBody(t, resp.Body)
	return b
}

// TestSmbclientRoundTrip: mkdir, put, ls, get, rename and rm through
// smbclient, each checked against REST: what SMB wrote REST reads byte
// for byte, what REST wrote SMB reads byte for byte, in every dialect
// served (3.1.1, 3.0.2, 3.0, 2.1, 2.0.2), signed and unsigned, with each
// 3.1.1 signing algorithm (AES-128-GMAC, AES-128-CMAC, HMAC-SHA256),
// encrypted (AES-128-GCM, AES-128-CCM and AES-256-GCM with 3.1.1,
// AES-128-CCM with 3.0 and 3.0.2), and after an SMB1 NEGOTIATE that
// offers SMB2.
func TestSmbclientRoundTrip(t *testing.T) {
	for _, proto := range []string{"SMB3", "SMB2", "SMB3_00 --client-protection=sign", "SMB3 --client-protection=sign", "SMB2 --client-protection=sign", "SMB3_02 --client-protection=sign", "SMB2_02", "SMB3 --option=clientminprotocol=NT1", "SMB3 --client-protection=encrypt",
		"SMB3_00 --client-protection=encrypt", "SMB3_02 --client-protection=encrypt",
		"SMB3 --client-protection=sign --option=clientsmb3signingalgorithms=AES-128-GMAC",
		"SMB3 --client-protection=sign --option=clientsmb3signingalgorithms=AES-128-CMAC",
		"SMB3 --client-protection=sign --option=clientsmb3signingalgorithms=HMAC-SHA256",
		"SMB3 --client-protection=encrypt --option=clientsmb3encryptionalgorithms=AES-256-GCM",
		"SMB3 --client-protection=encrypt --option=clientsmb3encryptionalgorithms=AES-128-CCM"} {
		t.Run(proto, func(t *testing.T) {
			f := newFixture(t)
			dir := t.TempDir()
			local := randomBytes(t, 3<<20+12345) // several 1 MiB writes and a tail
			if err := os.WriteFile(filepath.Join(dir, "up.bin"), local, 0o600); err != nil {
				t.Fatal(err)
			}
			f.smb(t, proto, dir, "mkdir docs; cd docs; put up.bin; ls")
			if got := f.restRead(t, "docs/up.bin"); !bytes.Equal(got, local) {
				t.Fatalf("REST reads %d bytes that differ from the %d put over SMB", len(got), len(local))
			}
			// REST writes, SMB reads.
			remote := randomBytes(t, 1<<20+777)
			f.restWrite(t, "docs/rest.bin", remote)
			out := f.smb(t, proto, dir, "cd docs; ls; get rest.bin")
			for _, name := range []string{"up.bin", "rest.bin"} {
				if !strings.Contains(out, name) {
					t.Errorf("ls does not list %s:\n%s", name, out)
				}
			}
			got, err := os.ReadFile(filepath.Join(dir, "rest.bin"))
			if err != nil || !bytes.Equal(got, remote) {
				t.Fatalf("SMB get of a REST-written file: %d bytes, err %v; want the %d written", len(got), err, len(remote))
			}
			// Rename and delete, seen by REST.
			f.smb(t, proto, dir, "cd docs; rename up.bin moved.bin; rm rest.bin")
			if got := f.restRead(t, "docs/moved.bin"); !bytes.Equal(got, local) {
				t.Fatal("the renamed file's content changed")
			}
			pager := f.share.NewDirectoryClient("docs").NewListFilesAndDirectoriesPager(nil)
			var names []string
			for pager.More() {
				page, err := pager.NextPage(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				for _, fi := range page.Segment.Files {
					names = append(names, *fi.Name)
				}
			}
			if strings.Join(names, ",") != "moved.bin" {
				t.Fatalf("REST lists %v after rename and rm, want [moved.bin]", names)
			}
			f.smb(t, proto, dir, "cd docs; rm moved.bin; cd ..; rmdir docs")
			if _, err := f.share.NewDirectoryClient("docs").GetProperties(t.Context(), nil); err == nil {
				t.Fatal("the directory removed over SMB still exists for REST")
			}
		})
	}
}

// TestSmbclientAES256CCMRefused: a client that will encrypt only with
// AES-256-CCM finds no cipher in common, as Azure Files does not offer
// it (its channel encryption lists AES-256-GCM, AES-128-GCM and
// AES-128-CCM), and does not connect.
func TestSmbclientAES256CCMRefused(t *testing.T) {
	f := newFixture(t)
	out, err := f.smbAs(t, "SMB3 --client-protection=encrypt --option=clientsmb3encryptionalgorithms=AES-256-CCM", f.env.Account, f.env.Key, t.TempDir(), "ls")
	if err == nil || !strings.Contains(strings.ToLower(out), "encryption") {
		t.Errorf("err %v, output:\n%s\nwant a refused connection for want of encryption", err, out)
	}
}

// TestSmbclientWrongKeyRefused: a wrong key, or an unknown account, is
// NT_STATUS_LOGON_FAILURE.
func TestSmbclientWrongKeyRefused(t *testing.T) {
	f := newFixture(t)
	for _, cred := range [][2]string{
		{f.env.Account, strings.Replace(f.env.Key, "E", "F", 1)},
		{"nosuchaccount", f.env.Key},
	} {
		out, err := f.smbAs(t, "SMB3", cred[0], cred[1], t.TempDir(), "ls")
		if err == nil || !strings.Contains(out, "NT_STATUS_LOGON_FAILURE") {
			t.Errorf("user %s: err %v, output:\n%s\nwant NT_STATUS_LOGON_FAILURE", cred[0], err, out)
		}
	}
}

// TestSmbclientAttributesAndVolume: attributes set over SMB (setmode) are
// what REST reports, a ReadOnly file refuses an SMB overwrite, and the
// volume carries the share's name.
func TestSmbclientAttributesAndVolume(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	f.restWrite(t, "ro.txt", []byte("keep"))
	f.smb(t, "SMB3", dir, "setmode ro.txt +rh")
	props, err := f.file("ro.txt").GetProperties(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if attrs := *props.FileAttributes; !strings.Contains(attrs, "ReadOnly") || !strings.Contains(attrs, "Hidden") {
		t.Errorf("REST reports attributes %q after setmode +rh", attrs)
	}
	if err := os.WriteFile(filepath.Join(dir, "ro.txt"), []byte("overwrite"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _ := f.smbAs(t, "SMB3", f.env.Account, f.env.Key, dir, "put ro.txt")
	if !strings.Contains(out, "NT_STATUS_ACCESS_DENIED") {
		t.Errorf("put over a ReadOnly file:\n%s\nwant NT_STATUS_ACCESS_DENIED", out)
	}
	if got := f.restRead(t, "ro.txt"); string(got) != "keep" {
		t.Errorf("the ReadOnly file now holds %q", got)
	}
	f.smb(t, "SMB3", dir, "setmode ro.txt -rh")
	props, err = f.file("ro.txt").GetProperties(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if attrs := *props.FileAttributes; strings.Contains(attrs, "ReadOnly") || strings.Contains(attrs, "Hidden") {
		t.Errorf("REST reports attributes %q after setmode -rh", attrs)
	}
	if out := f.smb(t, "SMB3", dir, "volume"); !strings.Contains(out, "Volume: |"+f.name+"|") {
		t.Errorf("volume:\n%s", out)
	}
}
