package smbclient_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/cerulean-db/cerulean/internal/smb/smbtest"
)

// BenchmarkSmbclientPutGet copies a 64 MiB file up and down with
// smbclient (SMB 3.1.1, signed as smbclient chooses) and reports the
// throughput of both together.
func BenchmarkSmbclientPutGet(b *testing.B) {
	if _, err := os.Stat("/usr/bin/smbclient"); err != nil {
		b.Skip("smbclient is not installed")
	}
	f := benchFixture(b)
	dir := b.TempDir()
	data := bytes.Repeat([]byte("0123456789abcdef"), 4<<20)
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), data, 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(2 * int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		out, err := f.smbAs(b, "SMB3", f.env.Account, f.env.Key, dir, "put big.bin; get big.bin back.bin")
		if err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
	}
	b.StopTimer()
	got, err := os.ReadFile(filepath.Join(dir, "back.bin"))
	if err != nil || !bytes.Equal(got, data) {
		b.Fatal("the file came back different")
	}
}

// BenchmarkSMBOpenWriteClose measures small-file work over many
// sessions with the test client: open, write 4 KiB, close. In
// "dirs-open" every session also holds the share's root directory open,
// as a file manager showing it does, so that each change first lets the
// other sessions answer what they had received (awaitWatchers).
func BenchmarkSMBOpenWriteClose(b *testing.B) {
	for _, dirs := range []bool{false, true} {
		name := "files-only"
		if dirs {
			name = "dirs-open"
		}
		b.Run(name, func(b *testing.B) { benchOpenWriteClose(b, dirs) })
	}
}

func benchOpenWriteClose(b *testing.B, dirsOpen bool) {
	f := benchFixture(b)
	const sessions = 16
	clients := make([]*smbtest.Client, sessions)
	for i := range clients {
		c, err := smbtest.Dial(f.env.SMBAddr, f.env.Account, f.env.Key)
		if err != nil {
			b.Fatal(err)
		}
		defer func() { _ = c.Close() }()
		if err := c.ConnectTree(f.name); err != nil {
			b.Fatal(err)
		}
		if dirsOpen {
			if _, st, err := c.Create("", smbtest.ReadData, smbtest.ShareAll, smbtest.Open, smbtest.OptDirectory); err != nil || st != 0 {
				b.Fatalf("open the root directory: %#x %v", st, err)
			}
		}
		clients[i] = c
	}
	data := make([]byte, 4096)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	var wg sync.WaitGroup
	per := b.N/sessions + 1
	for i, c := range clients {
		wg.Go(func() {
			for j := range per {
				if err := c.WriteFile("f"+strconv.Itoa(i)+"-"+strconv.Itoa(j%64), data); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
