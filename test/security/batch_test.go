package security

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// batchBody is a Blob Batch body of DELETE sub-requests for targets,
// which carry no credentials of their own: they act with the batch's.
func batchBody(boundary string, targets ...string) []byte {
	var b strings.Builder
	for i, target := range targets {
		b.WriteString("--" + boundary + "\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\nContent-ID: " +
			itoa(int64(i)) + "\r\n\r\nDELETE " + target + " HTTP/1.1\r\nx-ms-date: " + time.Now().UTC().Format(http.TimeFormat) +
			"\r\nContent-Length: 0\r\n\r\n")
	}
	b.WriteString("--" + boundary + "--\r\n")
	return []byte(b.String())
}

func itoa(n int64) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// TestBatchStaysInItsContainer: a Blob Batch whose sub-requests act with
// the batch's SAS cannot reach beyond what that SAS reaches: a container
// SAS's batch is confined to its container, even by dot segments and
// encoded separators in the sub-request paths, and a container SAS opens
// no account-scope batch.
func TestBatchStaysInItsContainer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	attacker, victim := f.name("batch"), f.name("victim")
	for _, c := range []string{attacker, victim} {
		blobService.createContainer(t, f, c)
		f.prepare(t, "blob", call{method: http.MethodPut, path: c + "/secret", header: map[string]string{"x-ms-blob-type": "BlockBlob"}, body: []byte(secret)})
	}
	sas := sasValues{service: "blob", resource: "/" + f.env.Account + "/" + attacker, sr: "c", permissions: "rd", expiry: f.clock.Now().Add(time.Hour)}
	token := sas.sign(f.env.Account, f.env.Key)
	acct := "/" + f.env.Account + "/"
	const boundary = "batch_security"
	header := map[string]string{"Content-Type": "multipart/mixed; boundary=" + boundary}
	for _, target := range []string{
		acct + victim + "/secret",
		acct + attacker + "/../" + victim + "/secret",
		acct + attacker + "/..%2F" + victim + "%2Fsecret",
		"/" + otherAccount + "/" + victim + "/secret",
	} {
		c := call{method: http.MethodPost, path: attacker, query: q("restype", "container", "comp", "batch"), header: header,
			body: batchBody(boundary, target)}
		resp := f.withSAS(t, "blob", c, token)
		t.Logf("%s: %d %s %.300q", target, resp.StatusCode, resp.Code, resp.Body)
		if resp.StatusCode/100 == 5 || strings.Contains(string(resp.Body), "HTTP/1.1 202") {
			t.Errorf("container batch deleting %s: HTTP %d\n%s", target, resp.StatusCode, resp.Body)
		}
	}
	account := call{method: http.MethodPost, query: q("comp", "batch"), header: header, body: batchBody(boundary, acct+victim+"/secret")}
	// The SAS does not even verify at the account's URL.
	refuses(t, f.withSAS(t, "blob", account, token), "AuthenticationFailed", "account-scope batch with a container SAS")

	// Its own container's blob it may delete; the victim's is untouched.
	own := call{method: http.MethodPost, path: attacker, query: q("restype", "container", "comp", "batch"), header: header,
		body: batchBody(boundary, acct+attacker+"/secret")}
	if resp := f.withSAS(t, "blob", own, token); !strings.Contains(string(resp.Body), "HTTP/1.1 202") {
		t.Errorf("container batch deleting its own blob: HTTP %d\n%s", resp.StatusCode, resp.Body)
	}
	resp := f.withKey(t, "blob", call{method: http.MethodGet, path: victim + "/secret"}, sharedKey)
	if resp.StatusCode != http.StatusOK || string(resp.Body) != secret {
		t.Errorf("the victim's blob after the batches: HTTP %d %q", resp.StatusCode, resp.Body)
	}
}

// TestTableBatchStaysInItsTable: an entity group transaction under a
// table SAS may not write to another table, whichever table its
// operations name.
func TestTableBatchStaysInItsTable(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	own, victim := f.name("own"), f.name("victim")
	for _, name := range []string{own, victim} {
		tableService.createContainer(t, f, name)
	}
	sas := sasValues{service: "table", resource: "/" + f.env.Account + "/" + own, tableName: own, permissions: "raud", expiry: f.clock.Now().Add(time.Hour)}
	token := sas.sign(f.env.Account, f.env.Key)
	insert := func(table, rk string) string {
		return "--changeset_c\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
			"POST " + f.env.TableURL + table + " HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json;odata=nometadata\r\n" +
			"Prefer: return-no-content\r\nDataServiceVersion: 3.0\r\n\r\n" + `{"PartitionKey":"p","RowKey":"` + rk + `"}` + "\r\n"
	}
	batch := func(ops ...string) call {
		body := "--batch_b\r\nContent-Type: multipart/mixed; boundary=changeset_c\r\n\r\n" + strings.Join(ops, "") + "--changeset_c--\r\n--batch_b--\r\n"
		return call{method: http.MethodPost, path: "$batch", header: map[string]string{"Content-Type": "multipart/mixed; boundary=batch_b",
			"Accept": "application/json;odata=nometadata", "DataServiceVersion": "3.0"}, body: []byte(body)}
	}
	for _, ops := range [][]string{
		{insert(victim, "evil")},
		{insert(own, "fine"), insert(victim, "evil")},
	} {
		resp := f.withSAS(t, "table", batch(ops...), token)
		if resp.StatusCode/100 == 5 {
			t.Errorf("batch reaching another table: HTTP %d\n%s", resp.StatusCode, resp.Body)
		}
	}
	got := f.withKey(t, "table", call{method: http.MethodGet, path: victim + "(PartitionKey='p',RowKey='evil')"}, sharedKey)
	if got.StatusCode != http.StatusNotFound {
		t.Errorf("the other table after the batches: HTTP %d %s", got.StatusCode, got.Body)
	}
	// The transaction is all or nothing: its own table's insert is undone.
	got = f.withKey(t, "table", call{method: http.MethodGet, path: own + "(PartitionKey='p',RowKey='fine')"}, sharedKey)
	if got.StatusCode != http.StatusNotFound {
		t.Errorf("the SAS's table after the refused batch: HTTP %d %s", got.StatusCode, got.Body)
	}
	// A batch on its own table goes through.
	resp := f.withSAS(t, "table", batch(insert(own, "ok")), token)
	must2xx(t, resp, "batch on the SAS's own table")
	must2xx(t, f.withKey(t, "table", call{method: http.MethodGet, path: own + "(PartitionKey='p',RowKey='ok')"}, sharedKey), "the batch's entity")
}
