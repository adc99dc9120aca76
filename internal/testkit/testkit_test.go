package testkit_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	queuesas "github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/sas"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

func TestNameIsValidEverywhereAndUnique(t *testing.T) {
	// Containers and queues: lower-case letters, digits and single
	// hyphens; tables: alphanumeric starting with a letter; all 3-63.
	valid := regexp.MustCompile(`^[a-z][a-z0-9]{2,62}$`)
	seen := map[string]bool{}
	for _, tag := range []string{"", "a", "lease-flow", "UPPER_case", "9lives", "--", strings.Repeat("long", 30), "héllo wörld"} {
		for range 3 {
			n := testkit.Name(tag)
			if !valid.MatchString(n) {
				t.Errorf("Name(%q) = %q: not a valid container, queue and table name", tag, n)
			}
			if seen[n] {
				t.Errorf("Name(%q) = %q twice", tag, n)
			}
			seen[n] = true
		}
	}
	if n := testkit.Name("lease-flow"); !strings.HasPrefix(n, "leaseflow") {
		t.Errorf("Name(lease-flow) = %q, want the tag's letters first", n)
	}
}

func TestRandBytesDependsOnlyOnSeed(t *testing.T) {
	a, b, c := testkit.RandBytes(7, 4096), testkit.RandBytes(7, 4096), testkit.RandBytes(8, 4096)
	if !bytes.Equal(a, b) {
		t.Error("same seed, different bytes")
	}
	if bytes.Equal(a, c) {
		t.Error("different seeds, same bytes")
	}
	if !bytes.Equal(testkit.RandBytes(7, 100), a[:100]) {
		t.Error("a shorter read is not a prefix of a longer one")
	}
}

func TestCheckErr(t *testing.T) {
	notFound := &azcore.ResponseError{StatusCode: http.StatusNotFound, ErrorCode: "BlobNotFound"}
	wrapped := fmt.Errorf("get: %w", notFound)
	type code string
	for _, tc := range []struct {
		name   string
		err    error
		status int
		code   code
		want   string // substring of the failure, "" for a match
	}{
		{"match", wrapped, 404, "BlobNotFound", ""},
		{"any code", wrapped, 404, "", ""},
		{"other code", wrapped, 404, "ContainerNotFound", `got HTTP 404 "BlobNotFound", want HTTP 404 "ContainerNotFound"`},
		{"other status", wrapped, 409, "", `got HTTP 404 "BlobNotFound", want HTTP 409`},
		{"success", nil, 404, "BlobNotFound", `got success, want HTTP 404 "BlobNotFound"`},
		{"not HTTP", errors.New("dial tcp: refused"), 404, "", "got dial tcp: refused, want HTTP 404"},
	} {
		rec := &testkit.Recorder{}
		ok := testkit.CheckErr(rec, tc.err, tc.status, tc.code, "reading %s", "x")
		switch {
		case tc.want == "" && (!ok || len(rec.Errors()) > 0):
			t.Errorf("%s: reported %v", tc.name, rec.Errors())
		case tc.want != "" && (ok || len(rec.Errors()) != 1 || !strings.Contains(rec.Errors()[0], "reading x: "+tc.want)):
			t.Errorf("%s: ok=%v reported %q, want %q", tc.name, ok, rec.Errors(), tc.want)
		}
	}
	if got := testkit.StatusOf(wrapped); got != http.StatusNotFound {
		t.Errorf("StatusOf = %d", got)
	}
	if got := testkit.Describe(wrapped); got != `HTTP 404 "BlobNotFound"` {
		t.Errorf("Describe = %s", got)
	}
}

func TestClock(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := testkit.NewClock(start)
	if !c.Now().Equal(start) {
		t.Fatalf("Now = %v", c.Now())
	}
	c.Advance(90 * time.Second)
	if got := c.Now().Sub(start); got != 90*time.Second {
		t.Fatalf("after Advance(90s): %v later", got)
	}
}

