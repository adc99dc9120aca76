package console_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestBlobLinkReadsTheBlobAndNothingElse: the shareable link the console
// makes reads its blob (or the snapshot it names) with no other
// credential, as the Blob service's own SAS check sees it, and neither
// writes the blob nor reads another one.
func TestBlobLinkReadsTheBlobAndNothingElse(t *testing.T) {
	site, _ := startConsole(t)
	consoleCall(t, site, "PUT", "/console/api/blob/shared?restype=container", nil, "")
	put := map[string]string{"x-ms-blob-type": "BlockBlob"}
	for name, body := range map[string]string{"reports/2026/q4 plan.txt": "plan", "other.txt": "other"} {
		if resp, b := consoleCall(t, site, "PUT", "/console/api/blob/shared/"+escapeName(name), put, body); resp.StatusCode != 201 {
			t.Fatalf("put %s: %d %s", name, resp.StatusCode, b)
		}
	}
	resp, _ := consoleCall(t, site, "PUT", "/console/api/blob/shared/"+escapeName("reports/2026/q4 plan.txt")+"?comp=snapshot", nil, "")
	snapshot := resp.Header.Get("x-ms-snapshot")
	if resp.StatusCode != 201 || snapshot == "" {
		t.Fatalf("snapshot: %d", resp.StatusCode)
	}
	if resp, b := consoleCall(t, site, "PUT", "/console/api/blob/shared/"+escapeName("reports/2026/q4 plan.txt"), put, "plan v2"); resp.StatusCode != 201 {
		t.Fatalf("overwrite: %d %s", resp.StatusCode, b)
	}

	link := func(query string) string {
		t.Helper()
		resp, body := consoleCall(t, site, "POST", "/console/sas/blob?"+query, nil, "")
		var out struct{ URL, Expiry string }
		if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &out) != nil || out.URL == "" || out.Expiry == "" {
			t.Fatalf("link for %s: %d %s", query, resp.StatusCode, body)
		}
		return out.URL
	}
	get := func(method, u string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, u, strings.NewReader("x"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("x-ms-blob-type", "BlockBlob")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode, string(b)
	}

	blob := url.Values{"container": {"shared"}, "blob": {"reports/2026/q4 plan.txt"}, "hours": {"2"}}
	current := link(blob.Encode())
	if status, body := get("GET", current); status != 200 || body != "plan v2" {
		t.Errorf("GET through the link: %d %q, want 200 %q", status, body, "plan v2")
	}
	if status, _ := get("PUT", current); status != http.StatusForbidden {
		t.Errorf("PUT through the read link: %d, want 403", status)
	}
	other := strings.Replace(current, "reports/2026/q4%20plan.txt", "other.txt", 1)
	if status, _ := get("GET", other); status != http.StatusForbidden {
		t.Errorf("the link's signature used for another blob: %d, want 403", status)
	}
	blob.Set("snapshot", snapshot)
	if status, body := get("GET", link(blob.Encode())); status != 200 || body != "plan" {
		t.Errorf("GET through the snapshot's link: %d %q, want 200 %q", status, body, "plan")
	}

	for _, bad := range []string{"container=shared", "container=shared&blob=other.txt&hours=0", "container=shared&blob=other.txt&hours=10000"} {
		if resp, body := consoleCall(t, site, "POST", "/console/sas/blob?"+bad, nil, ""); resp.StatusCode != 400 {
			t.Errorf("link for %s: %d %s, want 400", bad, resp.StatusCode, body)
		}
	}
	// Like the proxy, the link maker answers only the console's page.
	if resp, _ := send(t, site, "POST", site.URL+"/console/sas/blob?container=shared&blob=other.txt", "", nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a link requested without the console header: %d, want 403", resp.StatusCode)
	}
}

func escapeName(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}
