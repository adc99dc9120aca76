package file

import (
	"context"
	"errors"
	"net/http"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

func (h *handler) getShareACL(q *request) error {
	sh, err := h.svc.GetShare(q.ctx(), q.shareRef(), q.r.Header.Get("x-ms-lease-id"))
	if err != nil {
		return err
	}
	writeShare(q.w.Header(), sh)
	return azhttp.WriteSignedIdentifiers(q.w, sh.ACL)
}

func (h *handler) setShareACL(q *request) error {
	acl, err := azhttp.ParseSignedIdentifiers(q.r)
	if err != nil {
		return err
	}
	sh, err := h.svc.SetShareACL(q.ctx(), q.shareRef(), acl, q.r.Header.Get("x-ms-lease-id"))
	if err != nil {
		return err
	}
	writeShare(q.w.Header(), sh)
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

// storedPolicy resolves a service SAS's signed identifier from the
// share's stored access policies.
func (h *handler) storedPolicy(ctx context.Context, acct, share, id string) (azhttp.StoredPolicy, bool, error) {
	sh, err := h.svc.GetShare(ctx, ShareRef{Account: acct, Share: share}, "")
	if errors.Is(err, azhttp.ErrShareNotFound) {
		return azhttp.StoredPolicy{}, false, nil
	}
	if err != nil {
		return azhttp.StoredPolicy{}, false, err
	}
	for _, si := range sh.ACL {
		if si.ID == id {
			return si.Policy(), true, nil
		}
	}
	return azhttp.StoredPolicy{}, false, nil
}
