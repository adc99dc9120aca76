package azauth_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
)

var sasNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

const sasTime = "2006-01-02T15:04:05Z"

var errPolicyStore = errors.New("policy store down")

func sasAuthenticator(t *testing.T, service string) *azauth.Authenticator {
	return &azauth.Authenticator{
		Accounts: testAccounts(t),
		Service:  service,
		Now:      func() time.Time { return sasNow },
		Policy: func(_ context.Context, account, container, id string) (azauth.StoredPolicy, bool, error) {
			switch id {
			case "readonly":
				return azauth.StoredPolicy{Expiry: sasNow.Add(time.Hour), Permissions: "r"}, true, nil
			case "expiry-only":
				return azauth.StoredPolicy{Expiry: sasNow.Add(time.Hour)}, true, nil
			case "broken":
				return azauth.StoredPolicy{}, false, errPolicyStore
			}
			return azauth.StoredPolicy{}, false, nil
		},
	}
}

type sasCase struct {
	name     string
	service  string
	target   string // path, with any non-SAS query
	query    string // the SAS
	remote   string
	https    bool
	want     *azerr.Error
	wantKind azauth.AccessKind
	wantPerm string
	wantRes  string
}

func runSASCases(t *testing.T, tests []sasCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			target := tc.target
			if strings.Contains(target, "?") {
				target += "&" + tc.query
			} else {
				target += "?" + tc.query
			}
			r := newRequest("GET", target, nil)
			r.RemoteAddr = "127.0.0.1:5000"
			if tc.remote != "" {
				r.RemoteAddr = tc.remote
			}
			if tc.https {
				r.TLS = &tls.ConnectionState{}
			}
			account, c, b := splitPath(r.URL.Path)
			access, err := sasAuthenticator(t, cmpOrBlob(tc.service)).Authenticate(r, account, c, b)
			azauth.CheckErr(t, err, tc.want)
			if tc.want != nil {
				return
			}
			if access.Kind != tc.wantKind || access.Permissions != tc.wantPerm || access.Resource != tc.wantRes || access.Account != account {
				t.Fatalf("access = %+v", access)
			}
		})
	}
}

func cmpOrBlob(s string) string {
	if s == "" {
		return "blob"
	}
	return s
}

func mustSign(t *testing.T, v interface {
	SignWithSharedKey(*sas.SharedKeyCredential) (sas.QueryParameters, error)
}, key string) string {
	t.Helper()
	cred, err := azblob.NewSharedKeyCredential(azauth.DevAccount, key)
	if err != nil {
		t.Fatal(err)
	}
	qp, err := v.SignWithSharedKey(cred)
	if err != nil {
		t.Fatal(err)
	}
	return qp.Encode()
}

