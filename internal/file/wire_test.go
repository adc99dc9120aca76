package file

import (
	"encoding/xml"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// The tests here hold answers on the wire to what Azure answered in the
// SDKs' recorded live tests (test/parity/testdata/file), each naming the
// recording it follows.

// wire serves the File REST API over a fresh in-memory store for the
// development account, authorising every request with an account SAS.
type wire struct {
	t       *testing.T
	handler http.Handler
	token   string
}

func newWire(t *testing.T, opts ...Option) *wire {
	t.Helper()
	cred, err := service.NewSharedKeyCredential(azauth.DevAccount, azauth.DevKey)
	testkit.Must(t, err, "shared key credential")
	qp, err := sas.AccountSignatureValues{
		Protocol:      sas.ProtocolHTTPSandHTTP,
		ExpiryTime:    time.Now().Add(time.Hour),
		Permissions:   "rwdlc",
		ResourceTypes: "sco",
	}.SignWithSharedKey(cred)
	testkit.Must(t, err, "account SAS")
	accounts, err := azauth.LoadAccounts(func(string) string { return "" })
	testkit.Must(t, err, "accounts")
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	testkit.CheckAfter(t, store, CheckInvariants)
	s := New(Config{Store: store, Accounts: accounts, Logger: slog.New(slog.DiscardHandler)}, opts...)
	return &wire{t: t, handler: NewHandler(s), token: qp.Encode()}
}

// do sends method target (a path under the account, with its query)
// with the given headers and fails the test unless the status is want.
func (w *wire) do(method, target string, want int, headers ...string) *httptest.ResponseRecorder {
	w.t.Helper()
	return w.doAt("127.0.0.1", method, target, want, headers...)
}

// doAt is do addressed to another host (host[:port]).
func (w *wire) doAt(host, method, target string, want int, headers ...string) *httptest.ResponseRecorder {
	w.t.Helper()
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	req := httptest.NewRequest(method, "http://"+host+"/"+azauth.DevAccount+"/"+target+sep+w.token, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	w.handler.ServeHTTP(rec, req)
	if rec.Code != want {
		w.t.Fatalf("%s %s: %d %s, want %d", method, target, rec.Code, rec.Body.Bytes(), want)
	}
	return rec
}

// header returns an answer's header whatever the case it was written in.
func header(rec *httptest.ResponseRecorder, name string) (string, bool) {
	for k, v := range rec.Header() {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0], true
		}
	}
	return "", false
}

func wantHeader(t *testing.T, rec *httptest.ResponseRecorder, name, want string) {
	t.Helper()
	if got, ok := header(rec, name); !ok || got != want {
		t.Errorf("%s: %q (present %v), want %q", name, got, ok, want)
	}
}

// TestSetDirectoryMetadataAnswer: Set Directory Metadata answers the new
// ETag with its Last-Modified, and a directory whose metadata was cleared
// reports itself not server-encrypted until metadata is set again (the
// azfile recording TestDirGetSetMetadataDefault; StorageDirSuite
// TestDirectoryMetadata for metadata set).
func TestSetDirectoryMetadataAnswer(t *testing.T) {
	w := newWire(t)
	w.do(http.MethodPut, "share?restype=share", http.StatusCreated)
	created := w.do(http.MethodPut, "share/d?restype=directory", http.StatusCreated)
	wantHeader(t, w.do(http.MethodGet, "share/d?restype=directory", http.StatusOK), "x-ms-server-encrypted", "true")

	set := w.do(http.MethodPut, "share/d?restype=directory&comp=metadata", http.StatusOK)
	etag, _ := header(set, "ETag")
	if old, _ := header(created, "ETag"); etag == "" || etag == old {
		t.Errorf("ETag %q after the set, %q before", etag, old)
	}
	modified, ok := header(set, "Last-Modified")
	if _, err := http.ParseTime(modified); !ok || err != nil {
		t.Errorf("Last-Modified %q (present %v): %v", modified, ok, err)
	}
	got := w.do(http.MethodGet, "share/d?restype=directory", http.StatusOK)
	wantHeader(t, got, "ETag", etag)
	wantHeader(t, got, "Last-Modified", modified)
	wantHeader(t, got, "x-ms-server-encrypted", "false")

	w.do(http.MethodPut, "share/d?restype=directory&comp=metadata", http.StatusOK, "x-ms-meta-k", "v")
	wantHeader(t, w.do(http.MethodGet, "share/d?restype=directory", http.StatusOK), "x-ms-server-encrypted", "true")

	// So does a file (@azure/storage-file-share's recording "setMetadata
	// with cleaning up metadata").
	w.do(http.MethodPut, "share/f", http.StatusCreated, "x-ms-type", "file", "x-ms-content-length", "1")
	wantHeader(t, w.do(http.MethodHead, "share/f", http.StatusOK), "x-ms-server-encrypted", "true")
	w.do(http.MethodPut, "share/f?comp=metadata", http.StatusOK)
	wantHeader(t, w.do(http.MethodHead, "share/f", http.StatusOK), "x-ms-server-encrypted", "false")
}

// TestCreateFileAddsArchive: a new file has Archive whatever attributes
// the create names (the Python recording test_create_file), while Set
// File Properties sets exactly what it names.
func TestCreateFileAddsArchive(t *testing.T) {
	w := newWire(t)
	w.do(http.MethodPut, "share?restype=share", http.StatusCreated)
	for attrs, want := range map[string]string{"hidden": "Hidden | Archive", "None": "Archive", "ReadOnly|System": "ReadOnly | System | Archive", "Archive": "Archive"} {
		rec := w.do(http.MethodPut, "share/f", http.StatusCreated, "x-ms-type", "file", "x-ms-content-length", "1", "x-ms-file-attributes", attrs)
		wantHeader(t, rec, "x-ms-file-attributes", want)
		wantHeader(t, w.do(http.MethodHead, "share/f", http.StatusOK), "x-ms-file-attributes", want)
		w.do(http.MethodPut, "share/f?comp=properties", http.StatusOK, "x-ms-file-attributes", "None")
	}
	rec := w.do(http.MethodPut, "share/f?comp=properties", http.StatusOK, "x-ms-file-attributes", "Hidden")
	wantHeader(t, rec, "x-ms-file-attributes", "Hidden")
}

