package file

import "github.com/cerulean-db/cerulean/internal/azhttp"

// Versions of the Files REST API from which an answer carries more. An
// older x-ms-version gets the answer Azure gave it: the Go SDK's
// recordings at 2018-03-28 list shares with only Last-Modified, Etag and
// Quota, and entries without ids.
const (
	// shareTierVersion added share access tiers (AccessTier,
	// AccessTierChangeTime).
	shareTierVersion = "2019-12-12"
	// shareLeaseVersion added share leases (LeaseStatus, LeaseState,
	// LeaseDuration) and a share's EnabledProtocols.
	shareLeaseVersion = "2020-02-10"
	// listingIDVersion added the listed directory's DirectoryId and each
	// entry's FileId to List Directories and Files.
	listingIDVersion = "2020-04-08"
	// createDataVersion let Create File carry the file's first 4 MiB.
	createDataVersion = "2026-02-06"
	// permissionFormatVersion added permission formats (SDDL or binary),
	// which Get Permission's answer names: Java's recording
	// ShareApiTests.createAndGetPermission (2024-08-04) has no "format",
	// azure-storage-file-share's test_create_permission_for_share
	// (2025-05-05) has "format":"sddl" without asking for one.
	permissionFormatVersion = "2024-11-04"
	// listAccessTimeVersion is the first version known to list an
	// entry's LastAccessTime with include=timestamps (recorded at
	// 2026-02-06; no recording of an earlier one lists timestamps).
	listAccessTimeVersion = "2026-02-06"
	// smbDirectoryLeaseVersion is the earliest x-ms-version recorded with
	// x-ms-enable-smb-directory-lease (2025-05-05 answers lack it).
	smbDirectoryLeaseVersion = "2026-02-06"
)

// since reports whether the request asks for version v of the API or a
// later one; a request without x-ms-version gets the newest.
func (q *request) since(v string) bool {
	asked := q.r.Header.Get("X-Ms-Version")
	if asked == "" {
		asked = azhttp.DefaultVersion
	}
	// Versions are dates written YYYY-MM-DD: they order as strings.
	return asked >= v
}
