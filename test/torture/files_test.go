package torture_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"

	blobstore "github.com/cerulean-db/cerulean/internal/blob"
	filestore "github.com/cerulean-db/cerulean/internal/file"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/pebble"
)

// Azure Files range writes: each file is cut into regions, and each
// region belongs to one writer, which overwrites or clears ranges inside
// it one Put Range at a time. A writer's ranges never overlap another's,
// so what every region must hold is exact: its content after the writer's
// last acknowledged write, or that with the one write in flight at the
// kill applied whole.
const (
	fileCount          = 3
	fileWritersPerFile = 2
	fileRegions        = 8 // writer w owns the regions r with r%fileWritersPerFile == w
	fileRegionSize     = 192 << 10
	fileSize           = fileRegions * fileRegionSize
	fileShare          = "torture"
)

// rangeWrite is one Put Range (or Clear Range: data all zeros) at off
// within its region.
type rangeWrite struct {
	off  int
	data []byte
}

// fileRegion is what one writer has done to one region.
type fileRegion struct {
	acked   []byte      // content after the last acknowledged write
	pending *rangeWrite // sent, not acknowledged: applied whole or not at all
}

// after returns the region's content with w applied.
func (r *fileRegion) after(w *rangeWrite) []byte {
	b := bytes.Clone(r.acked)
	copy(b[w.off:], w.data)
	return b
}

// fileState is the model of every file's regions.
type fileState struct {
	mu      sync.Mutex
	regions map[string][]*fileRegion // file name -> its regions
	acked   int                      // acknowledged range writes over the run
	// in-flight writes found after a restart, applied and not: counted
	// to show that the kills do land mid-write.
	landed, dropped int
}

func newFileState() *fileState {
	fs := &fileState{regions: map[string][]*fileRegion{}}
	for i := range fileCount {
		rs := make([]*fileRegion, fileRegions)
		for r := range rs {
			rs[r] = &fileRegion{acked: make([]byte, fileRegionSize)}
		}
		fs.regions[fileName(i)] = rs
	}
	return fs
}

func fileName(i int) string { return fmt.Sprintf("file-%d", i) }

func fileClient(svc *service.Client, name string) *file.Client {
	return svc.NewShareClient(fileShare).NewRootDirectoryClient().NewFileClient(name)
}

