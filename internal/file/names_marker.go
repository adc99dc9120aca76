package file

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// A continuation marker is a name (List Directories and Files) or a
// handle's position (List Handles, Force Close Handles), which XML cannot
// carry when the name holds U+FFFE, U+FFFF or another character outside
// XML 1.0. Such a marker goes out as Azure writes one, "1!<n>!<base64>"
// with n the length of the base64 text and its padding written '-'
// (the azfile recording TestListFileDirEncodedContinuationToken:
// "1!12!ZmlsZTHvv74-" for "file1\uFFFE"); every other marker stays as it
// is, so a marker is unchanged for the names XML carries.

// encodeMarker returns the marker as a listing or header writes it.
func encodeMarker(m string) string {
	if azhttp.XMLSafe(m) {
		return m
	}
	b := strings.ReplaceAll(base64.StdEncoding.EncodeToString([]byte(m)), "=", "-")
	return "1!" + strconv.Itoa(len(b)) + "!" + b
}

// decodeMarker reads a marker a client sends back. Only a marker that
// encodeMarker could have written is decoded: one whose text is not
// XML-safe. Any other is taken as it is, so a file named like an encoded
// marker still resumes a listing at itself.
func decodeMarker(m string) string {
	rest, ok := strings.CutPrefix(m, "1!")
	if !ok {
		return m
	}
	n, b, ok := strings.Cut(rest, "!")
	if !ok || n != strconv.Itoa(len(b)) {
		return m
	}
	raw, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(b, "-", "="))
	if err != nil || azhttp.XMLSafe(string(raw)) {
		return m
	}
	return string(raw)
}
