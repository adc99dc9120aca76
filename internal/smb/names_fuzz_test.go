package smb

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/file"
)

// FuzzNamesAgree: SMB and FileREST apply one naming rule to directories
// and files. A file SMB's CREATE makes is addressable over REST, and a
// name SMB refuses as invalid is refused by REST too, so no file exists
// that one protocol can reach and the other cannot. The parents of the
// path are made first, so that only the name decides.
func FuzzNamesAgree(f *testing.F) {
	for _, seed := range []string{
		"a.txt", "dir/sub/f", "é", "x y", "trailing.", "a\x7fb", "日本語/ファイル",
		strings.Repeat("e", 255), strings.Repeat("é", 200), strings.Repeat("😀", 200),
		strings.Repeat(strings.Repeat("d", 250)+"/", 9) + "f",
		"a::$DATA", "a%2Fb", "a+b", "con", "a;b=c&d",
	} {
		f.Add(seed)
	}
	cred, err := service.NewSharedKeyCredential(azauth.DevAccount, azauth.DevKey)
	if err != nil {
		f.Fatal(err)
	}
	qp, err := sas.AccountSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: time.Now().Add(24 * time.Hour),
		Permissions: "rwdlc", ResourceTypes: "sco"}.SignWithSharedKey(cred)
	if err != nil {
		f.Fatal(err)
	}
	token := qp.Encode()
	f.Fuzz(func(t *testing.T, path string) {
		elems := strings.Split(path, "/")
		if len(path) > 8<<10 || strings.Contains(path, "\\") || !utf8.ValidString(path) {
			return // a backslash is SMB's separator; SMB names are UTF-16, which holds only valid text
		}
		c, _ := loggedOn(t)
		files := c.srv.files
		ctx := t.Context()
		if _, err := files.CreateShare(ctx, file.ShareRef{Account: azauth.DevAccount, Share: "names"}, file.ShareSpec{}); err != nil {
			t.Fatal(err)
		}
		c.sessions[1].trees[3] = &tree{id: 3, share: "names"}
		for i := 1; i < len(elems); i++ {
			if _, err := files.CreateDirectory(ctx, file.Ref{Account: azauth.DevAccount, Share: "names", Path: strings.Join(elems[:i], "/")}, file.SMBChange{}, nil); err != nil {
				return // a parent the domain does not take either
			}
		}
		rest := func(method, path string) int {
			elems := strings.Split(path, "/")
			escaped := make([]string, len(elems))
			for i, e := range elems {
				escaped[i] = url.PathEscape(e)
			}
			req, err := http.NewRequest(method, "http://127.0.0.1/"+azauth.DevAccount+"/names/"+strings.Join(escaped, "/")+"?"+token, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("x-ms-version", "2025-05-05")
			// REST drops a name's trailing dots unless told not to, as
			// Azure does; SMB keeps them.
			req.Header.Set("x-ms-allow-trailing-dot", "true")
			req.Header.Set("x-ms-type", "file")
			req.Header.Set("x-ms-content-length", "0")
			rec := httptest.NewRecorder()
			file.NewHandler(files).ServeHTTP(rec, req)
			return rec.Code
		}
		out, err := c.handleFrame(testRequest(cmdCreate, 3, createBody(strings.ReplaceAll(path, "/", "\\"), 0x12019f, 2, optNonDirectory)))
		if err != nil {
			t.Fatalf("create %q: %v", path, err)
		}
		switch st := le.Uint32(out[8:]); st {
		case statusSuccess:
			// SMB names a file's data stream "name::$DATA" too.
			created, _ := strings.CutSuffix(path, "::$DATA")
			if code := rest(http.MethodHead, created); code != http.StatusOK {
				t.Fatalf("SMB created %q, REST answers %d for it", path, code)
			}
		case statusObjectNameInvalid:
			if code := rest(http.MethodPut, path); code < 400 {
				t.Fatalf("SMB refused the name %q, REST created it (%d)", path, code)
			}
		}
	})
}
