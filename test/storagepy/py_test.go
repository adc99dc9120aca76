// Package storagepy drives cerulean's Blob, Queue, Table and File services
// with the Python Storage SDKs Debian ships (azure-storage-blob 12.15.0b1,
// azure-storage-queue 12.6.0b1, azure-storage-file-share 12.11.0b1 and
// azure-data-tables 12.4.2, in python3-azure; `make debtools` installs
// them in CI), each client built from the account's connection string.
// These SDKs deserialize every service answer into their models, so a
// missing XML element or header shows up here as an exception or a wrong
// value. The script in testdata asserts itself: it prints "ok <step>" per
// step and "PASS" at the end, and exits non-zero on the first failure.
// Without python3 or the SDKs the test skips, except in CI (CI set), where
// it fails.
package storagepy

import (
	"testing"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

func TestPythonStorageSDKs(t *testing.T) {
	py := testkit.Python(t, "azure.storage.blob", "azure-storage-blob")
	for _, sdk := range [][2]string{
		{"azure.storage.queue", "azure-storage-queue"},
		{"azure.storage.fileshare", "azure-storage-file-share"},
		{"azure.data.tables", "azure-data-tables"},
	} {
		if other := testkit.Python(t, sdk[0], sdk[1]); other != py {
			t.Fatalf("%s imports %s but %s imports azure.storage.blob", other, sdk[0], py)
		}
	}
	env := servertest.Start(t)
	testkit.PythonScript(t, py, "storage_sdk.py", []string{"CERULEAN_STORAGE_CONNECTION_STRING=" + env.ConnectionString},
		"ok blob service properties set and read back", "ok blob account information", "ok container create, list, properties, metadata and access policy",
		"ok upload and download with content settings and metadata", "ok get blob properties", "ok blob tags and find by tags",
		"ok lease acquire, renew and release; writes refused without the lease", "ok snapshot and list with snapshots, metadata and tags",
		"ok stage, list and commit blocks", "ok append blob create, append and read", "ok page blob create, upload pages and page ranges",
		"ok copy a blob within the account", "ok set standard blob tier", "ok soft delete and undelete", "ok blob SAS read, write refused",
		"ok list with prefix and walk with delimiter", "ok chunked upload, ranged and validated download",
		"ok blob error codes on HEAD and conditional requests", "ok put blob and stage block from a URL", "ok account SAS",
		"ok batch set tier and delete", "ok page diff, resize and sequence number; seal an append blob",
		"ok synchronous copy; abort of a finished copy refused", "ok list blobs in pages",
		"ok delete snapshots only; a leased container is not deleted without its lease", "ok delete container",
		"ok queue service properties set and read back", "ok queue create, list, metadata, properties and access policy",
		"ok send, peek, receive, update and delete messages", "ok clear messages", "ok queue SAS and stored access policy SAS",
		"ok base64 messages, receive in pages and queue error codes", "ok delete queue",
		"ok table service properties set and read back", "ok create, list and query tables", "ok create and read an entity with typed values",
		"ok update entity merge and replace", "ok upsert entity", "ok query entities with a filter, parameters and select", "ok delete entity",
		"ok transaction in one partition", "ok table access policy", "ok a failed transaction names its operation and applies nothing",
		"ok table error codes", "ok query entities and list tables in pages",
		"ok keys with quotes and reserved characters, unicode and special doubles", "ok table SAS", "ok delete tables",
		"ok file service properties set and read back, with protocol settings", "ok share create, list, properties, quota and metadata",
		"ok directory create, list and properties", "ok file upload and download with content settings and metadata",
		"ok upload range, get ranges, clear range and resize", "ok file metadata and properties", "ok copy a file within the account",
		"ok list handles", "ok file lease acquire and release; a write refused without it", "ok share snapshot",
		"ok file SMB properties and permissions", "ok chunked file upload, ranged and validated download",
		"ok file SAS and upload range from a URL", "ok file ranges diff against a share snapshot", "ok rename file and directory",
		"ok list with a prefix and extended info", "ok share access policy, stats and access tier", "ok file error codes",
		"ok close handles, directory metadata, share lease and abort of a finished copy",
		"ok delete file, directory and share with its snapshots",
	)
}
