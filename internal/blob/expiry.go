package blob

import "github.com/cerulean-db/cerulean/internal/azerr"

// setBlobExpiry serves Set Blob Expiry. Azure offers it only on accounts
// with a hierarchical namespace; cerulean's accounts are flat (Get Account
// Information says x-ms-is-hns-enabled: false), so it answers as Azure
// answers a flat account, and no blob ever carries an expiry time.
func (h *handler) setBlobExpiry(q *request) error {
	return azerr.ErrHierarchicalNamespaceNotEnabled
}
