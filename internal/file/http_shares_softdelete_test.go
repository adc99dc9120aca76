package file

import (
	"encoding/xml"
	"net/http"
	"strings"
	"testing"
)

// deletedListXML reads what List Shares says of each share.
type deletedListXML struct {
	Shares []struct {
		Name       string `xml:"Name"`
		Deleted    bool   `xml:"Deleted"`
		Version    string `xml:"Version"`
		Properties struct {
			Items []struct {
				XMLName xml.Name
				Value   string `xml:",chardata"`
			} `xml:",any"`
		} `xml:"Properties"`
	} `xml:"Shares>Share"`
}

func listDeleted(t *testing.T, w *wire, prefix string) deletedListXML {
	t.Helper()
	var doc deletedListXML
	body := w.do(http.MethodGet, "?comp=list&include=deleted&prefix="+prefix, http.StatusOK, "x-ms-version", "2023-08-03").Body.Bytes()
	if err := xml.Unmarshal(body, &doc); err != nil {
		t.Fatalf("list %s: %v", body, err)
	}
	return doc
}

// TestRestoreShareWire: Restore Share's header checks (the Go SDK's
// TestShareRestoreFailures: an empty version is MissingRequiredHeader
// naming it; the Java SDK's restoreShareError: an unknown version is
// ShareNotFound), a deleted share's listing entry as the Java SDK's
// restoreShareMin recorded it, and the restore's 201 with a new ETag.
func TestRestoreShareWire(t *testing.T) {
	w := newWire(t, WithShareRetention(7))
	w.do(http.MethodPut, "shr?restype=share", http.StatusCreated)
	w.do(http.MethodPut, "shr/f", http.StatusCreated, "x-ms-type", "file", "x-ms-content-length", "2")
	restore := "shr?restype=share&comp=undelete"
	rec := w.do(http.MethodPut, restore, http.StatusBadRequest, "x-ms-deleted-share-version", "01D60F8BB59A4652")
	if !strings.Contains(rec.Body.String(), "<HeaderName>x-ms-deleted-share-name</HeaderName>") {
		t.Errorf("missing name: %s", rec.Body.Bytes())
	}
	rec = w.do(http.MethodPut, restore, http.StatusBadRequest, "x-ms-deleted-share-name", "shr", "x-ms-deleted-share-version", "")
	if code, _ := header(rec, "x-ms-error-code"); code != "MissingRequiredHeader" || !strings.Contains(rec.Body.String(), "<HeaderName>x-ms-deleted-share-version</HeaderName>") {
		t.Errorf("empty version: %s %s", code, rec.Body.Bytes())
	}
	rec = w.do(http.MethodPut, restore, http.StatusNotFound, "x-ms-deleted-share-name", "shr", "x-ms-deleted-share-version", "01D60F8BB59A4652")
	if code, _ := header(rec, "x-ms-error-code"); code != "ShareNotFound" {
		t.Errorf("unknown version: %s", code)
	}
	if doc := listDeleted(t, w, "shr"); len(doc.Shares) != 1 || doc.Shares[0].Deleted {
		t.Fatalf("live listing %+v", doc)
	}

	created := w.do(http.MethodGet, "shr?restype=share", http.StatusOK).Header().Get("ETag")
	w.do(http.MethodDelete, "shr?restype=share", http.StatusAccepted)
	w.do(http.MethodGet, "shr?restype=share", http.StatusNotFound)
	w.do(http.MethodHead, "shr/f", http.StatusNotFound)
	if doc := w.do(http.MethodGet, "?comp=list&prefix=shr", http.StatusOK).Body.String(); strings.Contains(doc, "<Name>") {
		t.Fatalf("a deleted share listed without include=deleted: %s", doc)
	}
	doc := listDeleted(t, w, "shr")
	if len(doc.Shares) != 1 {
		t.Fatalf("deleted listing %+v", doc)
	}
	d := doc.Shares[0]
	var names []string
	props := map[string]string{}
	for _, it := range d.Properties.Items {
		names = append(names, it.XMLName.Local)
		props[it.XMLName.Local] = it.Value
	}
	if !d.Deleted || len(d.Version) != 16 || props["LeaseStatus"] != "unlocked" || props["LeaseState"] != "broken" || props["DeletedTime"] == "" || props["RemainingRetentionDays"] != "7" {
		t.Fatalf("deleted entry %+v", d)
	}
	want := "Last-Modified Etag LeaseStatus LeaseState Quota AccessTier AccessTierChangeTime DefaultEncryptionScope DenyEncryptionScopeOverride DeletedTime RemainingRetentionDays"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("deleted entry's properties %q, want %q", got, want)
	}

	w.do(http.MethodPut, "other?restype=share&comp=undelete", http.StatusNotImplemented, "x-ms-deleted-share-name", "shr", "x-ms-deleted-share-version", d.Version)
	rec = w.do(http.MethodPut, restore, http.StatusCreated, "x-ms-deleted-share-name", "shr", "x-ms-deleted-share-version", d.Version)
	if etag := rec.Header().Get("ETag"); etag == "" || etag == created || rec.Header().Get("Last-Modified") == "" {
		t.Errorf("restore answered ETag %q (created %q)", etag, created)
	}
	w.do(http.MethodHead, "shr/f", http.StatusOK)
	w.do(http.MethodPut, restore, http.StatusNotFound, "x-ms-deleted-share-name", "shr", "x-ms-deleted-share-version", d.Version)
}
