package server_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/blob"
	"github.com/cerulean-db/cerulean/internal/faults"
	"github.com/cerulean-db/cerulean/internal/file"
	"github.com/cerulean-db/cerulean/internal/queue"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/table"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// azureOperations are the operations of each Storage service as the Azure
// Storage REST reference names them, without spaces: the only names a
// route may carry, since they are public (metric labels, fault rule keys).
var azureOperations = map[string][]string{
	"blob": {
		"ListContainers", "SetBlobServiceProperties", "GetBlobServiceProperties", "PreflightBlobRequest",
		"GetBlobServiceStats", "GetAccountInformation", "GetUserDelegationKey", "FindBlobsByTags", "BlobBatch",
		"CreateContainer", "GetContainerProperties", "GetContainerMetadata", "SetContainerMetadata",
		"GetContainerACL", "SetContainerACL", "DeleteContainer", "LeaseContainer", "RestoreContainer",
		"ListBlobs", "FindBlobsByTagsInContainer",
		"PutBlob", "PutBlobFromURL", "GetBlob", "GetBlobProperties", "SetBlobProperties", "GetBlobMetadata",
		"SetBlobMetadata", "GetBlobTags", "SetBlobTags", "LeaseBlob", "SnapshotBlob", "CopyBlob",
		"CopyBlobFromURL", "AbortCopyBlob", "DeleteBlob", "UndeleteBlob", "SetBlobTier", "SetBlobExpiry",
		"SetBlobImmutabilityPolicy", "DeleteBlobImmutabilityPolicy", "SetBlobLegalHold", "QueryBlobContents",
		"PutBlock", "PutBlockFromURL", "PutBlockList", "GetBlockList",
		"PutPage", "PutPageFromURL", "GetPageRanges", "IncrementalCopyBlob",
		"AppendBlock", "AppendBlockFromURL", "AppendBlobSeal",
	},
	"queue": {
		"ListQueues", "SetQueueServiceProperties", "GetQueueServiceProperties", "PreflightQueueRequest",
		"GetQueueServiceStats", "CreateQueue", "DeleteQueue", "GetQueueMetadata", "SetQueueMetadata",
		"GetQueueACL", "SetQueueACL", "PutMessage", "GetMessages", "PeekMessages", "DeleteMessage",
		"ClearMessages", "UpdateMessage",
	},
	"table": {
		"SetTableServiceProperties", "GetTableServiceProperties", "PreflightTableRequest", "GetTableServiceStats",
		"QueryTables", "CreateTable", "DeleteTable", "GetTableACL", "SetTableACL",
		"QueryEntities", "InsertEntity", "UpdateEntity", "MergeEntity", "DeleteEntity",
		"InsertOrReplaceEntity", "InsertOrMergeEntity",
		// "Performing entity group transactions": the reference's page
		// for $batch, which names no operation of its own.
		"EntityGroupTransaction",
	},
	"file": {
		"ListShares", "SetFileServiceProperties", "GetFileServiceProperties", "PreflightFileRequest",
		"CreateShare", "GetShareProperties", "SetShareProperties", "GetShareMetadata", "SetShareMetadata",
		"DeleteShare", "RestoreShare", "GetShareACL", "SetShareACL", "GetShareStats", "CreatePermission",
		"GetPermission", "LeaseShare", "SnapshotShare",
		"ListDirectoriesAndFiles", "ListHandles", "ForceCloseHandles", "CreateDirectory",
		"GetDirectoryProperties", "SetDirectoryProperties", "GetDirectoryMetadata", "SetDirectoryMetadata",
		"DeleteDirectory", "RenameDirectory",
		"CreateFile", "GetFile", "GetFileProperties", "SetFileProperties", "GetFileMetadata", "SetFileMetadata",
		"DeleteFile", "PutRange", "PutRangeFromURL", "ListRanges", "CopyFile", "AbortCopyFile", "LeaseFile",
		"RenameFile", "CreateSymbolicLink", "GetSymbolicLink", "CreateHardLink",
	},
}

// TestRoutesAreAzureOperations lists every route of every Storage service
// with its name: each is named, no name is used twice within a service,
// and every name is one of Azure's operations of that service (the
// preflight, which Wrap answers, too).
func TestRoutesAreAzureOperations(t *testing.T) {
	for service, routes := range map[string][]string{
		"blob": blob.Operations(), "queue": queue.Operations(), "table": table.Operations(), "file": file.Operations(),
	} {
		known := azureOperations[service]
		seen := map[string]bool{}
		for i, name := range append(routes, azhttp.PreflightOperation(service)) {
			t.Logf("%s route %d: %s", service, i, name)
			switch {
			case name == "":
				t.Errorf("%s: route %d has no name", service, i)
			case seen[name]:
				t.Errorf("%s: %s names two routes", service, name)
			case !slices.Contains(known, name):
				t.Errorf("%s: %s is not an operation of Azure's %s service", service, name, service)
			}
			seen[name] = true
		}
	}
}

