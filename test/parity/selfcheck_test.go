package parity

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// breakProxy serves base's service through a reverse proxy that lets
// mutate change each answer, and returns the proxy's base URL (same
// path). It is the deliberately wrong server of the self-check.
func breakProxy(t *testing.T, base string, mutate func(n int, resp *http.Response, body []byte) []byte) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host})
			r.Out.Host = u.Host
		},
		ModifyResponse: func(resp *http.Response) error {
			body, err := io.ReadAll(resp.Body)
			if cerr := resp.Body.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			body = mutate(n, resp, body)
			n++
			resp.Body = io.NopCloser(bytes.NewReader(body))
			resp.ContentLength = int64(len(body))
			resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
			return nil
		},
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.URL + u.Path
}

// TestSelfCheck replays recordings that match through a proxy that
// breaks one thing in one answer; the replayer must report each.
func TestSelfCheck(t *testing.T) {
	load := func(name string) *Recording {
		rec, err := LoadRecording("testdata", "testdata/"+name)
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	queue := load("queue/test_queue.pyTestStorageQueuetest_update_message.json")
	file := load("file/test_directory.pyTestStorageDirectorytest_create_directories_fail_on_exist.json")
	// Recordings whose sanitized forms the replayer undoes (sanitized.go).
	fullMetadata := load("table/test_table_entity.pyTestTableEntitytest_get_entity_full_metadata.json")
	clearRange := load("file/test_file.pyTestStorageFiletest_clear_range.json")
	copyMin := load("blob/java-BlobApiTests.copyMin.json")
	redactedQuery := load("table/java-TableClientTest.getEntityWithResponseWithSelect.json")
	b64Batch := load("table/test_table_batch.pyTestTableBatchtest_new_delete_nonexistent_entity.json")
	sasProcess := load("queue/test_queue_async.pyTestAsyncStorageQueuetest_sas_process.json")
	wrongKey := load("table/test_table_batch.pyTestTableBatchtest_new_invalid_key.json")
	cases := []struct {
		name    string
		rec     *Recording
		service string
		mutate  func(n int, resp *http.Response, body []byte) []byte
		want    string // in the reported reason
	}{
		{"unbroken", queue, "queue", nil, ""},
		{"status code", queue, "queue", func(n int, resp *http.Response, body []byte) []byte {
			if n == 3 {
				resp.StatusCode = http.StatusOK
			}
			return body
		}, "status 200"},
		{"error code", file, "file", func(n int, resp *http.Response, body []byte) []byte {
			if resp.Header.Get("x-ms-error-code") != "" {
				resp.Header.Set("x-ms-error-code", "ResourceTypeMismatch")
				body = bytes.ReplaceAll(body, []byte("ResourceAlreadyExists"), []byte("ResourceTypeMismatch"))
			}
			return body
		}, `error code "ResourceTypeMismatch"`},
		{"header missing", queue, "queue", func(n int, resp *http.Response, body []byte) []byte {
			resp.Header.Del("x-ms-time-next-visible")
			return body
		}, "header x-ms-time-next-visible missing"},
		{"header value", file, "file", func(n int, resp *http.Response, body []byte) []byte {
			if resp.Header.Get("x-ms-file-attributes") != "" {
				resp.Header.Set("x-ms-file-attributes", "Directory | ReadOnly")
			}
			return body
		}, "header x-ms-file-attributes"},
		{"body field", queue, "queue", func(n int, resp *http.Response, body []byte) []byte {
			return bytes.ReplaceAll(body, []byte("<DequeueCount>2<"), []byte("<DequeueCount>1<"))
		}, "DequeueCount"},
		{"body element missing", queue, "queue", func(n int, resp *http.Response, body []byte) []byte {
			return bytes.ReplaceAll(body, []byte("<MessageText>message1</MessageText>"), nil)
		}, `lacks "MessageText"`},
		{"ETag kept across a write", file, "file", func(n int, resp *http.Response, body []byte) []byte {
			if resp.Header.Get("ETag") != "" {
				resp.Header.Set("ETag", `"0x1CE1A0000000000"`)
			}
			return body
		}, "changes the ETag"},
		{"pop receipt not bound", queue, "queue", func(n int, resp *http.Response, body []byte) []byte {
			return bytes.ReplaceAll(body, []byte("<PopReceipt>"), []byte("<PopReceipt>x"))
		}, "status 400"},
		{"unbroken: sanitized account in odata.type", fullMetadata, "table", nil, ""},
		{"odata.type names another table", fullMetadata, "table", func(n int, resp *http.Response, body []byte) []byte {
			return bytes.ReplaceAll(body, []byte(`"odata.type":"devstoreaccount1.uttable3e062a84"`), []byte(`"odata.type":"devstoreaccount1.uttableX"`))
		}, "odata.type"},
		{"unbroken: file bytes labelled XML", clearRange, "file", nil, ""},
		{"file bytes labelled XML differ", clearRange, "file", func(n int, resp *http.Response, body []byte) []byte {
			if resp.StatusCode == http.StatusPartialContent && len(body) > 0 {
				body[len(body)-1] = 'x'
			}
			return body
		}, "body differs"},
		{"unbroken: copy source on a sanitized host", copyMin, "blob", nil, ""},
		{"copy source names another blob", copyMin, "blob", func(n int, resp *http.Response, body []byte) []byte {
			if v := resp.Header.Get("x-ms-copy-source"); v != "" {
				resp.Header.Set("x-ms-copy-source", v+"x")
			}
			return body
		}, "header x-ms-copy-source"},
		{"unbroken: query sanitized to REDACTED", redactedQuery, "table", nil, ""},
		{"unbroken: batch part stored as b64", b64Batch, "table", nil, ""},
		{"unbroken: SAS version sanitized", sasProcess, "queue", nil, ""},
		{"unbroken: signed with a wrong key", wrongKey, "table", nil, ""},
		{"a wrong key accepted", wrongKey, "table", func(n int, resp *http.Response, body []byte) []byte {
			resp.StatusCode = http.StatusAccepted
			return body
		}, "status 202"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			target := startTarget(t, c.rec)
			if c.mutate != nil {
				switch c.service {
				case "queue":
					target.Queue = breakProxy(t, target.Queue, c.mutate)
				case "file":
					target.File = breakProxy(t, target.File, c.mutate)
				case "table":
					target.Table = breakProxy(t, target.Table, c.mutate)
				case "blob":
					target.Blob = breakProxy(t, target.Blob, c.mutate)
				}
			}
			r := target.Replay(c.rec)
			switch {
			case c.want == "" && r.Diff != nil:
				t.Fatalf("the unbroken server differs: %s", r.Diff)
			case c.want != "" && r.Diff == nil:
				t.Fatalf("the replayer did not notice")
			case c.want != "" && !strings.Contains(r.Diff.Reason, c.want):
				t.Fatalf("reported %q, want it to mention %q", r.Diff, c.want)
			}
		})
	}
}
