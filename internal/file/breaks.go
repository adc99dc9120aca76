package file

import (
	"context"
	"sync/atomic"
)

// CachingBreaker is what a FileREST operation tells before it reads or
// changes a file an SMB client may cache (an oplock or a lease): the SMB
// server breaks that caching and waits for the holders to acknowledge,
// up to its own bound or ctx, as Azure Files makes a REST write break an
// SMB lease. It reports nothing: once it returns, the operation runs and
// the file's open handles decide as before (a holder that kept its
// handle open without sharing still makes the operation a sharing
// violation).
//
// BreakCaching may be called concurrently; write is false for a read
// (Get File), which only ends write caching.
type CachingBreaker interface {
	BreakCaching(ctx context.Context, ref Ref, write bool)
}

type breakerBox struct{ b CachingBreaker }

// UseCachingBreaker registers the SMB server that caches this service's
// files; nil unregisters it.
func (s *Service) UseCachingBreaker(b CachingBreaker) {
	s.breaker.Store(&breakerBox{b})
}

// breakCaching tells the registered breaker, if any, that ref is about to
// be read or changed over FileREST.
func (s *Service) breakCaching(ctx context.Context, ref Ref, write bool) {
	if box := s.breaker.Load(); box != nil && box.b != nil {
		box.b.BreakCaching(ctx, ref, write)
	}
}

// breakerSlot is the Service field UseCachingBreaker sets.
type breakerSlot = atomic.Pointer[breakerBox]
