package blob

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// Container soft delete (WithContainerRetention) retires a deleted
// container instead of removing it: its record moves to "Ba acct r
// container" and everything in it stays where it is, unreachable because
// every operation requires the container record. Restore Container moves
// the record back. Creating a new container of the same name ends the
// retired one for good (its data sits under the name), as does
// PurgeExpired once its retention has passed.

// retiredContainer is a soft-deleted container.
type retiredContainer struct {
	Container Container
	// DeletedVersion is the x-ms-deleted-container-version a restore
	// names: the deletion time, in the snapshot ID format.
	DeletedVersion string
	Deleted, Purge time.Time
}

func retiredKey(acct, name string) tuple.Key { return retiredPrefix(acct).Str(name) }

func retiredPrefix(acct string) tuple.Key { return accountKey(acct).Raw("r") }

// retireContainer soft-deletes the container c.
func (t *Tx) retireContainer(acct, name string, c *Container) error {
	c.Lease = lease.Lease{}
	r := retiredContainer{Container: *c, DeletedVersion: fileTimeHex(t.now), Deleted: t.now, Purge: t.now.AddDate(0, 0, t.dp.containerRetention)}
	if err := record.Store(t.tx, retiredKey(acct, name), r); err != nil {
		return err
	}
	return t.tx.Delete(containerKey(acct, name))
}

// endRetired removes a retired container of the name and everything it
// held, if there is one.
func endRetired(tx kv.Txn, acct, name string) error {
	if _, err := tx.Get(retiredKey(acct, name)); errors.Is(err, kv.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	for _, r := range containerRanges(acct, name) {
		if err := tx.DeleteRange(r[0], r[1]); err != nil {
			return err
		}
	}
	return tx.Delete(retiredKey(acct, name))
}

// RestoreContainer brings the soft-deleted container deleted, of the
// given version, back under its name.
func (s *Service) RestoreContainer(ctx context.Context, acct, deleted, version string) (*Container, error) {
	var out *Container
	err := s.Update(ctx, func(t *Tx) error {
		var r retiredContainer
		found, err := record.Load(t.r, retiredKey(acct, deleted), &r)
		if err != nil {
			return err
		}
		if !found || r.DeletedVersion != version || expired(&Blob{Purge: r.Purge}, t.now) {
			return azhttp.ErrContainerNotFound
		}
		if _, err := t.r.Get(containerKey(acct, deleted)); err == nil {
			return azhttp.ErrContainerAlreadyExists
		} else if !errors.Is(err, kv.ErrNotFound) {
			return err
		}
		c := r.Container
		c.Version, c.Modified = t.tx.Version(), t.now
		out = &c
		if err := t.tx.Delete(retiredKey(acct, deleted)); err != nil {
			return err
		}
		return record.Store(t.tx, containerKey(acct, deleted), c)
	})
	return out, err
}

// listRetired returns the retired containers whose names start with
// prefix, from marker on, up to max, skipping expired ones.
func listRetired(r kv.Reader, acct, prefix, marker string, max int, now time.Time) ([]ContainerItem, error) {
	var out []ContainerItem
	_, err := record.Page(r, retiredPrefix(acct), prefix, marker, max, func(name string, rc *retiredContainer) {
		if expired(&Blob{Purge: rc.Purge}, now) {
			return
		}
		c := rc.Container
		out = append(out, ContainerItem{Name: name, Container: &c, Deleted: &DeletedInfo{Version: rc.DeletedVersion, Time: rc.Deleted, Purge: rc.Purge}})
	})
	return out, err
}

// DeletedInfo describes a soft-deleted container in a listing.
type DeletedInfo struct {
	Version     string
	Time, Purge time.Time
}

// ListContainersWithDeleted is List Containers with include=deleted: the
// live and the soft-deleted containers in name order (a live one first
// when both have a name).
func (s *Service) ListContainersWithDeleted(ctx context.Context, acct, prefix, marker string, max int) ([]ContainerItem, string, error) {
	var out []ContainerItem
	next := ""
	err := s.store.View(ctx, func(r kv.Reader) error {
		var live []ContainerItem
		var err error
		_, err = record.Page(r, containersPrefix(acct), prefix, marker, max+1, func(name string, c *Container) {
			live = append(live, ContainerItem{Name: name, Container: c})
		})
		if err != nil {
			return err
		}
		gone, err := listRetired(r, acct, prefix, marker, max+1, s.clock())
		if err != nil {
			return err
		}
		all := append(live, gone...)
		sort.SliceStable(all, func(i, j int) bool { return all[i].Name < all[j].Name })
		out, next = all, ""
		if len(all) > max {
			out, next = all[:max], all[max].Name
		}
		return nil
	})
	return out, next, err
}

// fileTimeHex is a time as Azure spells deleted container versions: its
// Windows FILETIME (100 ns ticks since 1601) in 16 hex digits.
func fileTimeHex(t time.Time) string {
	const epochTicks = 116444736000000000 // 1601-01-01 to 1970-01-01
	return fmt.Sprintf("%016X", t.UnixNano()/100+epochTicks)
}

func (h *handler) restoreContainer(q *request) error {
	name := q.r.Header.Get("x-ms-deleted-container-name")
	if name == "" {
		return azhttp.MissingRequiredHeader("x-ms-deleted-container-name")
	}
	version := q.r.Header.Get("x-ms-deleted-container-version")
	if version == "" {
		return azhttp.MissingRequiredHeader("x-ms-deleted-container-version")
	}
	if name != q.container {
		return azhttp.ErrNotImplemented.WithMessage("Restoring a deleted container under another name is not supported by this server.")
	}
	c, err := h.svc.RestoreContainer(q.ctx(), q.acct, name, version)
	if err != nil {
		return err
	}
	writeContainerHeaders(q.w.Header(), c)
	return azhttp.WriteEmpty(q.w, http.StatusCreated)
}
