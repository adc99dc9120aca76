package cosmos

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// Session consistency. A session token is "<range>:<token>" per partition
// key range, comma-separated; the token is the LSN the client has seen,
// "-1#83" (version -1, global LSN 83) or a bare "83". cerulean's one
// range is "0" and its LSN the commit version. A read carrying a token
// for a version no transaction has committed yet is from a session this
// server cannot serve: Azure answers it 404 with substatus 1002
// (ReadSessionNotAvailable), which the SDKs retry elsewhere.

// sessionLSN is the LSN a session token holds for range "0", and whether
// it holds one.
func sessionLSN(token string) (uint64, bool) {
	for _, part := range strings.Split(token, ",") {
		rng, tok, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok || rng != pkRangeID {
			continue
		}
		if i := strings.IndexByte(tok, '#'); i >= 0 {
			tok = tok[i+1:]
			if j := strings.IndexByte(tok, '#'); j >= 0 {
				tok = tok[:j]
			}
		}
		n, err := strconv.ParseUint(tok, 10, 64)
		if err != nil {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// isItemRead reports whether a request reads items: a GET under docs or
// a query of them.
func isItemRead(r *http.Request, segs []string) bool {
	if len(segs) < 5 || segs[4] != "docs" {
		return false
	}
	return r.Method == http.MethodGet ||
		r.Method == http.MethodPost && strings.EqualFold(r.Header.Get("X-Ms-Documentdb-Isquery"), "true")
}

// checkSession refuses an item read whose session token is ahead of
// every committed version. The process's own last version settles most
// tokens; one beyond it may come from another process over the same
// store, so the store is asked for a version newer than every commit.
func (s *Service) checkSession(ctx context.Context, token string) error {
	n, ok := sessionLSN(token)
	if !ok || n <= s.lastVersion.Load() {
		return nil
	}
	var next uint64
	if err := s.store.Update(ctx, func(tx kv.Txn) error {
		next = tx.Version()
		return nil
	}); err != nil {
		return err
	}
	if n < next {
		s.noteVersion(n)
		return nil
	}
	return readSessionNotAvailable()
}

func readSessionNotAvailable() *Error {
	return newError(http.StatusNotFound, "NotFound", "The read session is not available for the input session token.")
}