func TestAccountSAS(t *testing.T) {
	base := sas.AccountSignatureValues{
		Protocol:      sas.ProtocolHTTPSandHTTP,
		StartTime:     sasNow.Add(-time.Hour),
		ExpiryTime:    sasNow.Add(time.Hour),
		Permissions:   (&sas.AccountPermissions{Read: true, List: true}).String(),
		ResourceTypes: (&sas.AccountResourceTypes{Container: true, Object: true}).String(),
	}
	with := func(f func(*sas.AccountSignatureValues)) sas.AccountSignatureValues {
		v := base
		f(&v)
		return v
	}
	good := mustSign(t, base, azauth.DevKey)
	// The pre-2020-12-06 layout, hand-signed as the document describes.
	old := url.Values{"sv": {"2019-12-12"}, "ss": {"bq"}, "srt": {"sco"}, "sp": {"rw"}, "se": {"2026-06-02T00:00:00Z"}}
	oldSig := sign(t, azauth.DevKey, "devstoreaccount1\nrw\nbq\nsco\n\n2026-06-02T00:00:00Z\n\n\n2019-12-12\n")
	oldQuery := old.Encode() + "&sig=" + url.QueryEscape(oldSig)
	const target = "/devstoreaccount1/c1/b1"
	runSASCases(t, []sasCase{
		{name: "valid", target: target, query: good, wantKind: azauth.AccessAccountSAS, wantPerm: "rl"},
		{name: "old version signed with new layout", target: target, query: mustSign(t, with(func(v *sas.AccountSignatureValues) { v.Version = "2019-12-12" }), azauth.DevKey), wantKind: azauth.AccessAccountSAS, wantPerm: "rl"},
		{name: "encryption scope", target: target, query: mustSign(t, with(func(v *sas.AccountSignatureValues) { v.EncryptionScope = "scope1" }), azauth.DevKey), wantKind: azauth.AccessAccountSAS, wantPerm: "rl"},
		{name: "documented pre-2020 layout", target: target, query: oldQuery, wantKind: azauth.AccessAccountSAS, wantPerm: "rw"},
		{name: "unsigned ses smuggled into old layout", target: target, query: oldQuery + "&ses=evil", want: azerr.ErrAuthenticationFailed},
		{name: "tampered permissions", target: target, query: strings.Replace(good, "sp=rl", "sp=rwdl", 1), want: azerr.ErrAuthenticationFailed},
		{name: "wrong key", target: target, query: mustSign(t, base, azauth.Key1), want: azerr.ErrAuthenticationFailed},
		{name: "expired", target: target, query: mustSign(t, with(func(v *sas.AccountSignatureValues) { v.ExpiryTime = sasNow.Add(-time.Minute) }), azauth.DevKey), want: azerr.ErrAuthenticationFailed},
		{name: "not yet valid", target: target, query: mustSign(t, with(func(v *sas.AccountSignatureValues) { v.StartTime = sasNow.Add(time.Minute) }), azauth.DevKey), want: azerr.ErrAuthenticationFailed},
		{name: "expiry before start", target: target, query: mustSign(t, with(func(v *sas.AccountSignatureValues) { v.StartTime = sasNow.Add(2 * time.Hour) }), azauth.DevKey), want: azerr.ErrAuthenticationFailed},
		{name: "source ip mismatch", target: target, query: mustSign(t, with(func(v *sas.AccountSignatureValues) { v.IPRange = sas.IPRange{Start: net.ParseIP("10.0.0.1")} }), azauth.DevKey), want: azerr.ErrAuthorizationSourceIPMismatch},
		{name: "source ip in range", target: target, query: mustSign(t, with(func(v *sas.AccountSignatureValues) {
			v.IPRange = sas.IPRange{Start: net.ParseIP("127.0.0.0"), End: net.ParseIP("127.0.0.9")}
		}), azauth.DevKey), wantKind: azauth.AccessAccountSAS, wantPerm: "rl"},
		{name: "ipv4-mapped remote in range", target: target, remote: "[::ffff:127.0.0.1]:80", query: mustSign(t, with(func(v *sas.AccountSignatureValues) { v.IPRange = sas.IPRange{Start: net.ParseIP("127.0.0.1")} }), azauth.DevKey), wantKind: azauth.AccessAccountSAS, wantPerm: "rl"},
		{name: "https only over http", target: target, query: mustSign(t, with(func(v *sas.AccountSignatureValues) { v.Protocol = sas.ProtocolHTTPS }), azauth.DevKey), want: azerr.ErrAuthorizationProtocolMismatch},
		{name: "https only over https", target: target, https: true, query: mustSign(t, with(func(v *sas.AccountSignatureValues) { v.Protocol = sas.ProtocolHTTPS }), azauth.DevKey), wantKind: azauth.AccessAccountSAS, wantPerm: "rl"},
		{name: "unknown account", target: "/nosuch/c1", query: good, want: azerr.ErrAuthenticationFailed},
		{name: "missing sv", target: target, query: strings.Replace(good, "sv=", "xv=", 1), want: azerr.ErrAuthenticationFailed},
	})
}

