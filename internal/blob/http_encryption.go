package blob

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
)

// requestEncryption reads the customer-provided key headers of an
// operation that takes them and, for a write, the encryption scope it
// names (x-ms-encryption-scope, or the ses of its SAS). Keys are accepted
// over plain HTTP: Azure requires HTTPS for them, but the emulator's
// default endpoints are HTTP, and the SDKs send keys to them unchanged.
func requestEncryption(q *request, write bool) (*Encryption, error) {
	h := q.r.Header
	e := &Encryption{}
	key, sum, alg := h.Get("X-Ms-Encryption-Key"), h.Get("X-Ms-Encryption-Key-Sha256"), h.Get("X-Ms-Encryption-Algorithm")
	if key != "" || sum != "" || alg != "" {
		// Azure: any of the three on a write needs all of them; a read may
		// leave out the algorithm.
		switch {
		case key == "":
			return nil, azerr.MissingRequiredHeader("x-ms-encryption-key")
		case sum == "":
			return nil, azerr.MissingRequiredHeader("x-ms-encryption-key-sha256")
		case alg == "" && write:
			return nil, azerr.MissingRequiredHeader("x-ms-encryption-algorithm")
		case alg != "" && alg != "AES256":
			return nil, azerr.InvalidHeaderValue("x-ms-encryption-algorithm", alg)
		}
		raw, err := base64.StdEncoding.DecodeString(key)
		if err != nil || len(raw) != 32 {
			return nil, azerr.InvalidHeaderValue("x-ms-encryption-key", key).WithMessage("The encryption key must be a Base64-encoded AES-256 key.")
		}
		want := sha256.Sum256(raw)
		got, err := base64.StdEncoding.DecodeString(sum)
		if err != nil || !bytes.Equal(got, want[:]) {
			return nil, azerr.InvalidHeaderValue("x-ms-encryption-key-sha256", sum).WithMessage("The SHA-256 hash of the encryption key does not match x-ms-encryption-key-sha256.")
		}
		e.KeySHA256 = want[:]
	}
	if !write {
		return e, nil
	}
	scope := h.Get("X-Ms-Encryption-Scope")
	if scope != "" && !validScopeName(scope) {
		return nil, azerr.InvalidHeaderValue("x-ms-encryption-scope", scope)
	}
	if ses := sasEncryptionScope(q); ses != "" {
		// A SAS signed for a scope writes only in that scope.
		if scope != "" && scope != ses {
			return nil, azerr.ErrAuthorizationFailure.WithMessage("The encryption scope of the request does not match the encryption scope (ses) of its SAS.")
		}
		scope = ses
	}
	if scope != "" && e.KeySHA256 != nil {
		return nil, azerr.InvalidHeaderValue("x-ms-encryption-scope", scope).WithMessage("An encryption scope may not be combined with a customer-provided key.")
	}
	e.Scope = scope
	return e, nil
}

// sasEncryptionScope is the signed encryption scope (ses) of the SAS that
// authorised q, "" for none. The SAS signature covers ses, so a request
// that got this far carries the value its signer chose.
func sasEncryptionScope(q *request) string {
	if q.access.Kind == azauth.AccessSharedKey || q.access.Kind == azauth.AccessAnonymous {
		return ""
	}
	return q.q.Get("ses")
}

// validScopeName accepts what Azure lets an encryption scope be named: 3 to
// 63 letters, digits and hyphens, and the account's own scope. Scopes are
// created through the management plane in Azure; here any such name is
// taken to exist.
func validScopeName(s string) bool {
	if s == accountEncryptionScope {
		return true
	}
	if len(s) < 3 || len(s) > 63 {
		return false
	}
	for _, c := range s {
		if ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'; !ok {
			return false
		}
	}
	return true
}

// withEncryption is preconditions plus the request's encryption headers,
// for the operations that take a customer-provided key.
func withEncryption(q *request, write bool) (Preconditions, error) {
	pre := preconditions(q.r.Header)
	e, err := requestEncryption(q, write)
	if err != nil {
		return pre, err
	}
	pre.Encryption = e
	return pre, nil
}

// writeEncryption echoes how a blob is encrypted: the hash of its
// customer-provided key and its encryption scope, when it has them.
func writeEncryption(h http.Header, b *Blob) {
	if b.KeySHA256 != nil {
		h.Set("X-Ms-Encryption-Key-Sha256", b64(b.KeySHA256))
	}
	if b.EncryptionScope != "" {
		h.Set("X-Ms-Encryption-Scope", b.EncryptionScope)
	}
}

// containerEncryption reads Create Container's default encryption scope
// headers: Azure takes both or neither.
func containerEncryption(h http.Header) (scope string, deny bool, err error) {
	scope, rawDeny := h.Get("X-Ms-Default-Encryption-Scope"), h.Get("X-Ms-Deny-Encryption-Scope-Override")
	if scope == "" && rawDeny == "" {
		return "", false, nil
	}
	if scope == "" || rawDeny == "" {
		return "", false, azerr.ErrContainerOperationFailure
	}
	if !validScopeName(scope) {
		return "", false, azerr.InvalidHeaderValue("x-ms-default-encryption-scope", scope)
	}
	if deny, err = strconv.ParseBool(rawDeny); err != nil {
		return "", false, azerr.InvalidHeaderValue("x-ms-deny-encryption-scope-override", rawDeny)
	}
	return scope, deny, nil
}

// writeContainerEncryption reports a container's default scope, as Get
// Container Properties does.
func writeContainerEncryption(h http.Header, c *Container) {
	h.Set("X-Ms-Default-Encryption-Scope", c.defaultScope())
	h.Set("X-Ms-Deny-Encryption-Scope-Override", strconv.FormatBool(c.DenyEncryptionScopeOverride))
}

// defaultScope is the container's default encryption scope as Azure
// reports it.
func (c *Container) defaultScope() string {
	return (&containerScopes{DefaultEncryptionScope: c.DefaultEncryptionScope}).defaultScope()
}

// containerScopes is the part of a container's record that every write
// reads: its default encryption scope. Decoding only these two fields
// skips the times, metadata, access policies and lease a write never
// looks at.
type containerScopes struct {
	DefaultEncryptionScope      string `json:",omitempty"`
	DenyEncryptionScopeOverride bool   `json:",omitempty"`
}

func (c *containerScopes) defaultScope() string {
	if c.DefaultEncryptionScope == "" {
		return accountEncryptionScope
	}
	return c.DefaultEncryptionScope
}
