// Package blobsdk_test holds black-box conformance tests that drive a cerulean
// server only through the official Azure Blob SDK for Go (azblob), falling
// back to raw net/http only where the SDK cannot express a request.
package blobsdk_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// fixture is one server plus an SDK service client authorised with Shared Key.
type fixture struct {
	t    *testing.T
	env  *servertest.Env
	cred *service.SharedKeyCredential
	svc  *service.Client
	rec  *recorder
}

// newFixture starts a fresh in-memory server for the test and returns an SDK
// client for it. Every test gets its own server, so tests can run in parallel.
func newFixture(t *testing.T, opts ...servertest.Option) *fixture {
	t.Helper()
	env := servertest.Start(t, opts...)
	if env.Account != "devstoreaccount1" {
		t.Fatalf("servertest.Env.Account = %q, want devstoreaccount1", env.Account)
	}
	cred, err := service.NewSharedKeyCredential(env.Account, env.Key)
	if err != nil {
		t.Fatalf("NewSharedKeyCredential: %v", err)
	}
	rec := &recorder{}
	svc, err := service.NewClientWithSharedKeyCredential(env.BlobURL, cred, clientOptions(rec))
	if err != nil {
		t.Fatalf("service.NewClientWithSharedKeyCredential(%q): %v", env.BlobURL, err)
	}
	return &fixture{t: t, env: env, cred: cred, svc: svc, rec: rec}
}

// clientOptions disables retries so every call observes the server's first
// answer, and optionally records every request sent.
func clientOptions(rec *recorder) *service.ClientOptions {
	o := &service.ClientOptions{}
	o.Retry = policy.RetryOptions{MaxRetries: -1, TryTimeout: 2 * time.Minute}
	if rec != nil {
		o.PerRetryPolicies = []policy.Policy{rec}
	}
	return o
}

// newServiceClient returns a second, independent Shared Key client (a
// different "process" talking to the same server).
func (f *fixture) newServiceClient() *service.Client {
	f.t.Helper()
	svc, err := service.NewClientWithSharedKeyCredential(f.env.BlobURL, f.cred, clientOptions(nil))
	if err != nil {
		f.t.Fatalf("service.NewClientWithSharedKeyCredential: %v", err)
	}
	return svc
}

// signer returns a raw-request sender signed with the fixture's Shared Key.
func (f *fixture) signer() testkit.Signer {
	return testkit.BlobSharedKey(f.t, f.env.BlobURL, f.env.Account, f.env.Key)
}

// createContainer creates a container and fails the test unless the server
// answers 201.
func (f *fixture) createContainer(name string, opts *container.CreateOptions) *container.Client {
	f.t.Helper()
	cc := f.svc.NewContainerClient(name)
	var raw *http.Response
	_, err := cc.Create(policy.WithCaptureResponse(f.t.Context(), &raw), opts)
	must(f.t, err, "Create container %q", name)
	if raw == nil || raw.StatusCode != http.StatusCreated {
		f.t.Fatalf("Create container %q: status %v, want 201", name, statusOf(raw))
	}
	return cc
}

// recorder is a pipeline policy that remembers the method and query of every
// request, so tests can check what the SDK actually sent.
type recorder struct {
	mu   sync.Mutex
	reqs []recordedRequest
}

type recordedRequest struct {
	Method string
	Path   string
	Query  url.Values
	Status int
}

func (r *recorder) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	rr := recordedRequest{Method: req.Raw().Method, Path: req.Raw().URL.Path, Query: req.Raw().URL.Query()}
	if resp != nil {
		rr.Status = resp.StatusCode
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, rr)
	r.mu.Unlock()
	return resp, err
}

// since returns the requests recorded after mark (a value earlier returned by mark()).
func (r *recorder) since(mark int) []recordedRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recordedRequest(nil), r.reqs[mark:]...)
}

func (r *recorder) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

// ---------------------------------------------------------------------------
// the kit under the names this suite's files use

var (
	cname      = testkit.Name // a unique container name starting with tag
	randBytes  = testkit.RandBytes
	describe   = testkit.Describe
	must       = testkit.Must
	mustStatus = testkit.MustStatus
	checkErr   = testkit.CheckErr[bloberror.Code]
	mustErr    = testkit.MustErr[bloberror.Code]
)

func ptr[T any](v T) *T { return testkit.Ptr(v) }

// ---------------------------------------------------------------------------
// naming

// blockID returns a fixed-length base64 block ID for index i.
func blockID(i int) string {
	return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("block-%08d", i)))
}

// ---------------------------------------------------------------------------
// data

func md5sum(b []byte) []byte {
	h := md5.Sum(b)
	return h[:]
}

func rsc(b []byte) io.ReadSeekCloser { return streaming.NopCloser(bytes.NewReader(b)) }

// ---------------------------------------------------------------------------
// statuses

func statusOf(resp *http.Response) any {
	if resp == nil {
		return "<no response>"
	}
	return resp.StatusCode
}

// ---------------------------------------------------------------------------
// blob helpers

