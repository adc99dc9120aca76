package filesdk_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
)

// stampedWrite is the content of one Put Range: every 8-byte word names
// its writer (top byte), the writer's sequence number (24 bits) and the
// word's own index (32 bits), so a read shows exactly which write each
// word came from and that it landed where it was written.
func stampedWrite(writer byte, seq uint32, offset, n int64) []byte {
	b := make([]byte, n)
	for i := int64(0); i < n; i += 8 {
		binary.LittleEndian.PutUint64(b[i:], stamp(writer, seq, offset+i))
	}
	return b
}

func stamp(writer byte, seq uint32, offset int64) uint64 {
	return uint64(writer)<<56 | uint64(seq&0xffffff)<<32 | uint64(offset/8)
}

// writeOf names the one write a region holds: it fails unless every word
// in b (which starts at offset) comes from the same write and sits at its
// own offset.
func writeOf(b []byte, offset int64) (writer byte, seq uint32, err error) {
	for i := 0; i < len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		wr, sq := byte(w>>56), uint32(w>>32)&0xffffff
		if i == 0 {
			writer, seq = wr, sq
		}
		if wr != writer || sq != seq || w != stamp(writer, seq, offset+int64(i)) {
			return 0, 0, fmt.Errorf("offset %d holds %#x, the region starts with write %c%d", offset+int64(i), w, writer, seq)
		}
	}
	return writer, seq, nil
}

// TestWriteOfFindsMixes: the region check TestLastWriterWinsOverlapping
// relies on tells one whole write from two spliced or shifted ones.
func TestWriteOfFindsMixes(t *testing.T) {
	t.Parallel()
	a := stampedWrite('A', 7, 4096, 4096)
	if w, seq, err := writeOf(a, 4096); err != nil || w != 'A' || seq != 7 {
		t.Fatalf("a whole write: %c%d %v", w, seq, err)
	}
	spliced := append(append([]byte{}, a[:2048]...), stampedWrite('B', 7, 4096+2048, 2048)...)
	older := append(append([]byte{}, a[:2048]...), stampedWrite('A', 6, 4096+2048, 2048)...)
	for name, b := range map[string][]byte{"two writers": spliced, "two writes of one writer": older} {
		if _, _, err := writeOf(b, 4096); err == nil {
			t.Errorf("%s: not detected", name)
		}
	}
	if _, _, err := writeOf(a, 4096+8); err == nil {
		t.Error("a write read back 8 bytes off: not detected")
	}
}

// TestLastWriterWinsOverlapping: two writers race Put Ranges that overlap
// by half, A on [0, 2n) and B on [n, 3n), while a reader reads the whole
// file again and again. Put Range is atomic and last-writer-wins, so every
// read is one serial order of whole writes: A's own half holds A's latest
// write, B's own half B's latest, and the shared middle the whole of one of
// those two writes — never words of two writes, never an older write than
// one this reader already saw. At the end both halves hold each writer's
// last write and the middle one of them.
func TestLastWriterWinsOverlapping(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	const n = 512 << 10 // each write is 2n = 1 MiB, several storage chunks
	rounds := uint32(20)
	if testing.Short() {
		rounds = 5
	}
	fc := f.share(t, "lwwoverlap").NewRootDirectoryClient().NewFileClient("f")
	createFile(t, fc, 3*n)
	offsets := map[byte]int64{'A': 0, 'B': n}
	write := func(writer byte, seq uint32) error {
		off := offsets[writer]
		_, err := fc.UploadRange(ctx, off, streaming.NopCloser(bytes.NewReader(stampedWrite(writer, seq, off, 2*n))), nil)
		return err
	}
	// Sequence 0 of each lands first, so every read below sees both.
	for _, w := range []byte("AB") {
		if err := write(w, 0); err != nil {
			t.Fatal(err)
		}
	}
	// check reads the file and returns the sequence numbers in A's and B's
	// own halves, failing on any read that no serial order explains.
	check := func() (a, b uint32, err error) {
		// Not download(): this runs on the reader's goroutine too, where
		// t.Fatal may not be called.
		resp, err := fc.DownloadStream(ctx, nil)
		if err != nil {
			return 0, 0, err
		}
		got, err := io.ReadAll(resp.Body)
		if err := errors.Join(err, resp.Body.Close()); err != nil {
			return 0, 0, err
		}
		if len(got) != 3*n {
			return 0, 0, fmt.Errorf("read %d bytes, want %d", len(got), 3*n)
		}
		wa, a, err := writeOf(got[:n], 0)
		switch {
		case err != nil:
			return 0, 0, fmt.Errorf("A's half: %w", err)
		case wa != 'A':
			return 0, 0, fmt.Errorf("A's half holds a write of %c", wa)
		}
		wb, b, err := writeOf(got[2*n:], 2*n)
		switch {
		case err != nil:
			return 0, 0, fmt.Errorf("B's half: %w", err)
		case wb != 'B':
			return 0, 0, fmt.Errorf("B's half holds a write of %c", wb)
		}
		wm, m, err := writeOf(got[n:2*n], n)
		switch {
		case err != nil:
			return 0, 0, fmt.Errorf("the shared middle mixes writes: %w", err)
		case wm == 'A' && m != a, wm == 'B' && m != b:
			return 0, 0, fmt.Errorf("the middle holds %c%d, but A's half holds A%d and B's half B%d: part of one Put Range is missing", wm, m, a, b)
		}
		return a, b, nil
	}

	done := make(chan struct{})
	var readers sync.WaitGroup
	reads := 0
	readers.Go(func() {
		var lastA, lastB uint32
		for {
			select {
			case <-done:
				return
			default:
			}
			a, b, err := check()
			if err != nil {
				t.Errorf("read %d: %v", reads, err)
				return
			}
			if a < lastA || b < lastB {
				t.Errorf("read %d went back in time: A%d B%d after A%d B%d", reads, a, b, lastA, lastB)
				return
			}
			lastA, lastB = a, b
			reads++
		}
	})
	var writers sync.WaitGroup
	for _, w := range []byte("AB") {
		writers.Go(func() {
			for seq := uint32(1); seq <= rounds; seq++ {
				if err := write(w, seq); err != nil {
					t.Errorf("writer %c, write %d: %v", w, seq, err)
					return
				}
			}
		})
	}
	writers.Wait()
	close(done)
	readers.Wait()
	a, b, err := check()
	if err != nil {
		t.Fatalf("final content: %v", err)
	}
	if a != rounds || b != rounds {
		t.Fatalf("final content holds A%d and B%d, want each writer's last write (%d)", a, b, rounds)
	}
	t.Logf("%d concurrent reads, each one serial order of whole writes", reads)
}

