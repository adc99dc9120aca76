package file

import (
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
)

// smbTimeLayout is how FileREST writes SMB times: ISO 8601 with seven
// fractional digits, which the SDKs parse exactly.
const smbTimeLayout = "2006-01-02T15:04:05.0000000Z"

// ntfsAttributes are the attribute names FileREST accepts, in the order
// Azure reports them.
var ntfsAttributes = []string{"ReadOnly", "Hidden", "System", "Directory", "Archive", "Temporary", "Offline", "NotContentIndexed", "NoScrubData"}

// parseAttributes reads x-ms-file-attributes: "None" or names joined by
// '|'. It returns "" for the default.
func parseAttributes(h http.Header, dir bool) (string, error) {
	v := h.Get("X-Ms-File-Attributes")
	if v == "" || strings.EqualFold(strings.TrimSpace(v), "None") || strings.EqualFold(v, "preserve") {
		return "", nil
	}
	set := map[string]bool{}
	for _, part := range strings.Split(v, "|") {
		part = strings.TrimSpace(part)
		found := false
		for _, a := range ntfsAttributes {
			if strings.EqualFold(a, part) {
				set[a], found = true, true
			}
		}
		if !found {
			return "", azerr.InvalidHeaderValue("x-ms-file-attributes", v)
		}
	}
	if dir {
		set["Directory"] = true
	} else if set["Directory"] {
		return "", azerr.InvalidHeaderValue("x-ms-file-attributes", v).WithMessage("A file cannot have the Directory attribute.")
	}
	var out []string
	for _, a := range ntfsAttributes {
		if set[a] {
			out = append(out, a)
		}
	}
	return strings.Join(out, " | "), nil
}

// parseSMBTime reads one of the x-ms-file-*-time headers: absent, "now"
// or "preserve" take the request's time (nil); otherwise ISO 8601.
func parseSMBTime(h http.Header, name string) (*time.Time, error) {
	v := h.Get(name)
	if v == "" || strings.EqualFold(v, "now") || strings.EqualFold(v, "preserve") {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return nil, azerr.InvalidHeaderValue(name, v)
	}
	return &t, nil
}

// parseSMB reads the SMB property headers of a create.
// errBothPermissions is Azure's answer to a request carrying an SDDL and
// a permission key (Java's recording FileApiTests.renameFilePermissionAndKeySet),
// checked before anything else the request says.
var errBothPermissions = &azerr.Error{Status: http.StatusBadRequest, Code: "BothPermissionAndPermissionKeyHeaderPresent",
	Message: "Both x-ms-file-permission header and x-ms-file-permission-key header are present."}

// checkOnePermission refuses an SDDL beside a permission key; "inherit"
// and "preserve" name no permission and may come with a key.
func checkOnePermission(h http.Header) error {
	if h.Get("X-Ms-File-Permission-Key") != "" && !namesNoPermission(h.Get("X-Ms-File-Permission")) {
		return errBothPermissions
	}
	return nil
}

// namesNoPermission reports whether an x-ms-file-permission value is
// none, "inherit" or "preserve", rather than an SDDL or binary form.
func namesNoPermission(p string) bool {
	return p == "" || strings.EqualFold(p, "inherit") || strings.EqualFold(p, "preserve")
}

func parseSMB(h http.Header, dir bool) (SMBChange, error) {
	var c SMBChange
	if err := checkOnePermission(h); err != nil {
		return c, err
	}
	var err error
	if c.Attributes, err = parseAttributes(h, dir); err != nil {
		return c, err
	}
	if c.CreationTime, err = parseSMBTime(h, "x-ms-file-creation-time"); err != nil {
		return c, err
	}
	if c.LastWriteTime, err = parseSMBTime(h, "x-ms-file-last-write-time"); err != nil {
		return c, err
	}
	if c.ChangeTime, err = parseSMBTime(h, "x-ms-file-change-time"); err != nil {
		return c, err
	}
	if c.NFS, err = parseNFS(h); err != nil {
		return c, err
	}
	c.PermissionKey = h.Get("X-Ms-File-Permission-Key")
	switch p := h.Get("X-Ms-File-Permission"); {
	case namesNoPermission(p):
	case len(p) > 8<<10:
		return c, azerr.InvalidHeaderValue("x-ms-file-permission", "").WithMessage("A permission in a header holds at most 8 KiB.")
	default:
		binary, err := binaryPermissionFormat("x-ms-file-permission-format", h.Get("X-Ms-File-Permission-Format"))
		if err != nil {
			return c, err
		}
		if binary {
			if p, err = BinaryToSDDL(p); err != nil {
				return c, err
			}
		}
		c.Permission = p
	}
	return c, nil
}

// permissionKey names a permission the way x-ms-file-permission-key does;
// "" (no permission set) is the default permission and has its key.
func permissionKey(sddl string) string {
	if sddl == "" {
		sddl = defaultPermission
	}
	f := fnv.New64a()
	_, _ = f.Write([]byte("cerulean-permission:" + sddl)) // hash writes never fail
	return fmt.Sprintf("%d*%d", f.Sum64(), 1)
}