// TestFileContentType: Create File without x-ms-content-type keeps the
// request's Content-Type as the file's (the Python SDK sends
// application/xml: recordings test_create_file, test_file_exists); a
// resize that names no content header keeps them (test_resize_file),
// and a Set File Properties without one clears them.
func TestFileContentType(t *testing.T) {
	w := newWire(t)
	w.do(http.MethodPut, "share?restype=share", http.StatusCreated)
	w.do(http.MethodPut, "share/f", http.StatusCreated, "x-ms-type", "file", "x-ms-content-length", "1024", "Content-Type", "application/xml")
	wantHeader(t, w.do(http.MethodHead, "share/f", http.StatusOK), "Content-Type", "application/xml")

	w.do(http.MethodPut, "share/f?comp=properties", http.StatusOK, "x-ms-content-length", "5", "x-ms-file-permission", "preserve")
	rec := w.do(http.MethodHead, "share/f", http.StatusOK)
	wantHeader(t, rec, "Content-Type", "application/xml")
	wantHeader(t, rec, "Content-Length", "5")

	w.do(http.MethodPut, "share/f?comp=properties", http.StatusOK, "x-ms-content-length", "6", "x-ms-content-language", "en")
	rec = w.do(http.MethodHead, "share/f", http.StatusOK)
	wantHeader(t, rec, "Content-Type", "application/octet-stream")
	wantHeader(t, rec, "Content-Language", "en")

	w.do(http.MethodPut, "share/g", http.StatusCreated, "x-ms-type", "file", "x-ms-content-length", "1", "Content-Type", "application/xml", "x-ms-content-type", "text/plain")
	wantHeader(t, w.do(http.MethodHead, "share/g", http.StatusOK), "Content-Type", "text/plain")
	w.do(http.MethodPut, "share/g?comp=properties", http.StatusOK)
	wantHeader(t, w.do(http.MethodHead, "share/g", http.StatusOK), "Content-Type", "application/octet-stream")
}

// TestAnswersFollowVersion: an older x-ms-version gets the answer Azure
// gave it. At 2018-03-28 List Shares reports a share's Last-Modified,
// Etag and Quota only (StorageShareSuite TestListShares) and List
// Directories and Files no ids (StorageDirSuite TestListDirsAndFiles,
// TestListZeroDirsAndFiles); a newer version has them (the Python
// recording test_list_subdirectories_and_files). Get Share Properties
// says the share has no immutability policy or legal hold
// (StorageShareSuite TestShareExists).
func TestAnswersFollowVersion(t *testing.T) {
	w := newWire(t)
	w.do(http.MethodPut, "share?restype=share", http.StatusCreated)
	w.do(http.MethodPut, "share/d?restype=directory", http.StatusCreated)
	w.do(http.MethodPut, "share/f", http.StatusCreated, "x-ms-type", "file", "x-ms-content-length", "512")

	type shareList struct {
		Shares []struct {
			Properties struct {
				Items []struct{ XMLName xml.Name } `xml:",any"`
			} `xml:"Properties"`
		} `xml:"Shares>Share"`
	}
	for _, c := range []struct {
		version string
		props   string
		ids     bool
	}{
		{"2018-03-28", "Last-Modified Etag Quota", false},
		{"2019-12-12", "Last-Modified Etag Quota AccessTier AccessTierChangeTime", false},
		{"2020-04-08", "Last-Modified Etag LeaseStatus LeaseState Quota AccessTier AccessTierChangeTime DefaultEncryptionScope DenyEncryptionScopeOverride", true},
		{"2026-02-06", "Last-Modified Etag LeaseStatus LeaseState Quota AccessTier AccessTierChangeTime DefaultEncryptionScope DenyEncryptionScopeOverride", true},
	} {
		var shares shareList
		body := w.do(http.MethodGet, "?comp=list", http.StatusOK, "x-ms-version", c.version).Body.Bytes()
		if err := xml.Unmarshal(body, &shares); err != nil || len(shares.Shares) != 1 {
			t.Fatalf("%s: list shares %s: %v", c.version, body, err)
		}
		var names []string
		for _, item := range shares.Shares[0].Properties.Items {
			names = append(names, item.XMLName.Local)
		}
		if got := strings.Join(names, " "); got != c.props {
			t.Errorf("%s: share properties %q, want %q", c.version, got, c.props)
		}

		body = w.do(http.MethodGet, "share?restype=directory&comp=list", http.StatusOK, "x-ms-version", c.version).Body.Bytes()
		ids := strings.Count(string(body), "<FileId>")
		hasDir := strings.Contains(string(body), "<DirectoryId>")
		if c.ids && (ids != 2 || !hasDir) || !c.ids && (ids != 0 || hasDir) {
			t.Errorf("%s: listing %s, want ids %v", c.version, body, c.ids)
		}

		rec := w.do(http.MethodHead, "share?restype=share", http.StatusOK, "x-ms-version", c.version)
		wantHeader(t, rec, "x-ms-has-immutability-policy", "false")
		wantHeader(t, rec, "x-ms-has-legal-hold", "false")
	}
}