func TestCheckAfter(t *testing.T) {
	store := memory.Open()
	defer func() { _ = store.Close() }()
	ctx := context.Background()
	if err := store.Update(ctx, func(tx kv.Txn) error {
		for _, k := range []string{"b", "a", "c"} {
			if err := tx.Set([]byte(k), []byte("v")); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	rec := &testkit.Recorder{}
	broken := func(context.Context, kv.Store) error { return errors.New("orphan block") }
	testkit.CheckAfter(rec, store, testkit.KeysAscending, broken)
	if len(rec.Errors()) != 0 {
		t.Fatalf("checks ran before the test ended: %v", rec.Errors())
	}
	rec.RunCleanups()
	if len(rec.Errors()) != 1 || !strings.Contains(rec.Errors()[0], "orphan block") {
		t.Fatalf("reported %q, want only the broken check", rec.Errors())
	}

	closed := memory.Open()
	_ = closed.Close()
	rec = &testkit.Recorder{}
	testkit.CheckAfter(rec, closed, broken)
	rec.RunCleanups()
	if len(rec.Errors()) != 0 || len(rec.Logs()) != 1 {
		t.Fatalf("closed store: errors %q, logs %q; want one log line", rec.Errors(), rec.Logs())
	}
}

func TestGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	testkit.Golden(t, path, []byte("one\ntwo\n"), true)
	testkit.Golden(t, path, []byte("one\ntwo\n"), false)
	rec := &testkit.Recorder{}
	testkit.Golden(rec, path, []byte("one\nthree\n"), false)
	if len(rec.Errors()) != 1 || !strings.Contains(rec.Errors()[0], "line 2") || !strings.Contains(rec.Errors()[0], "got: three") {
		t.Fatalf("mismatch reported as %q", rec.Errors())
	}
	if b, _ := os.ReadFile(path); string(b) != "one\ntwo\n" {
		t.Fatalf("a comparison rewrote the file: %q", b)
	}
}

// TestSigners: each SDK's credential policy signs hand-built requests the
// server accepts, and a signer with the wrong key is refused.
func TestSigners(t *testing.T) {
	env := servertest.Start(t)
	wrongKey := "d3Jvbmcga2V5LCB3cm9uZyBrZXksIHdyb25nIGtleSE="
	for _, tc := range []struct {
		name   string
		signer func(key string) testkit.Signer
		req    testkit.Request
		want   int
	}{
		{"blob", func(key string) testkit.Signer { return testkit.BlobSharedKey(t, env.BlobURL, env.Account, key) },
			testkit.Request{Method: http.MethodPut, URL: env.BlobURL + "signed?restype=container", Header: map[string]string{"x-ms-meta-Owner": "kit"}}, http.StatusCreated},
		{"queue", func(key string) testkit.Signer { return testkit.QueueSharedKey(t, env.QueueURL, env.Account, key) },
			testkit.Request{Method: http.MethodPut, URL: env.QueueURL + "signed"}, http.StatusCreated},
		{"table", func(key string) testkit.Signer {
			return testkit.TableSharedKeyLite(t, strings.TrimSuffix(env.TableURL, "/"), env.Account, key)
		},
			testkit.Request{Method: http.MethodPost, URL: env.TableURL + "Tables", Header: map[string]string{"Content-Type": "application/json", "Accept": "application/json;odata=nometadata"},
				Body: []byte(`{"TableName":"signed"}`)}, http.StatusCreated},
	} {
		if r := tc.signer(wrongKey).Send(t, tc.req); r.StatusCode != http.StatusForbidden {
			t.Errorf("%s with the wrong key: HTTP %d %q, want 403", tc.name, r.StatusCode, r.Code)
		}
		if r := tc.signer(env.Key).Send(t, tc.req); r.StatusCode != tc.want {
			t.Errorf("%s: HTTP %d %q, want %d\n%s", tc.name, r.StatusCode, r.Code, tc.want, r.Body)
		}
	}
	// Metadata names keep the case they were sent with.
	r := testkit.BlobSharedKey(t, env.BlobURL, env.Account, env.Key).Send(t, testkit.Request{Method: http.MethodGet, URL: env.BlobURL + "?comp=list&include=metadata"})
	if !bytes.Contains(r.Body, []byte("<Owner>kit</Owner>")) {
		t.Errorf("List Containers: metadata name lost its case:\n%s", r.Body)
	}
}

// TestSignSAS: the SDK's signer signs and the query carries its
// signature and permissions.
func TestSignSAS(t *testing.T) {
	cred, err := azqueue.NewSharedKeyCredential("devstoreaccount1", "a2V5")
	if err != nil {
		t.Fatal(err)
	}
	v := queuesas.QueueSignatureValues{QueueName: "jobs", Permissions: "r", ExpiryTime: time.Now().Add(time.Hour), Protocol: queuesas.ProtocolHTTPSandHTTP}
	if q := testkit.SignSAS(t, v.SignWithSharedKey, cred); !strings.Contains(q, "sig=") || !strings.Contains(q, "sp=r") {
		t.Errorf("SignSAS = %q, want a signed query with sp=r", q)
	}
}