func TestBlobServiceSAS(t *testing.T) {
	perms := (&sas.ContainerPermissions{Read: true, List: true}).String()
	ctr := sas.BlobSignatureValues{ContainerName: "c1", Permissions: perms, ExpiryTime: sasNow.Add(time.Hour)}
	with := func(f func(*sas.BlobSignatureValues)) string {
		v := ctr
		f(&v)
		return mustSign(t, v, azauth.DevKey)
	}
	snapshot := time.Date(2026, 5, 1, 0, 0, 0, 123, time.UTC)
	snapParam := "snapshot=" + url.QueryEscape(snapshot.Format("2006-01-02T15:04:05.0000000Z"))
	blobSAS := with(func(v *sas.BlobSignatureValues) { v.BlobName = "dir/b 1.txt"; v.Permissions = "rw" })
	// Older documented layouts, hand-signed.
	se := sasNow.Add(time.Hour).Format(sasTime)
	v2015 := "sv=2015-04-05&sr=c&sp=r&se=" + se + "&sig=" + url.QueryEscape(sign(t, azauth.DevKey, "r\n\n"+se+"\n/blob/devstoreaccount1/c1\n\n\n\n2015-04-05\n\n\n\n\n"))
	v2018 := "sv=2018-11-09&sr=c&sp=r&se=" + se + "&sig=" + url.QueryEscape(sign(t, azauth.DevKey, "r\n\n"+se+"\n/blob/devstoreaccount1/c1\n\n\n\n2018-11-09\nc\n\n\n\n\n\n"))
	runSASCases(t, []sasCase{
		{name: "container", target: "/devstoreaccount1/c1", query: mustSign(t, ctr, azauth.DevKey), wantKind: azauth.AccessServiceSAS, wantPerm: "rl", wantRes: "c"},
		{name: "container sas on a blob", target: "/devstoreaccount1/c1/x/y", query: mustSign(t, ctr, azauth.DevKey), wantKind: azauth.AccessServiceSAS, wantPerm: "rl", wantRes: "c"},
		{name: "container sas on another container", target: "/devstoreaccount1/c2", query: mustSign(t, ctr, azauth.DevKey), want: azerr.ErrAuthenticationFailed},
		{name: "container sas on the service", target: "/devstoreaccount1", query: mustSign(t, ctr, azauth.DevKey), want: azerr.ErrAuthenticationFailed},
		{name: "blob with escaped name", target: "/devstoreaccount1/c1/dir/b%201.txt", query: blobSAS, wantKind: azauth.AccessServiceSAS, wantPerm: "rw", wantRes: "b"},
		{name: "blob sas on another blob", target: "/devstoreaccount1/c1/dir/b2", query: blobSAS, want: azerr.ErrAuthenticationFailed},
		{name: "response headers", target: "/devstoreaccount1/c1/b", query: with(func(v *sas.BlobSignatureValues) {
			v.BlobName, v.ContentDisposition, v.ContentType = "b", "attachment", "text/plain"
		}), wantKind: azauth.AccessServiceSAS, wantPerm: "rl", wantRes: "b"},
		{name: "encryption scope", target: "/devstoreaccount1/c1", query: with(func(v *sas.BlobSignatureValues) { v.EncryptionScope = "s1" }), wantKind: azauth.AccessServiceSAS, wantPerm: "rl", wantRes: "c"},
		{name: "snapshot", target: "/devstoreaccount1/c1/b?" + snapParam, query: with(func(v *sas.BlobSignatureValues) { v.BlobName, v.SnapshotTime = "b", snapshot }), wantKind: azauth.AccessServiceSAS, wantPerm: "rl", wantRes: "bs"},
		{name: "snapshot sas without snapshot", target: "/devstoreaccount1/c1/b", query: with(func(v *sas.BlobSignatureValues) { v.BlobName, v.SnapshotTime = "b", snapshot }), want: azerr.ErrAuthenticationFailed},
		{name: "version", target: "/devstoreaccount1/c1/b?versionid=2026-05-01T00:00:00.0000000Z", query: with(func(v *sas.BlobSignatureValues) {
			v.BlobName, v.BlobVersion = "b", "2026-05-01T00:00:00.0000000Z"
		}), wantKind: azauth.AccessServiceSAS, wantPerm: "rl", wantRes: "bv"},
		{name: "stored policy supplies se and sp", target: "/devstoreaccount1/c1", query: with(func(v *sas.BlobSignatureValues) {
			v.Identifier, v.Permissions, v.ExpiryTime = "readonly", "", time.Time{}
		}), wantKind: azauth.AccessServiceSAS, wantPerm: "r", wantRes: "c"},
		{name: "stored policy supplies se only", target: "/devstoreaccount1/c1", query: with(func(v *sas.BlobSignatureValues) {
			v.Identifier, v.ExpiryTime = "expiry-only", time.Time{}
		}), wantKind: azauth.AccessServiceSAS, wantPerm: "rl", wantRes: "c"},
		{name: "field in both sas and policy", target: "/devstoreaccount1/c1", query: with(func(v *sas.BlobSignatureValues) { v.Identifier = "readonly" }), want: azerr.ErrAuthenticationFailed},
		{name: "unknown identifier", target: "/devstoreaccount1/c1", query: with(func(v *sas.BlobSignatureValues) { v.Identifier = "nosuch" }), want: azerr.ErrAuthenticationFailed},
		{name: "documented 2015-04-05 layout", target: "/devstoreaccount1/c1", query: v2015, wantKind: azauth.AccessServiceSAS, wantPerm: "r", wantRes: "c"},
		{name: "documented 2018-11-09 layout", target: "/devstoreaccount1/c1", query: v2018, wantKind: azauth.AccessServiceSAS, wantPerm: "r", wantRes: "c"},
		{name: "unsigned response header smuggled", target: "/devstoreaccount1/c1", query: v2015 + "&rsct=text/html", want: azerr.ErrAuthenticationFailed},
		{name: "tampered", target: "/devstoreaccount1/c1", query: strings.Replace(mustSign(t, ctr, azauth.DevKey), "sp=rl", "sp=rwl", 1), want: azerr.ErrAuthenticationFailed},
		{name: "wrong key", target: "/devstoreaccount1/c1", query: mustSign(t, ctr, azauth.Key2), want: azerr.ErrAuthenticationFailed},
		{name: "expired", target: "/devstoreaccount1/c1", query: with(func(v *sas.BlobSignatureValues) { v.ExpiryTime = sasNow.Add(-time.Second) }), want: azerr.ErrAuthenticationFailed},
		{name: "not yet valid", target: "/devstoreaccount1/c1", query: with(func(v *sas.BlobSignatureValues) { v.StartTime = sasNow.Add(time.Minute) }), want: azerr.ErrAuthenticationFailed},
		{name: "wrong ip", target: "/devstoreaccount1/c1", query: with(func(v *sas.BlobSignatureValues) { v.IPRange = sas.IPRange{Start: net.ParseIP("::1")} }), want: azerr.ErrAuthorizationSourceIPMismatch},
		{name: "https only", target: "/devstoreaccount1/c1", query: with(func(v *sas.BlobSignatureValues) { v.Protocol = sas.ProtocolHTTPS }), want: azerr.ErrAuthorizationProtocolMismatch},
		{name: "user delegation", target: "/devstoreaccount1/c1", query: mustSign(t, ctr, azauth.DevKey) + "&skoid=x", want: azerr.ErrAuthenticationFailed},
	})
}

