package file

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// permissionJSON is the body of Create Permission and Get Permission.
type permissionJSON struct {
	Permission string `json:"permission"`
	Format     string `json:"format,omitempty"`
}

// binaryPermissionFormat reads a permission format: SDDL, the default,
// or binary (a base64 security descriptor).
func binaryPermissionFormat(name, v string) (bool, error) {
	switch {
	case v == "" || strings.EqualFold(v, "sddl"):
		return false, nil
	case strings.EqualFold(v, "binary"):
		return true, nil
	}
	return false, azerr.InvalidHeaderValue(name, v)
}

func (h *handler) createPermission(q *request) error {
	body, err := io.ReadAll(io.LimitReader(q.r.Body, 2*MaxPermissionSize+1))
	if err != nil {
		return err
	}
	if len(body) > 2*MaxPermissionSize {
		return azerr.ErrRequestBodyTooLarge
	}
	var doc permissionJSON
	if err := json.Unmarshal(body, &doc); err != nil {
		return azerr.ErrInvalidInput.WithMessage("The request body is not a JSON permission document.")
	}
	if doc.Permission == "" {
		return azerr.ErrInvalidInput.WithMessage("The permission document has no permission.")
	}
	binary, err := binaryPermissionFormat("format", doc.Format)
	if err != nil {
		return err
	}
	if binary {
		if doc.Permission, err = BinaryToSDDL(doc.Permission); err != nil {
			return err
		}
	}
	key, err := h.svc.CreatePermission(q.ctx(), q.shareRef(), doc.Permission)
	if err != nil {
		return err
	}
	q.w.Header().Set("X-Ms-File-Permission-Key", key)
	return azhttp.WriteEmpty(q.w, http.StatusCreated)
}

func (h *handler) getPermission(q *request) error {
	key := q.r.Header.Get("X-Ms-File-Permission-Key")
	if key == "" {
		return azerr.MissingRequiredHeader("x-ms-file-permission-key")
	}
	if !validPermissionKey(key) {
		// A key not of the form digits*digits is a malformed header
		// (Java's recording ShareApiTests.getPermissionError); a well
		// formed one no permission has is FileInvalidPermissionKey.
		return azerr.InvalidHeaderValue("x-ms-file-permission-key", key)
	}
	format := q.r.Header.Get("X-Ms-File-Permission-Format")
	binary, err := binaryPermissionFormat("x-ms-file-permission-format", format)
	if err != nil {
		return err
	}
	sddl, err := h.svc.GetPermission(q.ctx(), q.shareRef(), key)
	if err != nil {
		return err
	}
	doc := permissionJSON{Permission: sddl}
	if binary {
		if doc.Permission, err = SDDLToBinary(sddl); err != nil {
			return err
		}
	}
	if q.since(permissionFormatVersion) {
		// In lowercase, asked for or not (test_get_permission_format).
		doc.Format = "sddl"
		if binary {
			doc.Format = "binary"
		}
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	// Azure's answer has no Content-Type (every recorded Get Permission);
	// this one keeps it: @azure/storage-file-share 12.x leaves a body it
	// is not told is JSON unparsed (permission undefined).
	hdr := q.w.Header()
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	q.w.WriteHeader(http.StatusOK)
	_, _ = q.w.Write(body) // the status is sent: a failed write has no one to tell
	return nil
}