// setupFiles creates the share and its files, all zeros.
func setupFiles(t *testing.T, svc *service.Client) {
	t.Helper()
	ctx := context.Background()
	if _, err := svc.CreateShare(ctx, fileShare, nil); err != nil {
		t.Fatal(err)
	}
	for i := range fileCount {
		if _, err := fileClient(svc, fileName(i)).Create(ctx, fileSize, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// startFileWriters starts every file's writers on wg.
func startFileWriters(ctx context.Context, wg *sync.WaitGroup, svc *service.Client, st *state, seed uint64, cycle int) {
	for i := range fileCount {
		for w := range fileWritersPerFile {
			rng := rand.New(rand.NewPCG(seed, uint64(cycle*100+50+i*fileWritersPerFile+w)))
			wg.Go(func() { rangeWriter(ctx, fileClient(svc, fileName(i)), st, fileName(i), w, rng) })
		}
	}
}

// rangeWriter writes random ranges, or clears them, inside its own
// regions of one file until the server is gone.
func rangeWriter(ctx context.Context, fc *file.Client, st *state, name string, writer int, rng *rand.Rand) {
	fs := st.files
	for ctx.Err() == nil {
		idx := writer + fileWritersPerFile*rng.IntN(fileRegions/fileWritersPerFile)
		n := 1 + rng.IntN(fileRegionSize)
		if rng.IntN(4) == 0 {
			n = fileRegionSize // a whole region now and then
		}
		w := &rangeWrite{off: rng.IntN(fileRegionSize - n + 1), data: make([]byte, n)}
		clearing := rng.IntN(8) == 0
		if !clearing {
			fillRandom(rng, w.data)
		}
		fs.mu.Lock()
		region := fs.regions[name][idx]
		region.pending = w
		fs.mu.Unlock()
		offset := int64(idx*fileRegionSize + w.off)
		var err error
		if clearing {
			_, err = fc.ClearRange(ctx, file.HTTPRange{Offset: offset, Count: int64(n)}, nil)
		} else {
			_, err = fc.UploadRange(ctx, offset, streaming.NopCloser(bytes.NewReader(w.data)), nil)
		}
		if err != nil {
			// A killed server drops the connection; an answer that is an
			// error is a refusal no kill explains.
			var re *azcore.ResponseError
			if errors.As(err, &re) {
				st.mu.Lock()
				st.failures = append(st.failures, fmt.Sprintf("%s: range write at %d+%d refused: %v", name, offset, n, err))
				st.mu.Unlock()
			}
			return // unacknowledged: it stays pending
		}
		fs.mu.Lock()
		region.acked, region.pending = region.after(w), nil
		fs.acked++
		fs.mu.Unlock()
	}
}

func fillRandom(rng *rand.Rand, b []byte) {
	for i := 0; i < len(b); i += 8 {
		v := rng.Uint64()
		for j := 0; j < 8 && i+j < len(b); j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
}

// verifyFiles reads every file back after a restart: each region holds
// its last acknowledged content, or that with the write in flight at the
// kill applied whole. What it holds becomes the model.
func verifyFiles(t *testing.T, svc *service.Client, fs *fileState, cycle int) {
	t.Helper()
	ctx := context.Background()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for name, regions := range fs.regions {
		resp, err := fileClient(svc, name).DownloadStream(ctx, nil)
		if err != nil {
			t.Fatalf("after kill %d: read %s: %v", cycle, name, err)
		}
		got, err := io.ReadAll(resp.Body)
		if err := errors.Join(err, resp.Body.Close()); err != nil {
			t.Fatalf("after kill %d: read %s: %v", cycle, name, err)
		}
		if len(got) != fileSize {
			t.Fatalf("after kill %d: %s holds %d bytes, want %d", cycle, name, len(got), fileSize)
		}
		for idx, r := range regions {
			have := got[idx*fileRegionSize : (idx+1)*fileRegionSize]
			switch {
			case bytes.Equal(have, r.acked):
				if r.pending != nil {
					fs.dropped++
				}
			case r.pending != nil && bytes.Equal(have, r.after(r.pending)):
				r.acked = r.after(r.pending)
				fs.landed++
			default:
				t.Fatalf("after kill %d: %s region %d (bytes %d+%d) holds neither its last acknowledged content nor that with the write in flight (%s)",
					cycle, name, idx, idx*fileRegionSize, fileRegionSize, describeDiff(have, r))
			}
			r.pending = nil
		}
	}
}

// describeDiff says where a region first differs from what was expected.
func describeDiff(have []byte, r *fileRegion) string {
	first := func(want []byte) int {
		for i := range have {
			if have[i] != want[i] {
				return i
			}
		}
		return -1
	}
	s := fmt.Sprintf("first difference from the acknowledged content at +%d", first(r.acked))
	if r.pending != nil {
		s += fmt.Sprintf(", from it with the write at +%d (%d bytes) at +%d", r.pending.off, len(r.pending.data), first(r.after(r.pending)))
	}
	return s
}

// checkStore opens the killed server's data directory and checks the Blob
// and Files layouts on it, as the next start will find them.
func checkStore(t *testing.T, dir string, cycle int) {
	t.Helper()
	store, err := pebble.Open(dir, pebble.Options{})
	if err != nil {
		t.Fatalf("after kill %d: open the store: %v", cycle, err)
	}
	checkInvariants(t, store, cycle)
}

// checkInvariants verifies the Blob and Files layouts of store, then
// closes it.
func checkInvariants(t *testing.T, store kv.Store, cycle int) {
	t.Helper()
	err := errors.Join(blobstore.CheckInvariants(context.Background(), store),
		filestore.CheckInvariants(context.Background(), store))
	if cerr := store.Close(); cerr != nil {
		t.Fatalf("after kill %d: close the store: %v", cycle, cerr)
	}
	if err != nil {
		t.Fatalf("after kill %d: %v", cycle, err)
	}
}
