package console_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/console"
	"github.com/cerulean-db/cerulean/internal/servertest"
)

// TestProxySignsForTheAccountThePageNames: with further Storage accounts
// configured, a request naming one (X-Cerulean-Account) is signed for it
// and reaches its path, one naming none is the default account's, and an
// account the console does not reach is refused rather than sent to the
// default one.
func TestProxySignsForTheAccountThePageNames(t *testing.T) {
	key := []byte("second account's key, 32 bytes..")
	env := servertest.Start(t, servertest.WithAccountsEnv(func(name string) string {
		if name == "CERULEAN_ACCOUNTS" {
			return "second:" + base64.StdEncoding.EncodeToString(key)
		}
		return ""
	}))
	h, err := console.New(console.Config{
		BlobURL: env.BlobURL, QueueURL: env.QueueURL, TableURL: env.TableURL, FileURL: env.FileURL,
		Account: env.Account, Key: env.Key,
		MoreAccounts: []console.StorageAccount{{Name: "second", Key: key}},
	})
	if err != nil {
		t.Fatal(err)
	}
	site := httptest.NewServer(h)
	t.Cleanup(site.Close)
	second := map[string]string{console.AccountHeader: "second"}

	if resp, body := consoleCall(t, site, "PUT", "/console/api/blob/only-in-second?restype=container", second, ""); resp.StatusCode != 201 {
		t.Fatalf("create a container in the second account: %d %s", resp.StatusCode, body)
	}
	if resp, body := consoleCall(t, site, "PUT", "/console/api/queue/second-queue", second, ""); resp.StatusCode != 201 {
		t.Fatalf("create a queue in the second account: %d %s", resp.StatusCode, body)
	}
	for _, c := range []struct {
		header map[string]string
		want   bool
	}{{second, true}, {nil, false}, {map[string]string{console.AccountHeader: env.Account}, false}} {
		resp, body := consoleCall(t, site, "GET", "/console/api/blob/?comp=list", c.header, "")
		if resp.StatusCode != 200 || strings.Contains(body, "<Name>only-in-second</Name>") != c.want {
			t.Errorf("list containers as %v: %d, lists only-in-second: %v, want %v", c.header, resp.StatusCode, !c.want, c.want)
		}
	}
	resp, body := consoleCall(t, site, "GET", "/console/api/blob/?comp=list", map[string]string{console.AccountHeader: "nobody"}, "")
	if resp.StatusCode != 404 || !strings.Contains(body, "AccountNotConfigured") {
		t.Errorf("an account the console does not reach: %d %s, want 404 AccountNotConfigured", resp.StatusCode, body)
	}

	resp, body = consoleCall(t, site, "GET", "/console/services.json", nil, "")
	var services struct{ Account string }
	var accounts struct{ Accounts []string }
	_ = json.Unmarshal([]byte(body), &services)
	_ = json.Unmarshal([]byte(body), &accounts)
	if resp.StatusCode != 200 || services.Account != env.Account || strings.Join(accounts.Accounts, ",") != env.Account+",second" {
		t.Errorf("services.json: %d %s", resp.StatusCode, body)
	}

	// A link made for the second account reads its blob.
	if resp, body := consoleCall(t, site, "PUT", "/console/api/blob/only-in-second/note.txt", map[string]string{console.AccountHeader: "second", "x-ms-blob-type": "BlockBlob"}, "hello"); resp.StatusCode != 201 {
		t.Fatalf("put blob: %d %s", resp.StatusCode, body)
	}
	resp, body = consoleCall(t, site, "POST", "/console/sas/blob?container=only-in-second&blob=note.txt", second, "")
	var link struct{ URL string }
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &link) != nil || !strings.Contains(link.URL, "/second/only-in-second/note.txt?") {
		t.Fatalf("link in the second account: %d %s", resp.StatusCode, body)
	}
	got, err := http.Get(link.URL)
	if err != nil {
		t.Fatal(err)
	}
	_ = got.Body.Close()
	if got.StatusCode != 200 {
		t.Errorf("GET through the second account's link: %d", got.StatusCode)
	}
}
