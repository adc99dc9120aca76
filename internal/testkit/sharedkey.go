package testkit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
)

// Signer sends hand-built requests signed by an SDK's own credential
// policy, so a raw request is authorised exactly as the SDK would
// authorise it and the tests carry no second copy of the signing rules.
//
// The SDKs do not export their signing policies, only clients whose
// pipelines contain them. A Signer therefore holds such a client with one
// extra per-call policy, which runs before the credential policy: when the
// context carries a Request, the policy puts it in place of the SDK
// operation's request (keeping only the SDK's x-ms-version, unless the
// Request sets one), lets the rest of the pipeline sign and send it,
// captures the response and ends the operation.
type Signer struct {
	// op runs any operation of the client; its own outcome is discarded.
	op func(ctx context.Context) error
}

// BlobSharedKey signs as azblob does (Shared Key) for the Blob service at
// serviceURL.
func BlobSharedKey(t testing.TB, serviceURL, account, key string) Signer {
	t.Helper()
	cred, err := service.NewSharedKeyCredential(account, key)
	Must(t, err, "azblob NewSharedKeyCredential")
	var o service.ClientOptions
	o.ClientOptions = signerOptions()
	c, err := service.NewClientWithSharedKeyCredential(serviceURL, cred, &o)
	Must(t, err, "azblob NewClientWithSharedKeyCredential(%q)", serviceURL)
	return Signer{op: func(ctx context.Context) error { _, err := c.GetProperties(ctx, nil); return err }}
}

// QueueSharedKey signs as azqueue does (Shared Key) for the Queue service at
// serviceURL.
func QueueSharedKey(t testing.TB, serviceURL, account, key string) Signer {
	t.Helper()
	cred, err := azqueue.NewSharedKeyCredential(account, key)
	Must(t, err, "azqueue NewSharedKeyCredential")
	var o azqueue.ClientOptions
	o.ClientOptions = signerOptions()
	c, err := azqueue.NewServiceClientWithSharedKeyCredential(serviceURL, cred, &o)
	Must(t, err, "azqueue NewServiceClientWithSharedKeyCredential(%q)", serviceURL)
	return Signer{op: func(ctx context.Context) error { _, err := c.GetServiceProperties(ctx, nil); return err }}
}

// TableSharedKeyLite signs as aztables does (Shared Key Lite) for the Table
// service at serviceURL.
func TableSharedKeyLite(t testing.TB, serviceURL, account, key string) Signer {
	t.Helper()
	cred, err := aztables.NewSharedKeyCredential(account, key)
	Must(t, err, "aztables NewSharedKeyCredential")
	var o aztables.ClientOptions
	o.ClientOptions = signerOptions()
	c, err := aztables.NewServiceClientWithSharedKey(serviceURL, cred, &o)
	Must(t, err, "aztables NewServiceClientWithSharedKey(%q)", serviceURL)
	return Signer{op: func(ctx context.Context) error { _, err := c.GetProperties(ctx, nil); return err }}
}

// signerOptions sends every request once, through the substitution policy.
func signerOptions() azcore.ClientOptions {
	return azcore.ClientOptions{
		Retry:           policy.RetryOptions{MaxRetries: -1, TryTimeout: time.Minute},
		PerCallPolicies: []policy.Policy{substitution{}},
	}
}

// Send signs and sends req. Transport errors stop the test.
func (s Signer) Send(t testing.TB, req Request) Response {
	t.Helper()
	sub := &substituted{req: req}
	err := s.op(context.WithValue(t.Context(), substitutedKey{}, sub))
	if !sub.sent {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	return sub.resp
}

type substitutedKey struct{}

// substituted is one Request on its way through a pipeline.
type substituted struct {
	req  Request
	resp Response
	sent bool
}

// errSubstituted ends the SDK operation whose request was replaced, so
// the SDK does not try to read the answer as its own.
var errSubstituted = errors.New("request replaced by a hand-built one")

// substitution is the per-call policy that puts a Request in place of the
// SDK operation's.
type substitution struct{}

func (substitution) Do(pr *policy.Request) (*http.Response, error) {
	sub, ok := pr.Raw().Context().Value(substitutedKey{}).(*substituted)
	if !ok {
		return pr.Next()
	}
	if err := sub.apply(pr); err != nil {
		return nil, err
	}
	resp, err := pr.Next()
	if err != nil {
		return nil, err
	}
	if sub.resp, err = readResponse(resp); err != nil {
		return nil, err
	}
	sub.sent = true
	return nil, errSubstituted
}

func (sub *substituted) apply(pr *policy.Request) error {
	u, err := url.Parse(sub.req.URL)
	if err != nil {
		return fmt.Errorf("parse %q: %w", sub.req.URL, err)
	}
	r := pr.Raw()
	version := r.Header.Get("X-Ms-Version")
	r.Method, r.URL, r.Host = sub.req.Method, u, u.Host
	r.Header = http.Header{}
	r.Header.Set("X-Ms-Version", version)
	for k, v := range sub.req.Header {
		setHeader(r.Header, k, v)
	}
	if sub.req.Body == nil {
		return pr.SetBody(nil, r.Header.Get("Content-Type"))
	}
	return pr.SetBody(streaming.NopCloser(bytes.NewReader(sub.req.Body)), r.Header.Get("Content-Type"))
}

// SignSAS signs with an SDK's own SAS signer — sign is a signature
// values' SignWithSharedKey, cred its credential — and returns the query
// string (without '?'), failing the test if the SDK refuses the values.
func SignSAS[C, Q any, P interface {
	*Q
	Encode() string
}](t testing.TB, sign func(C) (Q, error), cred C) string {
	t.Helper()
	q, err := sign(cred)
	if err != nil {
		t.Fatalf("sign SAS: %v", err)
	}
	return P(&q).Encode()
}