// ifMatchKey carries an ETag in a request's context for ifMatchFromContext.
type ifMatchKey struct{}

// ifMatchFromContext is a per-call policy that sends If-Match with the
// ETag the call's context carries: azfile has no option for it.
type ifMatchFromContext struct{}

func (ifMatchFromContext) Do(req *policy.Request) (*http.Response, error) {
	if etag, ok := req.Raw().Context().Value(ifMatchKey{}).(azcore.ETag); ok {
		req.Raw().Header.Set("If-Match", string(etag))
	}
	return req.Next()
}

// TestIfMatchCounterLosesNoUpdate: goroutines increment a counter kept in
// a file by read, then Put Range with If-Match on the ETag read, retrying
// on 412. No increment is lost: the counter ends at workers×increments,
// and every value from 1 to that was written by exactly one acknowledged
// write.
func TestIfMatchCounterLosesNoUpdate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	const width = 16 // the counter, space-padded decimal
	workers, increments := 6, 20
	if testing.Short() {
		workers, increments = 4, 10
	}
	f.share(t, "counter")
	fc := f.fileWith(t, "counter", "n", ifMatchFromContext{})
	createFile(t, fc, width)
	if _, err := fc.UploadRange(ctx, 0, streaming.NopCloser(strings.NewReader(fmt.Sprintf("%-*d", width, 0))), nil); err != nil {
		t.Fatal(err)
	}
	read := func() (int, azcore.ETag, error) {
		resp, err := fc.DownloadStream(ctx, nil)
		if err != nil {
			return 0, "", err
		}
		defer func() { _ = resp.Body.Close() }() // read in full below
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return 0, "", err
		}
		v, err := strconv.Atoi(strings.TrimSpace(string(body)))
		if err != nil {
			return 0, "", fmt.Errorf("counter %q: %w", body, err)
		}
		return v, *resp.ETag, nil
	}

	var mu sync.Mutex
	written := map[int]int{} // value -> acknowledged writes of it
	conflicts := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range increments {
				for {
					v, etag, err := read()
					if err != nil {
						t.Errorf("read: %v", err)
						return
					}
					body := fmt.Sprintf("%-*d", width, v+1)
					_, err = fc.UploadRange(context.WithValue(ctx, ifMatchKey{}, etag), 0, streaming.NopCloser(strings.NewReader(body)), nil)
					if err != nil {
						var re *azcore.ResponseError
						if errors.As(err, &re) && re.StatusCode == http.StatusPreconditionFailed && re.ErrorCode == "ConditionNotMet" {
							mu.Lock()
							conflicts++
							mu.Unlock()
							continue
						}
						t.Errorf("write %d: %v", v+1, err)
						return
					}
					mu.Lock()
					written[v+1]++
					mu.Unlock()
					break
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	want := workers * increments
	got, _, err := read()
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("counter %d after %d acknowledged increments", got, want)
	}
	for v := 1; v <= want; v++ {
		if written[v] != 1 {
			t.Fatalf("value %d was written by %d acknowledged writes, want 1", v, written[v])
		}
	}
	t.Logf("%d increments, %d If-Match conflicts retried", want, conflicts)
}
