package file

import (
	"context"
	"errors"
	"net/http"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

func (h *handler) getShareACL(q *request) error {
	sh, err := h.svc.GetShare(q.ctx(), q.acct, q.share, q.r.Header.Get("x-ms-lease-id"))
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
	sh, err := h.svc.SetShareACL(q.ctx(), q.acct, q.share, acl, q.r.Header.Get("x-ms-lease-id"))
	if err != nil {
		return err
	}
	writeShare(q.w.Header(), sh)
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

// shareACL is the share's stored access policies, which a share SAS may
// name.
func (h *handler) shareACL(ctx context.Context, acct, share string) ([]azhttp.SignedIdentifier, error) {
	sh, err := h.svc.GetShare(ctx, acct, share, "")
	if errors.Is(err, azhttp.ErrShareNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return sh.ACL, nil
}
