package file

import (
	"context"
	"net/http"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

func (h *handler) getShareACL(q *request) error {
	sh, err := h.svc.GetShare(q.ctx(), q.shareRef(), q.r.Header.Get("X-Ms-Lease-Id"))
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
	sh, err := h.svc.SetShareACL(q.ctx(), q.shareRef(), acl, q.r.Header.Get("X-Ms-Lease-Id"))
	if err != nil {
		return err
	}
	writeShare(q.w.Header(), sh)
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

// sharesOf looks live shares up by name, as a service SAS's container.
func sharesOf(svc *Service) func(ctx context.Context, acct, name string) (*Share, error) {
	return func(ctx context.Context, acct, name string) (*Share, error) {
		return svc.GetShare(ctx, ShareRef{Account: acct, Share: name}, "")
	}
}