// writeSMB sets the SMB property headers Azure returns for a directory or
// file; an NFS share's node has its times and IDs, and POSIX properties
// where an SMB share's has attributes and a permission (nfs.go).
func writeSMB(h http.Header, n *Node) {
	h.Set("X-Ms-File-Creation-Time", n.SMB.CreationTime.UTC().Format(smbTimeLayout))
	h.Set("X-Ms-File-Last-Write-Time", n.SMB.LastWriteTime.UTC().Format(smbTimeLayout))
	h.Set("X-Ms-File-Change-Time", n.SMB.ChangeTime.UTC().Format(smbTimeLayout))
	h.Set("X-Ms-File-Id", strconv.FormatUint(n.ID, 10))
	h.Set("X-Ms-File-Parent-Id", strconv.FormatUint(n.ParentID, 10))
	if n.NFS != nil {
		writeNFS(h, n, false, false)
		return
	}
	h.Set("X-Ms-File-Attributes", n.SMB.Attributes)
	h.Set("X-Ms-File-Permission-Key", permissionKey(n.PermissionSDDL()))
}

// writeNode sets what every answer about a directory or file carries.
func writeNode(h http.Header, n *Node) {
	h.Set("Etag", azhttp.ETag(n.Version))
	h.Set("Last-Modified", azhttp.HTTPTime(n.Modified))
	h.Set("X-Ms-Request-Server-Encrypted", "true")
	writeSMB(h, n)
}

// contentHeaderNames are the request headers that set a file's content
// headers.
var contentHeaderNames = []string{"x-ms-content-type", "x-ms-content-encoding", "x-ms-content-language", "x-ms-content-disposition", "x-ms-cache-control", "x-ms-content-md5"}

// hasContentHeader reports whether h names any of a file's content
// headers.
func hasContentHeader(h http.Header) bool {
	for _, name := range contentHeaderNames {
		if _, ok := h[http.CanonicalHeaderKey(name)]; ok {
			return true
		}
	}
	return false
}

// parseContentHeaders reads the x-ms-content-* headers of a Create File
// or Set File Properties.
func parseContentHeaders(h http.Header) (ContentHeaders, error) {
	c := ContentHeaders{
		ContentType:        h.Get("X-Ms-Content-Type"),
		ContentEncoding:    h.Get("X-Ms-Content-Encoding"),
		ContentLanguage:    h.Get("X-Ms-Content-Language"),
		ContentDisposition: h.Get("X-Ms-Content-Disposition"),
		CacheControl:       h.Get("X-Ms-Cache-Control"),
	}
	if v := h.Get("X-Ms-Content-Md5"); v != "" {
		// Any base64 is stored and returned as given, not only 16 bytes:
		// Azure keeps "TURBd01EQXdNREE9" (12 bytes) and reports it (the
		// azfile recording TestFileSetHTTPHeadersNfs).
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			return c, azerr.InvalidHeaderValue("x-ms-content-md5", v)
		}
		c.ContentMD5 = b
	}
	return c, nil
}

// writeFileHeaders sets a file's properties on a Get File or Get File
// Properties answer, its lease as it stands at now.
func writeFileHeaders(h http.Header, n *Node, now time.Time) {
	writeNode(h, n)
	// Get File reports an NFS file's link count but not its type, which
	// Get File Properties adds (the Python recording
	// test_download_and_copy_file_nfs).
	nfsDetails(h, n, false, true)
	h.Set("X-Ms-Type", "File")
	h.Set("Content-Type", n.Headers.ContentType)
	if n.Headers.ContentType == "" {
		h.Set("Content-Type", "application/octet-stream")
	}
	set := func(name, v string) {
		if v != "" {
			h.Set(name, v)
		}
	}
	set("Content-Encoding", n.Headers.ContentEncoding)
	set("Content-Language", n.Headers.ContentLanguage)
	set("Content-Disposition", n.Headers.ContentDisposition)
	set("Cache-Control", n.Headers.CacheControl)
	h.Set("X-Ms-Server-Encrypted", strconv.FormatBool(!n.MetadataCleared))
	azhttp.WriteLeaseState(h, n.Lease, now)
	writeCopyHeaders(h, n.Copy)
	azhttp.WriteMetadata(h, n.Metadata)
}

// preconditions reads a request's conditional headers.
func preconditions(h http.Header) Preconditions {
	return Preconditions{Conditions: conditions.FromHeader(h, ""), LeaseID: h.Get("X-Ms-Lease-Id")}
}

func serviceEndpoint(q *request) string {
	return azhttp.AccountURL(q.r, q.acct)
}

// includes reports which include= values a listing asked for.
func includes(v string) map[string]bool {
	out := map[string]bool{}
	for _, part := range strings.Split(v, ",") {
		out[strings.TrimSpace(strings.ToLower(part))] = true
	}
	return out
}
