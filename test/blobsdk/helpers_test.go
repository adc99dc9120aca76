// Package blobsdk_test holds black-box conformance tests that drive a cerulean
// server only through the official Azure Blob SDK for Go (azblob), falling
// back to raw net/http only where the SDK cannot express a request.
package blobsdk_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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

	blobstore "github.com/cerulean-db/cerulean/internal/blob"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/servertest"
)

// devKey is the well-known development storage key of devstoreaccount1.
const devKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

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
	// Registered after the server's own cleanup, so it runs first, while
	// the store is open: every test leaves a consistent layout behind.
	t.Cleanup(func() {
		if err := blobstore.CheckInvariants(context.Background(), env.Store); err != nil {
			t.Errorf("after the test: %v", err)
		}
	})
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
// naming

var nameCounter atomic.Uint64

// cname returns a valid, unique container name starting with tag.
func cname(tag string) string {
	n := nameCounter.Add(1)
	s := fmt.Sprintf("%s-%d-%04x", strings.ToLower(tag), n, rand.Uint32()&0xffff)
	if len(s) > 63 {
		s = s[len(s)-63:]
		s = strings.TrimLeft(s, "-")
	}
	return s
}

// blockID returns a fixed-length base64 block ID for index i.
func blockID(i int) string {
	return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("block-%08d", i)))
}

// ---------------------------------------------------------------------------
// data

// randBytes returns n deterministic pseudo-random bytes for seed.
func randBytes(seed uint64, n int) []byte {
	var s [32]byte
	for i := 0; i < 4; i++ {
		for j := 0; j < 8; j++ {
			s[i*8+j] = byte((seed + uint64(i)*0x9e3779b97f4a7c15) >> (8 * j))
		}
	}
	b := make([]byte, n)
	_, _ = rand.NewChaCha8(s).Read(b)
	return b
}

func md5sum(b []byte) []byte {
	h := md5.Sum(b)
	return h[:]
}

func rsc(b []byte) io.ReadSeekCloser { return streaming.NopCloser(bytes.NewReader(b)) }

func ptr[T any](v T) *T { return &v }

// ---------------------------------------------------------------------------
// errors and statuses

func statusOf(resp *http.Response) any {
	if resp == nil {
		return "<no response>"
	}
	return resp.StatusCode
}

// describe renders an SDK error as "HTTP <status> <code>" where possible.
func describe(err error) string {
	if err == nil {
		return "success"
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return fmt.Sprintf("HTTP %d %q", re.StatusCode, re.ErrorCode)
	}
	return "non-HTTP error: " + err.Error()
}

// must fails the test immediately when err is not nil.
func must(t testing.TB, err error, format string, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: unexpected error: %s\n%v", fmt.Sprintf(format, args...), describe(err), err)
	}
}

// checkErr reports (without stopping the test) unless err is an HTTP error
// with the given status and, when code is not empty, the given error code.
func checkErr(t testing.TB, err error, status int, code bloberror.Code, format string, args ...any) bool {
	t.Helper()
	what := fmt.Sprintf(format, args...)
	want := fmt.Sprintf("HTTP %d", status)
	if code != "" {
		want += fmt.Sprintf(" %q", code)
	}
	if err == nil {
		t.Errorf("%s: got success, want %s", what, want)
		return false
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Errorf("%s: got %v, want %s", what, err, want)
		return false
	}
	if re.StatusCode != status || (code != "" && re.ErrorCode != string(code)) {
		t.Errorf("%s: got HTTP %d %q, want %s", what, re.StatusCode, re.ErrorCode, want)
		return false
	}
	return true
}

// mustErr is checkErr that stops the test on mismatch.
func mustErr(t testing.TB, err error, status int, code bloberror.Code, format string, args ...any) {
	t.Helper()
	if !checkErr(t, err, status, code, format, args...) {
		t.FailNow()
	}
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

// statStore scans the whole store and counts keys and key+value bytes.
func statStore(t testing.TB, env *servertest.Env) storeStats {
	t.Helper()
	if env.Store == nil {
		t.Fatalf("servertest.Env.Store is nil")
	}
	var st storeStats
	err := env.Store.View(context.Background(), func(r kv.Reader) error {
		return r.Scan(nil, nil, func(k, v []byte) bool {
			st.Keys++
			st.Bytes += int64(len(k) + len(v))
			return true
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
	qp, err := sas.AccountSignatureValues{
		Protocol:      sas.ProtocolHTTPSandHTTP,
		StartTime:     start,
		ExpiryTime:    expiry,
		Permissions:   perms.String(),
		ResourceTypes: rt.String(),
	}.SignWithSharedKey(f.cred)
	must(f.t, err, "signing account SAS")
	return qp.Encode()
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
type rawResult struct {
	Status int
	Code   string // x-ms-error-code
	Header http.Header
	Body   []byte
}

// rawDo sends one raw HTTP request (no SDK) and returns status, error code and body.
func rawDo(t testing.TB, method, u string, hdr map[string]string, body []byte) rawResult {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		t.Fatalf("building %s %s: %v", method, u, err)
	}
	req.Header.Set("x-ms-version", sas.Version)
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	client := &http.Client{Timeout: time.Minute}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, u, err)
	}
	code := resp.Header.Get("x-ms-error-code")
	if code == "" && len(b) > 0 {
		// fall back to <Code> in the XML error body
		if i := bytes.Index(b, []byte("<Code>")); i >= 0 {
			if j := bytes.Index(b[i:], []byte("</Code>")); j > 0 {
				code = string(b[i+6 : i+j])
			}
		}
	}
	return rawResult{Status: resp.StatusCode, Code: code, Header: resp.Header, Body: b}
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