// upload does a single Put Blob and returns its response.
func upload(t testing.TB, bb *blockblob.Client, data []byte, opts *blockblob.UploadOptions) blockblob.UploadResponse {
	t.Helper()
	var raw *http.Response
	resp, err := bb.Upload(policy.WithCaptureResponse(context.Background(), &raw), rsc(data), opts)
	must(t, err, "Put Blob %s", bb.URL())
	if raw == nil || raw.StatusCode != http.StatusCreated {
		t.Fatalf("Put Blob %s: status %v, want 201", bb.URL(), statusOf(raw))
	}
	if resp.ETag == nil || *resp.ETag == "" {
		t.Fatalf("Put Blob %s: response has no ETag", bb.URL())
	}
	if resp.LastModified == nil {
		t.Fatalf("Put Blob %s: response has no Last-Modified", bb.URL())
	}
	return resp
}

// downloadResult is what one Get Blob returned.
type downloadResult struct {
	Status int
	Header http.Header
	Body   []byte
	Resp   blob.DownloadStreamResponse
	Err    error
}

// tryDownload performs one Get Blob and reports the raw status, the body (for
// 2xx) and the SDK error if any.
func tryDownload(t testing.TB, bc *blob.Client, opts *blob.DownloadStreamOptions) downloadResult {
	t.Helper()
	var raw *http.Response
	resp, err := bc.DownloadStream(policy.WithCaptureResponse(context.Background(), &raw), opts)
	r := downloadResult{Resp: resp, Err: err}
	if raw != nil {
		r.Status = raw.StatusCode
		r.Header = raw.Header
	}
	if err == nil && resp.Body != nil {
		b, rerr := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if rerr != nil {
			t.Fatalf("Get Blob %s: reading body: %v", bc.URL(), rerr)
		}
		r.Body = b
	}
	return r
}

// download fetches the whole blob and fails unless the server answers 200.
func download(t testing.TB, bc *blob.Client) []byte {
	t.Helper()
	r := tryDownload(t, bc, nil)
	must(t, r.Err, "Get Blob %s", bc.URL())
	if r.Status != http.StatusOK {
		t.Fatalf("Get Blob %s: status %d, want 200", bc.URL(), r.Status)
	}
	if r.Resp.ContentLength == nil || *r.Resp.ContentLength != int64(len(r.Body)) {
		t.Fatalf("Get Blob %s: Content-Length %v but body has %d bytes", bc.URL(), deref(r.Resp.ContentLength), len(r.Body))
	}
	return r.Body
}

// expectContent fails unless the blob holds exactly want.
func expectContent(t testing.TB, bc *blob.Client, want []byte, what string) {
	t.Helper()
	got := download(t, bc)
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: blob %s holds %d bytes (md5 %x), want %d bytes (md5 %x)%s",
			what, bc.URL(), len(got), md5sum(got), len(want), md5sum(want), preview(got, want))
	}
}

func preview(got, want []byte) string {
	if len(got) <= 64 && len(want) <= 64 {
		return fmt.Sprintf(": got %q want %q", got, want)
	}
	return ""
}

func props(t testing.TB, bc *blob.Client) blob.GetPropertiesResponse {
	t.Helper()
	p, err := bc.GetProperties(context.Background(), nil)
	must(t, err, "Get Blob Properties %s", bc.URL())
	if p.ETag == nil || *p.ETag == "" {
		t.Fatalf("Get Blob Properties %s: no ETag", bc.URL())
	}
	if p.LastModified == nil {
		t.Fatalf("Get Blob Properties %s: no Last-Modified", bc.URL())
	}
	return p
}

func deref[T any](p *T) any {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func etagOf(p *azcore.ETag) azcore.ETag {
	if p == nil {
		return ""
	}
	return *p
}

// sameETag compares ETags ignoring surrounding quotes: headers carry them
// quoted ("0x8D..."), List Blobs XML carries them bare (0x8D...).
func sameETag(a, b azcore.ETag) bool {
	return strings.Trim(string(a), `"`) == strings.Trim(string(b), `"`)
}

// metaLookup finds key in m case-insensitively (Go's HTTP client
// canonicalises header names, so header-borne metadata keys lose their case).
func metaLookup(m map[string]*string, key string) (string, bool) {
	for k, v := range m {
		if strings.EqualFold(k, key) {
			if v == nil {
				return "", true
			}
			return *v, true
		}
	}
	return "", false
}

// metaEqualFold compares two metadata maps with case-insensitive keys.
func metaEqualFold(got map[string]*string, want map[string]string) error {
	if len(got) != len(want) {
		return fmt.Errorf("got %d keys %v, want %d keys %v", len(got), flatMeta(got), len(want), want)
	}
	for k, v := range want {
		g, ok := metaLookup(got, k)
		if !ok || g != v {
			return fmt.Errorf("key %q: got %q (present=%v), want %q; all: %v", k, g, ok, v, flatMeta(got))
		}
	}
	return nil
}

func flatMeta(m map[string]*string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if v != nil {
			out[k] = *v
		} else {
			out[k] = "<nil>"
		}
	}
	return out
}

