package blob

import (
	"bytes"
	"context"
	"net/http"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// Encryption is what a request says about a blob's encryption: the
// customer-provided key it carries (only the key's SHA-256 is ever kept)
// and the encryption scope it names. This server does not encrypt data
// at rest; it keeps the key's hash and the scope's name so that every
// request is answered as Azure answers it: a blob written with a key
// reads only with the same key, and echoes its hash and scope.
type Encryption struct {
	// KeySHA256 is the SHA-256 of the customer-provided key, nil when the
	// request carries none.
	KeySHA256 []byte
	// Scope is the encryption scope the request names (x-ms-encryption-
	// scope, or the ses of the SAS that authorised it), "" for none.
	Scope string
}

// The stored default encryption scope of a container created without one.
const accountEncryptionScope = "$account-encryption-key"

var (
	// errCPKMismatch: Azure documents that every request for a blob
	// written with a key must include the same key, failing with 409.
	errCPKMismatch = azerr.ErrBlobUsesCustomerSpecifiedEncryption.WithMessage(
		"The blob is encrypted with customer specified encryption, but the key provided in the request is not the one it was encrypted with.")
	// errScopeOverride answers a write naming a scope other than the
	// default of a container that denies overriding it.
	// errScopeOverride is Azure's answer (Java's recording
	// CPKNTests.containerDenyEncryptionScopeOverride).
	errScopeOverride = &azerr.Error{Status: http.StatusForbidden, Code: "RequestForbiddenByContainerEncryptionPolicy",
		Message: "The request is forbidden by the container encryption policy."}
)

// check verifies a request that takes a customer-provided key against
// the blob it reads or changes: a blob written with a key needs that key,
// and a blob written with an encryption scope takes none (Azure answers
// Get Blob with a key for such a blob with 409
// BlobCustomerSpecifiedEncryptionMismatch:
// go-azblob-TestPutBlockAndPutBlockListWithCPKByScope). (A key for a blob
// written with neither is not refused: Azure documents no error for it,
// and it decrypts nothing.) A request replacing the blob (kind Create)
// may bring any key, or none. A nil Encryption is an operation that does
// not take keys: it is never refused.
func (e *Encryption) check(kind conditions.Kind, b *Blob) error {
	if e == nil || b == nil || kind == conditions.Create {
		return nil
	}
	switch {
	case b.KeySHA256 != nil && e.KeySHA256 == nil:
		return azerr.ErrBlobUsesCustomerSpecifiedEncryption
	case b.KeySHA256 != nil && !bytes.Equal(b.KeySHA256, e.KeySHA256):
		return errCPKMismatch
	case b.EncryptionScope != "" && e.KeySHA256 != nil:
		return azerr.ErrBlobCustomerSpecifiedEncryptionMismatch
	}
	return nil
}

// checkMetadataScope verifies a request that writes a blob's metadata
// without replacing its content (Set Blob Metadata, Snapshot Blob) against
// a blob written with an encryption scope: the request must name it,
// unless the container's default, which a request naming none gets, is
// it. Azure answers both operations without the scope with 409
// BlobUsesCustomerSpecifiedEncryption, and takes them naming it
// (go-azblob-TestGetSetBlobMetadataWithCPKScope,
// go-azblob-TestBlobSnapshotWithCPKScope); reads need no scope. A nil
// Encryption, or one with a key (check answers it), is not refused here.
func (e *Encryption) checkMetadataScope(r kv.Reader, acct, container string, b *Blob) error {
	if e == nil || b == nil || b.EncryptionScope == "" || e.Scope != "" || e.KeySHA256 != nil {
		return nil
	}
	c, err := record.RequireShared[containerScopes](r, containerKey(acct, container), azerr.ErrContainerNotFound)
	if err != nil {
		return err
	}
	if c.defaultScope() == b.EncryptionScope {
		return nil
	}
	return azerr.ErrBlobUsesCustomerSpecifiedEncryption
}

// ContainerEncryption is a container's default encryption scope, and
// whether blobs may name another.
type ContainerEncryption struct {
	DefaultScope string // "" for the account's
	DenyOverride bool
}

// CreateContainerWithEncryption is CreateContainer for a container with
// a default encryption scope.
func (s *Service) CreateContainerWithEncryption(ctx context.Context, ref ContainerRef, o CreateContainerOptions, enc ContainerEncryption) (*Container, error) {
	acct, name, meta, access := ref.Account, ref.Container, o.Metadata, o.Access
	return kv.Returning(ctx, s.Update, func(t *Tx) (*Container, error) { return t.createContainer(acct, name, meta, access, enc) })
}

// apply gives a blob record written by the request its encryption: the
// key's hash and the scope named, or else the container's default.
func (e *Encryption) apply(t *Tx, acct, container string, rec *Blob) error {
	if e == nil {
		return nil
	}
	scope, err := t.writeScope(acct, container, e.Scope)
	if err != nil {
		return err
	}
	rec.KeySHA256, rec.EncryptionScope = e.KeySHA256, scope
	return nil
}

// writeScope is the scope a write naming scope gets in container: the
// container's default when it names none, refused when the container
// denies overriding its default with another.
func (t *Tx) writeScope(acct, container, scope string) (string, error) {
	c, err := record.RequireShared[containerScopes](t.r, containerKey(acct, container), azerr.ErrContainerNotFound)
	if err != nil {
		return "", err
	}
	def := c.defaultScope()
	switch {
	case scope == "" && def != accountEncryptionScope:
		return def, nil
	case scope != "" && c.DenyEncryptionScopeOverride && scope != def:
		return "", errScopeOverride
	}
	return scope, nil
}

// checkEncryption verifies a record's encryption fields (CheckInvariants):
// a key is kept only as its 32-byte SHA-256, a scope has a valid name,
// and the two never come together.
func checkEncryption(c *checker, what string, rec *Blob) {
	if rec.KeySHA256 != nil && len(rec.KeySHA256) != 32 {
		c.Fail("%s: customer-provided key hash of %d bytes", what, len(rec.KeySHA256))
	}
	if rec.EncryptionScope != "" && !validScopeName(rec.EncryptionScope) {
		c.Fail("%s: encryption scope %q", what, rec.EncryptionScope)
	}
	if rec.KeySHA256 != nil && rec.EncryptionScope != "" {
		c.Fail("%s: both a customer-provided key and encryption scope %q", what, rec.EncryptionScope)
	}
}
