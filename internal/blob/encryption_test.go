package blob

import (
	"bytes"
	"errors"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// The domain rules of customer-provided keys and scopes, without HTTP: a
// key's hash gates every operation that takes keys, and only those; a
// container's default scope fills in for writes that name none and, when
// overrides are denied, refuses others.
func TestEncryptionRules(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	key := &Encryption{KeySHA256: bytes.Repeat([]byte{7}, 32)}
	other := &Encryption{KeySHA256: bytes.Repeat([]byte{8}, 32)}
	none := &Encryption{}
	isCode := func(err error, code string) bool {
		var e *azerr.Error
		return errors.As(err, &e) && e.Code == code
	}

	if _, err := s.PutBlob(ctx, Ref{Account: testAcct, Container: "c", Name: "k"}, contentOf([]byte("abc")), PutBlobOptions{Conditions: Preconditions{Encryption: key}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		enc  *Encryption
		code string
	}{
		{"no key", none, "BlobUsesCustomerSpecifiedEncryption"},
		{"other key", other, "BlobUsesCustomerSpecifiedEncryption"},
		{"the key", key, ""},
		{"operation without keys", nil, ""},
	} {
		_, err := s.GetBlobProperties(ctx, Ref{Account: testAcct, Container: "c", Name: "k"}, Preconditions{Encryption: tc.enc})
		if tc.code == "" && err != nil || tc.code != "" && !isCode(err, tc.code) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.code)
		}
	}
	// Overwriting needs no key and drops it.
	if _, err := s.PutBlob(ctx, Ref{Account: testAcct, Container: "c", Name: "k"}, contentOf([]byte("x")), PutBlobOptions{Conditions: Preconditions{Encryption: none}}); err != nil {
		t.Fatalf("overwrite without the key: %v", err)
	}
	if b, err := s.GetBlobProperties(ctx, Ref{Account: testAcct, Container: "c", Name: "k"}, Preconditions{Encryption: none}); err != nil || b.KeySHA256 != nil {
		t.Fatalf("after overwrite: %v, key hash %x", err, b.KeySHA256)
	}

	if _, err := s.CreateContainerWithEncryption(ctx, ContainerRef{Account: testAcct, Container: "deny"}, CreateContainerOptions{}, ContainerEncryption{DefaultScope: "tenant", DenyOverride: true}); err != nil {
		t.Fatal(err)
	}
	w, err := s.PutBlob(ctx, Ref{Account: testAcct, Container: "deny", Name: "d"}, contentOf(nil), PutBlobOptions{Conditions: Preconditions{Encryption: none}})
	if err != nil || w.Blob.EncryptionScope != "tenant" {
		t.Fatalf("default scope: %v, scope %q", err, w.Blob.EncryptionScope)
	}
	_, err = s.PutBlob(ctx, Ref{Account: testAcct, Container: "deny", Name: "e"}, contentOf(nil), PutBlobOptions{Conditions: Preconditions{Encryption: &Encryption{Scope: "elsewhere"}}})
	if !isCode(err, "RequestForbiddenByContainerEncryptionPolicy") {
		t.Fatalf("override denied: got %v", err)
	}
	_, err = s.CreateEmpty(ctx, Ref{Account: testAcct, Container: "deny", Name: "a"}, CreateEmptyOptions{Type: appendBlob, Conditions: Preconditions{Encryption: &Encryption{Scope: "tenant"}}})
	if err != nil {
		t.Fatalf("the default scope named: %v", err)
	}
}

// A blob written with an encryption scope: its metadata is written only
// by a request naming the scope, or getting it as its container's
// default (Azure's answers in go-azblob-TestGetSetBlobMetadataWithCPKScope
// and go-azblob-TestBlobSnapshotWithCPKScope); it reads without one; a
// customer-provided key for it is refused
// (go-azblob-TestPutBlockAndPutBlockListWithCPKByScope).
func TestEncryptionScopeRules(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	isCode := func(err error, code string) bool {
		var e *azerr.Error
		return errors.As(err, &e) && e.Code == code
	}
	scoped := &Encryption{Scope: "tenant"}
	none := &Encryption{}
	key := &Encryption{KeySHA256: bytes.Repeat([]byte{7}, 32)}
	if _, err := s.CreateContainerWithEncryption(ctx, ContainerRef{Account: testAcct, Container: "dflt"}, CreateContainerOptions{}, ContainerEncryption{DefaultScope: "tenant"}); err != nil {
		t.Fatal(err)
	}
	// "c" has the account's scope as its default; "dflt" has tenant.
	for _, ref := range []Ref{{Account: testAcct, Container: "c", Name: "named"}, {Account: testAcct, Container: "dflt", Name: "named"}, {Account: testAcct, Container: "dflt", Name: "inherited"}} {
		enc := scoped
		if ref.Name == "inherited" {
			enc = none
		}
		w, err := s.PutBlob(ctx, ref, contentOf([]byte("abc")), PutBlobOptions{Conditions: Preconditions{Encryption: enc}})
		if err != nil || w.Blob.EncryptionScope != "tenant" {
			t.Fatalf("%s/%s: %v, scope %q", ref.Container, ref.Name, err, w.Blob.EncryptionScope)
		}
	}
	for _, tc := range []struct {
		container string
		enc       *Encryption
		code      string // of Set Blob Metadata and Snapshot Blob
	}{
		{"c", none, "BlobUsesCustomerSpecifiedEncryption"},
		{"c", scoped, ""},
		{"c", key, "BlobCustomerSpecifiedEncryptionMismatch"},
		{"c", nil, ""},
		// The container's default is the blob's scope: a request naming
		// none gets it.
		{"dflt", none, ""},
		{"dflt", scoped, ""},
	} {
		for _, name := range []string{"named", "inherited"} {
			if tc.container == "c" && name == "inherited" {
				continue
			}
			ref := Ref{Account: testAcct, Container: tc.container, Name: name}
			pre := Preconditions{Encryption: tc.enc}
			_, errMeta := s.SetBlobMetadata(ctx, ref, nil, pre)
			_, _, errSnap := s.CreateSnapshot(ctx, ref, nil, pre)
			for op, err := range map[string]error{"Set Blob Metadata": errMeta, "Snapshot Blob": errSnap} {
				if tc.code == "" && err != nil || tc.code != "" && !isCode(err, tc.code) {
					t.Errorf("%s of %s/%s with %+v: got %v, want %q", op, tc.container, name, tc.enc, err, tc.code)
				}
			}
		}
	}
	// Reads need no scope, and refuse a key.
	ref := Ref{Account: testAcct, Container: "c", Name: "named"}
	if _, err := s.GetBlobProperties(ctx, ref, Preconditions{Encryption: none}); err != nil {
		t.Errorf("read without the scope: %v", err)
	}
	if _, err := s.GetBlobProperties(ctx, ref, Preconditions{Encryption: key}); !isCode(err, "BlobCustomerSpecifiedEncryptionMismatch") {
		t.Errorf("read with a key: got %v, want BlobCustomerSpecifiedEncryptionMismatch", err)
	}
}
