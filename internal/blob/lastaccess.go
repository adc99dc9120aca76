package blob

import (
	"context"
	"net/http"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// accessResolution is how often a blob's reads move its last access time:
// Azure's documentation of last access time tracking says only the first
// read in 24 hours updates it, and that a blob written between reads
// shows the later of the two.
const accessResolution = 24 * time.Hour

// LastAccess is when b was last read or written, and whether the account
// tracks it (an account setting in Azure, a flag here). Azure reports it
// as x-ms-last-access-time and LastAccessTime.
func (s *Service) LastAccess(b *Blob) (time.Time, bool) {
	if !s.dp.lastAccess || b == nil {
		return time.Time{}, false
	}
	if b.Accessed.After(b.Modified) {
		return b.Accessed, true
	}
	return b.Modified, true
}

// writeLastAccess sets x-ms-last-access-time when the account tracks it.
func (s *Service) writeLastAccess(hdr http.Header, b *Blob) {
	if t, ok := s.LastAccess(b); ok {
		hdr.Set("X-Ms-Last-Access-Time", azhttp.HTTPTime(t))
	}
}

// noteRead counts a Get Blob of read, the record at ref, as an access:
// the first in accessResolution is kept (in a transaction of its own
// after the read, so the read never waits on a write), later ones are
// not. It changes neither the ETag nor Last-Modified. A blob changed or
// deleted since is left as it is.
func (s *Service) noteRead(ctx context.Context, ref Ref, read *Blob) {
	now := s.clock()
	if !s.dp.lastAccess || read.accessCounted(now) {
		return
	}
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		b, err := findBlob(tx, ref.Account, ref.Container, ref.Name, ref.Snapshot)
		if err != nil || b.Version != read.Version || b.point != read.point {
			return nil
		}
		if b.accessCounted(now) {
			return nil
		}
		b.Accessed = now
		return record.Store(tx, tierRecordKey(ref, b), b)
	})
	if err != nil {
		s.log.DebugContext(ctx, "last access time not kept", "err", err, "blob", ref.Name)
	}
}

// accessCounted reports whether a read at now falls within the day of
// the last one that counted, so it does not count.
func (b *Blob) accessCounted(now time.Time) bool {
	return !b.Accessed.IsZero() && now.Sub(b.Accessed) < accessResolution
}
