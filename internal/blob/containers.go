package blob

import (
	"context"
	"errors"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// CreateContainer creates a container, or fails with ContainerAlreadyExists.
func (s *Service) CreateContainer(ctx context.Context, ref ContainerRef, o CreateContainerOptions) (*Container, error) {
	acct, name := ref.Account, ref.Container
	if err := s.finishMoves(ctx, acct, name); err != nil {
		return nil, err
	}
	return kv.Returning(ctx, s.Update, func(t *Tx) (*Container, error) { return t.CreateContainer(ref, o) })
}

// CreateContainer creates a container, or fails with ContainerAlreadyExists.
func (t *Tx) CreateContainer(ref ContainerRef, o CreateContainerOptions) (*Container, error) {
	acct, name, meta, access := ref.Account, ref.Container, o.Metadata, o.Access
	return t.createContainer(acct, name, meta, access, ContainerEncryption{})
}

func (t *Tx) createContainer(acct, name string, meta azhttp.Metadata, access string, enc ContainerEncryption) (*Container, error) {
	if _, err := loadContainer(t.r, acct, name); err == nil {
		return nil, azerr.ErrContainerAlreadyExists
	} else if !errors.Is(err, azerr.ErrContainerNotFound) {
		return nil, err
	}
	if err := checkNotMoving(t.r, acct, name); err != nil {
		return nil, err
	}
	c := &Container{Version: t.tx.Version(), Created: t.now, Modified: t.now, Metadata: meta, PublicAccess: access,
		DefaultEncryptionScope: enc.DefaultScope, DenyEncryptionScopeOverride: enc.DenyOverride}
	if err := record.Store(t.tx, containerKey(acct, name), c); err != nil {
		return nil, err
	}
	return c, nil
}

// GetContainer returns a container's record.
func (s *Service) GetContainer(ctx context.Context, ref ContainerRef) (*Container, error) {
	return kv.Returning(ctx, s.view, func(t *Tx) (*Container, error) { return t.GetContainer(ref) })
}

// GetContainer returns a container's record, or ErrContainerNotFound.
func (t *Tx) GetContainer(ref ContainerRef) (*Container, error) {
	acct, name := ref.Account, ref.Container
	return loadContainer(t.r, acct, name)
}

// updateContainer applies change to an existing container under pre and
// gives it a new version.
func (s *Service) updateContainer(ctx context.Context, acct, name string, pre Preconditions, change func(*Container)) (*Container, error) {
	var out *Container
	err := s.Update(ctx, func(t *Tx) error {
		c, err := loadContainer(t.r, acct, name)
		if err != nil {
			return err
		}
		if err := t.checkContainer(pre, c, false); err != nil {
			return err
		}
		change(c)
		c.Version, c.Modified = t.tx.Version(), t.now
		out = c
		return record.Store(t.tx, containerKey(acct, name), c)
	})
	return out, err
}

// SetContainerMetadata replaces a container's metadata.
func (s *Service) SetContainerMetadata(ctx context.Context, ref ContainerRef, meta azhttp.Metadata, pre Preconditions) (*Container, error) {
	acct, name := ref.Account, ref.Container
	return s.updateContainer(ctx, acct, name, pre, func(c *Container) { c.Metadata = meta })
}

// SetContainerACL replaces a container's public access level and stored
// access policies.
func (s *Service) SetContainerACL(ctx context.Context, ref ContainerRef, access string, acl []azauth.SignedIdentifier, pre Preconditions) (*Container, error) {
	acct, name := ref.Account, ref.Container
	return s.updateContainer(ctx, acct, name, pre, func(c *Container) {
		c.PublicAccess, c.ACL = access, acl
	})
}

// DeleteContainer removes a container with every blob, block and byte in it.
func (s *Service) DeleteContainer(ctx context.Context, ref ContainerRef, pre Preconditions) error {
	acct, name := ref.Account, ref.Container
	if err := s.Update(ctx, func(t *Tx) error { return t.DeleteContainer(ref, pre) }); err != nil {
		return err
	}
	if s.dp.containerRetention == 0 {
		return nil
	}
	// The container is gone already; moving what it held aside may also
	// be finished later (finishMoves), so its failure is only logged.
	if err := s.finishMoves(ctx, acct, name); err != nil {
		s.log.Warn("moving a deleted container's data aside", "container", name, "err", err)
	}
	return nil
}

// DeleteContainer removes a container with every blob, block and byte in it.
func (t *Tx) DeleteContainer(ref ContainerRef, pre Preconditions) error {
	acct, name := ref.Account, ref.Container
	c, err := loadContainer(t.r, acct, name)
	if err != nil {
		return err
	}
	if err := t.checkContainer(pre, c, true); err != nil {
		return err
	}
	if t.dp.containerRetention > 0 {
		return t.retireContainer(acct, name, c)
	}
	if err := deleteContainerKeys(t.tx, acct, name); err != nil {
		return err
	}
	return t.tx.Delete(containerKey(acct, name))
}

// ContainerItem is one List Containers entry.
type ContainerItem struct {
	Name string
	*Container
	Deleted *DeletedInfo // set for a soft-deleted container
}

// ListContainers returns up to max containers whose names start with prefix,
// from marker on, and the marker of the next page ("" at the end).
func (s *Service) ListContainers(ctx context.Context, acct, prefix, marker string, max int) ([]ContainerItem, string, error) {
	var out []ContainerItem
	next := ""
	err := s.store.View(ctx, func(r kv.Reader) error {
		out = nil
		var err error
		next, err = record.Page(r, containersPrefix(acct), prefix, marker, max, func(name string, c *Container) {
			out = append(out, ContainerItem{Name: name, Container: c})
		})
		return err
	})
	return out, next, err
}

// nameAfter decodes the string element at offset skip of key.
func nameAfter(key []byte, skip int) (string, error) {
	r, err := tuple.NewReader(key, skip)
	if err != nil {
		return "", err
	}
	return r.Str()
}
