package blob

import (
	"sync/atomic"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/extentstore"
)

// maxBodyMemory bounds the upload bytes the service holds in memory at
// once: a body of up to inlineLimit is read whole before its commit, a
// larger one passes through a buffer of extentstore.StageTxnBytes, and
// both are counted here from the moment the request asks for the memory — before a byte
// arrives, so clients announcing large bodies and trickling them in cannot
// pin more than this between them. 512 MiB is 64 concurrent large
// uploads (or 128 concurrent 4 MiB blocks); past it an upload is answered
// 503 ServerBusy, which the SDKs retry with backoff.
const maxBodyMemory = 64 * extentstore.StageTxnBytes

// bodyMemory is the service's account of upload memory in use.
type bodyMemory struct{ inUse atomic.Int64 }

// errUploadsBusy answers an upload past maxBodyMemory.
var errUploadsBusy = azerr.ErrServerBusy.WithMessage("The server is busy receiving other uploads. Please retry your request.")

// acquire reserves n bytes, reporting false (and reserving nothing) when
// that would exceed the limit.
func (m *bodyMemory) acquire(n int64) bool {
	if m.inUse.Add(n) > maxBodyMemory {
		m.inUse.Add(-n)
		return false
	}
	return true
}

func (m *bodyMemory) release(n int64) { m.inUse.Add(-n) }