func TestServiceSASPolicyError(t *testing.T) {
	v := sas.BlobSignatureValues{ContainerName: "c1", Identifier: "broken"}
	r := newRequest("GET", "/devstoreaccount1/c1?"+mustSign(t, v, azauth.DevKey), nil)
	_, err := sasAuthenticator(t, "blob").Authenticate(r, azauth.DevAccount, "c1", "")
	var azErr *azerr.Error
	if !errors.Is(err, errPolicyStore) || errors.As(err, &azErr) {
		t.Fatalf("err = %v, want the store's error unwrapped to a 500", err)
	}
}

// TestOtherServiceSAS hand-signs queue, table and file service SAS per the
// documented layouts (no SDK for them is in go.mod).
func TestOtherServiceSAS(t *testing.T) {
	se := sasNow.Add(time.Hour).Format(sasTime)
	q := func(params, toSign string) string {
		return params + "&sig=" + url.QueryEscape(sign(t, azauth.DevKey, toSign))
	}
	queue := q("sv=2020-02-10&sp=rap&se="+se, "rap\n\n"+se+"\n/queue/devstoreaccount1/q1\n\n\n\n2020-02-10")
	table := q("sv=2019-02-02&tn=Orders&sp=raud&se="+se+"&spk=a&epk=m", "raud\n\n"+se+"\n/table/devstoreaccount1/orders\n\n\n\n2019-02-02\na\n\nm\n")
	file := q("sv=2022-11-02&sr=f&sp=r&se="+se+"&rscd=inline", "r\n\n"+se+"\n/file/devstoreaccount1/share/dir/f.txt\n\n\n\n2022-11-02\n\ninline\n\n\n")
	share := q("sv=2022-11-02&sr=s&sp=rl&se="+se, "rl\n\n"+se+"\n/file/devstoreaccount1/share\n\n\n\n2022-11-02\n\n\n\n\n")
	runSASCases(t, []sasCase{
		{name: "queue", service: "queue", target: "/devstoreaccount1/q1/messages", query: queue, wantKind: azauth.AccessServiceSAS, wantPerm: "rap", wantRes: "q"},
		{name: "queue sas on another queue", service: "queue", target: "/devstoreaccount1/q2/messages", query: queue, want: azerr.ErrAuthenticationFailed},
		{name: "table", service: "table", target: "/devstoreaccount1/Orders", query: table, wantKind: azauth.AccessServiceSAS, wantPerm: "raud", wantRes: "t"},
		{name: "table name differs", service: "table", target: "/devstoreaccount1/Other", query: table, want: azerr.ErrAuthorizationFailure},
		{name: "table range tampered", service: "table", target: "/devstoreaccount1/Orders", query: strings.Replace(table, "epk=m", "epk=z", 1), want: azerr.ErrAuthenticationFailed},
		{name: "file", service: "file", target: "/devstoreaccount1/share/dir/f.txt", query: file, wantKind: azauth.AccessServiceSAS, wantPerm: "r", wantRes: "f"},
		{name: "share", service: "file", target: "/devstoreaccount1/share/any/file", query: share, wantKind: azauth.AccessServiceSAS, wantPerm: "rl", wantRes: "s"},
		// A field given twice is refused, even with the same value twice.
		{name: "queue sp twice", service: "queue", target: "/devstoreaccount1/q1/messages", query: queue + "&sp=rap", want: azerr.ErrAuthenticationFailed},
		{name: "table tn twice", service: "table", target: "/devstoreaccount1/Orders", query: table + "&tn=Orders", want: azerr.ErrAuthenticationFailed},
		{name: "table spk twice", service: "table", target: "/devstoreaccount1/Orders", query: table + "&spk=a", want: azerr.ErrAuthenticationFailed},
		{name: "file se twice", service: "file", target: "/devstoreaccount1/share/dir/f.txt", query: file + "&se=" + se, want: azerr.ErrAuthenticationFailed},
	})
}

// TestSASThroughSDK uses a SAS URL with the SDK end to end.
func TestSASThroughSDK(t *testing.T) {
	auth := sasAuthenticator(t, "blob")
	srv, got := newAuthServer(t, auth)
	v := sas.BlobSignatureValues{ContainerName: "c1", Permissions: "rl", ExpiryTime: sasNow.Add(time.Hour)}
	cc, err := container.NewClientWithNoCredential(srv.URL+"/devstoreaccount1/c1?"+mustSign(t, v, azauth.DevKey), (*container.ClientOptions)(clientOptions()))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = cc.GetProperties(context.Background(), nil)
	access, _, authErr := got.get()
	if authErr != nil || access.Kind != azauth.AccessServiceSAS || access.Resource != "c" {
		t.Fatalf("access = %+v, err = %v", access, authErr)
	}
}