func strMeta(m map[string]string) map[string]*string {
	out := make(map[string]*string, len(m))
	for k, v := range m {
		out[k] = ptr(v)
	}
	return out
}

// listFlat lists every blob of a container, page by page.
func listFlat(t testing.TB, cc *container.Client, opts *container.ListBlobsFlatOptions) (items []*container.BlobItem, pages int) {
	t.Helper()
	pager := cc.NewListBlobsFlatPager(opts)
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		must(t, err, "List Blobs (page %d) on %s", pages+1, cc.URL())
		pages++
		if page.Segment == nil {
			continue
		}
		items = append(items, page.Segment.BlobItems...)
		if pages > 10000 {
			t.Fatalf("List Blobs on %s: more than 10000 pages; NextMarker never ends", cc.URL())
		}
	}
	return items, pages
}

func blobNames(items []*container.BlobItem) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, deref(it.Name).(string))
	}
	return out
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

// ---------------------------------------------------------------------------
// store accounting

type storeStats struct {
	Keys  int
	Bytes int64
}

func (s storeStats) String() string { return fmt.Sprintf("%d keys / %d bytes", s.Keys, s.Bytes) }

// statStore scans the whole store and counts keys and key+value bytes,
// but for the store's own counts of what the services hold: a count that
// went back to zero keeps its key.
func statStore(t testing.TB, env *servertest.Env) storeStats {
	t.Helper()
	if env.Store == nil {
		t.Fatalf("servertest.Env.Store is nil")
	}
	// What deletes and overwrites freed goes after their answers.
	env.Server.AwaitCollection()
	var st storeStats
	err := env.Store.View(context.Background(), func(r kv.Reader) error {
		return r.Scan(nil, nil, func(k, v []byte) error {
			if bytes.HasPrefix(k, []byte(keyspace.StoreUsage)) {
				return nil
			}
			st.Keys++
			st.Bytes += int64(len(k) + len(v))
			return nil
		})
	})
	must(t, err, "scanning the store")
	return st
}

// ---------------------------------------------------------------------------
// SAS and raw HTTP

// accountSAS returns an account SAS query string (without leading '?').
func (f *fixture) accountSAS(perms sas.AccountPermissions, start, expiry time.Time) string {
	f.t.Helper()
	return f.accountSASFor(sas.AccountResourceTypes{Service: true, Container: true, Object: true}, perms, start, expiry)
}

// accountSASFor is accountSAS for the given resource types (srt).
func (f *fixture) accountSASFor(rt sas.AccountResourceTypes, perms sas.AccountPermissions, start, expiry time.Time) string {
	f.t.Helper()
	v := sas.AccountSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, StartTime: start, ExpiryTime: expiry, Permissions: perms.String(), ResourceTypes: rt.String()}
	return testkit.SignSAS(f.t, v.SignWithSharedKey, f.cred)
}

// fullAccountSAS returns an account SAS valid for an hour with every permission
// the raw-HTTP tests need.
func (f *fixture) fullAccountSAS() string {
	now := time.Now().UTC()
	return f.accountSAS(sas.AccountPermissions{Read: true, Add: true, Create: true, Write: true, Delete: true, List: true},
		now.Add(-time.Hour), now.Add(time.Hour))
}

// withQuery appends a query string to a URL that may already have one.
func withQuery(u, q string) string {
	if strings.Contains(u, "?") {
		return u + "&" + q
	}
	return u + "?" + q
}

// rawResult is the outcome of a raw HTTP request.
type rawResult = testkit.Response

// rawDo sends one raw HTTP request (no SDK, no signature: anonymous or
// authorised by a SAS in u) and returns status, error code and body.
func rawDo(t testing.TB, method, u string, hdr map[string]string, body []byte) rawResult {
	t.Helper()
	h := map[string]string{"x-ms-version": sas.Version, "x-ms-date": time.Now().UTC().Format(http.TimeFormat)}
	for k, v := range hdr {
		h[k] = v
	}
	return testkit.Send(t, testkit.Request{Method: method, URL: u, Header: h, Body: body})
}

// rawCommit sends a Put Block List with a hand-written XML body, authorised
// by an account SAS.
func (f *fixture) rawCommit(bc *blockblob.Client, xmlBody string, extra map[string]string) rawResult {
	f.t.Helper()
	u := withQuery(bc.URL(), "comp=blocklist&"+f.fullAccountSAS())
	hdr := map[string]string{"Content-Type": "application/xml; charset=utf-8"}
	for k, v := range extra {
		hdr[k] = v
	}
	return rawDo(f.t, http.MethodPut, u, hdr, []byte(xmlBody))
}

// blockListXML renders a <BlockList> with (kind, id) pairs, kind being
// Committed, Uncommitted or Latest.
func blockListXML(entries ...[2]string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><BlockList>`)
	for _, e := range entries {
		fmt.Fprintf(&b, "<%s>%s</%s>", e[0], e[1], e[0])
	}
	b.WriteString("</BlockList>")
	return b.String()
}
