package file

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The azfile recording TestListFileDirEncodedContinuationToken: Azure
// continues after "file0\uFFFE" with the marker "1!12!ZmlsZTHvv74-".
func TestMarkerEncoding(t *testing.T) {
	if got := encodeMarker("file1\uFFFE"); got != "1!12!ZmlsZTHvv74-" {
		t.Errorf("encodeMarker(file1\\uFFFE) = %q, want Azure's 1!12!ZmlsZTHvv74-", got)
	}
	for _, m := range []string{"", "plain", "a b+c&d<e>", "é", "1!4!YWJj", "12:dir/f"} {
		if got := encodeMarker(m); got != m {
			t.Errorf("encodeMarker(%q) = %q, want it unchanged", m, got)
		}
		if got := decodeMarker(m); got != m {
			t.Errorf("decodeMarker(%q) = %q, want it unchanged", m, got)
		}
	}
	for _, m := range []string{"file1\uFFFE", "d\uFFFF/f", "7:ctrl\x01", "bad\xff"} {
		enc := encodeMarker(m)
		if enc == m || !strings.HasPrefix(enc, "1!") {
			t.Errorf("encodeMarker(%q) = %q, want it encoded", m, enc)
		}
		if got := decodeMarker(enc); got != m {
			t.Errorf("decodeMarker(encodeMarker(%q)) = %q", m, got)
		}
	}
}

// The azfile recordings TestListFileDirEncoded, ...ContinuationToken and
// ...Prefix: names XML cannot carry are listed percent-encoded with
// Encoded="true", the prefix too, and a page ending before such a name
// continues from a marker XML can carry.
func TestListEncodedNames(t *testing.T) {
	w := newWire(t)
	w.do(http.MethodPut, "share?restype=share", http.StatusCreated)
	w.do(http.MethodPut, "share/directory%EF%BF%BF?restype=directory", http.StatusCreated)
	w.do(http.MethodPut, "share/file0%EF%BF%BE", http.StatusCreated, "x-ms-type", "file", "x-ms-content-length", "2048")
	w.do(http.MethodPut, "share/file1%EF%BF%BE", http.StatusCreated, "x-ms-type", "file", "x-ms-content-length", "2048")

	body := w.do(http.MethodGet, "share?restype=directory&comp=list", http.StatusOK).Body.String()
	for _, want := range []string{
		`<Directory><Name Encoded="true">directory%EF%BF%BF</Name>`,
		`<File><Name Encoded="true">file0%EF%BF%BE</Name>`,
		`<File><Name Encoded="true">file1%EF%BF%BE</Name>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("listing lacks %s:\n%s", want, body)
		}
	}

	body = w.do(http.MethodGet, "share?restype=directory&comp=list&prefix=directory%EF%BF%BF", http.StatusOK).Body.String()
	if !strings.Contains(body, `<Prefix Encoded="true">directory%EF%BF%BF</Prefix>`) {
		t.Errorf("prefix not encoded:\n%s", body)
	}
	body = w.do(http.MethodGet, "share?restype=directory&comp=list&prefix=file", http.StatusOK).Body.String()
	if !strings.Contains(body, `<Prefix>file</Prefix>`) {
		t.Errorf("plain prefix not written as it is:\n%s", body)
	}

	var names []string
	marker := ""
	for range 4 {
		target := "share?restype=directory&comp=list&maxresults=1"
		if marker != "" {
			target += "&marker=" + url.QueryEscape(marker)
		}
		body := w.do(http.MethodGet, target, http.StatusOK).Body.String()
		_, rest, _ := strings.Cut(body, `<Name Encoded="true">`)
		name, _, _ := strings.Cut(rest, "<")
		names = append(names, name)
		_, rest, _ = strings.Cut(body, "<NextMarker>")
		marker, _, _ = strings.Cut(rest, "</NextMarker>")
		if marker == "" {
			break
		}
		if strings.ContainsAny(marker, "\uFFFE\uFFFF\uFFFD") {
			t.Fatalf("marker %q is not XML-safe", marker)
		}
	}
	if got := strings.Join(names, " "); got != "directory%EF%BF%BF file0%EF%BF%BE file1%EF%BF%BE" {
		t.Errorf("paged listing gave %s", got)
	}
}

// The azfile recording TestShareCreateSnapshotNegativeSnapshotOfSnapshot:
// Snapshot Share ignores sharesnapshot, even one that is no time, and
// snapshots the live share.
func TestSnapshotOfSnapshotSnapshotsTheShare(t *testing.T) {
	w := newWire(t)
	w.do(http.MethodPut, "share?restype=share", http.StatusCreated)
	bad := "share?restype=share&comp=snapshot&sharesnapshot=" + url.QueryEscape("2023-03-31 20:00:00 +0000 UTC")
	first, _ := header(w.do(http.MethodPut, bad, http.StatusCreated), "x-ms-snapshot")
	second, _ := header(w.do(http.MethodPut, "share?restype=share&comp=snapshot&sharesnapshot="+url.QueryEscape(first), http.StatusCreated), "x-ms-snapshot")
	if first == "" || second == "" || first == second {
		t.Fatalf("snapshots %q and %q, want two distinct", first, second)
	}
	// Other requests still check the value.
	w.do(http.MethodGet, "share?restype=share&sharesnapshot=nonsense", http.StatusBadRequest)
}

// The azfile recording TestFileResizeInvalidSizeNegative: a resize to a
// negative size is 400 OutOfRangeInput.
func TestResizeNegativeIsOutOfRange(t *testing.T) {
	w := newWire(t)
	w.do(http.MethodPut, "share?restype=share", http.StatusCreated)
	w.do(http.MethodPut, "share/f", http.StatusCreated, "x-ms-type", "file", "x-ms-content-length", "0")
	rec := w.do(http.MethodPut, "share/f?comp=properties", http.StatusBadRequest, "x-ms-content-length", "-4")
	wantHeader(t, rec, "x-ms-error-code", "OutOfRangeInput")
	if !strings.Contains(rec.Body.String(), "The file size exceeds the maximum permissible limit.") {
		t.Errorf("message: %s", rec.Body.String())
	}
	rec = w.do(http.MethodPut, "share/f?comp=properties", http.StatusBadRequest, "x-ms-content-length", "four")
	wantHeader(t, rec, "x-ms-error-code", "InvalidHeaderValue")
}