// TestOperationNames pins, through the real handlers, the operation each
// request is counted and fault-matched as: the metric label and the
// --faults key. Every sampled operation but the control has a rule that
// always answers busy (503), so a 503 shows the fault key matched and the
// metric's status label shows the request was counted under that name.
// Requests are anonymous: the operation is named before authentication.
func TestOperationNames(t *testing.T) {
	samples := []struct {
		service, method, target string
		header                  map[string]string
		operation               string
	}{
		{"blob", http.MethodGet, "/c1?restype=container&comp=metadata", nil, "GetContainerMetadata"},
		{"blob", http.MethodGet, "/c1?restype=container", nil, "GetContainerProperties"}, // the control: no rule
		{"blob", http.MethodHead, "/c1/b?comp=metadata", nil, "GetBlobMetadata"},
		{"blob", http.MethodHead, "/c1/b", nil, "GetBlobProperties"},
		{"blob", http.MethodPut, "/c1/b?comp=tier", nil, "SetBlobTier"},
		{"blob", http.MethodPut, "/c1/b", map[string]string{"X-Ms-Copy-Source": "http://x/y", "X-Ms-Requires-Sync": "true"}, "CopyBlobFromURL"},
		{"blob", http.MethodPut, "/c1/b?comp=seal", nil, "AppendBlobSeal"},
		{"blob", http.MethodOptions, "/c1/b", map[string]string{"Origin": "http://example.com", "Access-Control-Request-Method": "GET"}, "PreflightBlobRequest"},
		{"queue", http.MethodGet, "/q1/messages?peekonly=true", nil, "PeekMessages"},
		{"queue", http.MethodGet, "/q1?comp=metadata", nil, "GetQueueMetadata"},
		{"table", http.MethodGet, "/t1()", nil, "QueryEntities"},
		{"table", http.MethodGet, "/t1(PartitionKey='p',RowKey='r')", nil, "QueryEntities"},
		{"table", http.MethodPost, "/t1(PartitionKey='p',RowKey='r')", map[string]string{"X-Http-Method": "MERGE", "If-Match": "*"}, "MergeEntity"},
		{"table", http.MethodPost, "/$batch", nil, "EntityGroupTransaction"},
		{"file", http.MethodPut, "/s1/f?comp=range", nil, "PutRange"},
		{"file", http.MethodGet, "/s1?restype=share&comp=metadata", nil, "GetShareMetadata"},
		{"file", http.MethodGet, "/s1/d?restype=directory&comp=list", nil, "ListDirectoriesAndFiles"},
	}
	control := "blob/GetContainerProperties"
	var spec []string
	for _, s := range samples {
		if key := s.service + "/" + s.operation; key != control && !slices.Contains(spec, key+"=busy@100%") {
			spec = append(spec, key+"=busy@100%")
		}
	}
	rules, err := faults.Parse(strings.Join(spec, ","))
	if err != nil {
		t.Fatal(err)
	}
	env := servertest.Start(t, servertest.WithFaults(rules...))
	urls := map[string]string{"blob": env.BlobURL, "queue": env.QueueURL, "table": env.TableURL, "file": env.FileURL}
	counted := map[string]int{}
	for _, s := range samples {
		status := testkit.Send(t, testkit.Request{Method: s.method, URL: strings.TrimSuffix(urls[s.service], "/") + s.target, Header: s.header}).StatusCode
		key := s.service + "/" + s.operation
		if busy := status == http.StatusServiceUnavailable; busy != (key != control) {
			t.Errorf("%s %s on %s: status %d; the fault rule %s matched: %v", s.method, s.target, s.service, status, key, busy)
		}
		counted[fmt.Sprintf(`cerulean_requests_total{operation=%q,service=%q,status="%d"}`, s.operation, s.service, status)]++
	}
	metrics := string(testkit.Send(t, testkit.Request{Method: http.MethodGet, URL: env.AdminURL + "/metrics"}).Body)
	for series, n := range counted {
		if want := fmt.Sprintf("%s %d\n", series, n); !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}
