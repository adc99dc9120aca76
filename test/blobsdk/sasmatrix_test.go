package blobsdk_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	queuesas "github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/sas"
)

// sasOp is one operation of the SAS permission matrix: prep readies its
// target blob with Shared Key (owner is the owner's container client),
// run performs the operation through a SAS-only container client.
type sasOp struct {
	name string
	// grants are the letters any one of which allows the operation; ""
	// means no service SAS may perform it at all (AuthorizationFailure).
	grants    string
	container bool // addresses the container, not a blob
	prep      func(t *testing.T, owner *container.Client, name string)
	run       func(ctx context.Context, sc *container.Client, name string) error
}

func prepBlock(t *testing.T, owner *container.Client, name string) {
	upload(t, owner.NewBlockBlobClient(name), []byte("matrix"), nil)
}

func prepAppend(t *testing.T, owner *container.Client, name string) {
	_, err := owner.NewAppendBlobClient(name).Create(t.Context(), nil)
	must(t, err, "create append blob %s", name)
}

func prepLeased(t *testing.T, owner *container.Client, name string) {
	prepBlock(t, owner, name)
	bb := owner.NewBlockBlobClient(name)
	lc, err := lease.NewBlobClient(bb, nil)
	must(t, err, "lease client")
	_, err = lc.AcquireLease(t.Context(), -1, nil)
	must(t, err, "acquire lease on %s", name)
}

func prepNone(*testing.T, *container.Client, string) {}

var sasMatrixOps = []sasOp{
	{name: "Get Blob", grants: "r", prep: prepBlock, run: func(ctx context.Context, sc *container.Client, n string) error {
		_, err := sc.NewBlobClient(n).DownloadStream(ctx, nil)
		return err
	}},
	{name: "Get Blob Properties", grants: "re", prep: prepBlock, run: func(ctx context.Context, sc *container.Client, n string) error {
		_, err := sc.NewBlobClient(n).GetProperties(ctx, nil)
		return err
	}},
	{name: "Set Blob Metadata", grants: "w", prep: prepBlock, run: func(ctx context.Context, sc *container.Client, n string) error {
		_, err := sc.NewBlobClient(n).SetMetadata(ctx, map[string]*string{"k": ptr("v")}, nil)
		return err
	}},
	{name: "Set Blob Properties", grants: "w", prep: prepBlock, run: func(ctx context.Context, sc *container.Client, n string) error {
		_, err := sc.NewBlobClient(n).SetHTTPHeaders(ctx, blob.HTTPHeaders{BlobContentType: ptr("text/plain")}, nil)
		return err
	}},
	{name: "Put Blob (new)", grants: "cw", prep: prepNone, run: func(ctx context.Context, sc *container.Client, n string) error {
		_, err := sc.NewBlockBlobClient(n).Upload(ctx, rsc([]byte("new")), nil)
		return err
	}},
	{name: "Put Blob (overwrite)", grants: "w", prep: prepBlock, run: func(ctx context.Context, sc *container.Client, n string) error {
		_, err := sc.NewBlockBlobClient(n).Upload(ctx, rsc([]byte("again")), nil)
		return err
	}},
	{name: "Create Append Blob (new)", grants: "cw", prep: prepNone, run: func(ctx context.Context, sc *container.Client, n string) error {
		_, err := sc.NewAppendBlobClient(n).Create(ctx, nil)
		return err
	}},
	{name: "Append Block", grants: "aw", prep: prepAppend, run: func(ctx context.Context, sc *container.Client, n string) error {
		_, err := sc.NewAppendBlobClient(n).AppendBlock(ctx, rsc([]byte("tail")), nil)
		return err
	}},
	{name: "Put Block", grants: "w", prep: prepNone, run: func(ctx context.Context, sc *container.Client, n string) error {
		_, err := sc.NewBlockBlobClient(n).StageBlock(ctx, blockID(1), rsc([]byte("blk")), nil)
		return err
	}},
	{name: "Get Block List", grants: "r", prep: prepBlock, run: func(ctx context.Context, sc *container.Client, n string) error {
		_, err := sc.NewBlockBlobClient(n).GetBlockList(ctx, blockblob.BlockListTypeAll, nil)
		return err
	}},
	{name: "Delete Blob", grants: "d", prep: prepBlock, run: func(ctx context.Context, sc *container.Client, n string) error {
		_, err := sc.NewBlobClient(n).Delete(ctx, nil)
		return err
	}},
	{name: "Snapshot Blob", grants: "cw", prep: prepBlock, run: func(ctx context.Context, sc *container.Client, n string) error {
		_, err := sc.NewBlobClient(n).CreateSnapshot(ctx, nil)
		return err
	}},
	{name: "Set Blob Tier", grants: "w", prep: prepBlock, run: func(ctx context.Context, sc *container.Client, n string) error {
		_, err := sc.NewBlobClient(n).SetTier(ctx, blob.AccessTierCool, nil)
		return err
	}},
	{name: "Set Blob Tags", grants: "t", prep: prepBlock, run: func(ctx context.Context, sc *container.Client, n string) error {
		_, err := sc.NewBlobClient(n).SetTags(ctx, map[string]string{"k": "v"}, nil)
		return err
	}},
	{name: "Get Blob Tags", grants: "t", prep: prepBlock, run: func(ctx context.Context, sc *container.Client, n string) error {
		_, err := sc.NewBlobClient(n).GetTags(ctx, nil)
		return err
	}},
	{name: "Acquire Blob Lease", grants: "w", prep: prepBlock, run: func(ctx context.Context, sc *container.Client, n string) error {
		lc, err := lease.NewBlobClient(sc.NewBlockBlobClient(n), nil)
		if err != nil {
			return err
		}
		_, err = lc.AcquireLease(ctx, 15, nil)
		return err
	}},
	{name: "Break Blob Lease", grants: "wd", prep: prepLeased, run: func(ctx context.Context, sc *container.Client, n string) error {
		lc, err := lease.NewBlobClient(sc.NewBlockBlobClient(n), nil)
		if err != nil {
			return err
		}
		_, err = lc.BreakLease(ctx, nil)
		return err
	}},
	{name: "List Blobs", grants: "l", container: true, prep: prepNone, run: func(ctx context.Context, sc *container.Client, _ string) error {
		_, err := sc.NewListBlobsFlatPager(nil).NextPage(ctx)
		return err
	}},
	{name: "Find Blobs by Tags in a container", grants: "f", container: true, prep: prepNone, run: func(ctx context.Context, sc *container.Client, _ string) error {
		_, err := sc.FilterBlobs(ctx, `"k"='v'`, nil)
		return err
	}},
	{name: "Get Container Properties", container: true, prep: prepNone, run: func(ctx context.Context, sc *container.Client, _ string) error {
		_, err := sc.GetProperties(ctx, nil)
		return err
	}},
	{name: "Set Container Metadata", container: true, prep: prepNone, run: func(ctx context.Context, sc *container.Client, _ string) error {
		_, err := sc.SetMetadata(ctx, &container.SetMetadataOptions{Metadata: map[string]*string{"k": ptr("v")}})
		return err
	}},
	{name: "Get Container ACL", container: true, prep: prepNone, run: func(ctx context.Context, sc *container.Client, _ string) error {
		_, err := sc.GetAccessPolicy(ctx, nil)
		return err
	}},
	{name: "Acquire Container Lease", container: true, prep: prepNone, run: func(ctx context.Context, sc *container.Client, _ string) error {
		lc, err := lease.NewContainerClient(sc, nil)
		if err != nil {
			return err
		}
		_, err = lc.AcquireLease(ctx, 15, nil)
		return err
	}},
	{name: "Delete Container", container: true, prep: prepNone, run: func(ctx context.Context, sc *container.Client, _ string) error {
		_, err := sc.Delete(ctx, nil)
		return err
	}},
}

// TestSASPermissionMatrix signs a service SAS with each single permission
// letter, for a container (sr=c) and for one blob (sr=b), and checks every
// operation of the matrix: allowed exactly when Azure's tables say the
// letter grants it; refused with AuthorizationPermissionMismatch when the
// letter is wrong, and with AuthorizationFailure for container operations,
// which no service SAS may perform.
func TestSASPermissionMatrix(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	name := cname("sas-matrix")
	owner := f.createContainer(name, nil)
	expiry := time.Now().UTC().Add(time.Hour)

	scopes := []struct {
		sr      string
		letters string
	}{
		{"c", "racwdxltfmeopi"}, // the SDK's container permissions
		{"b", "racwdxytmeopi"},  // the SDK's blob permissions
	}
	for _, scope := range scopes {
		for _, letter := range scope.letters {
			for i, op := range sasMatrixOps {
				if op.container && scope.sr == "b" {
					continue // a blob SAS is not even signed for the container's URL
				}
				blobName := "b-" + scope.sr + "-" + string(letter) + "-" + string(rune('a'+i))
				op.prep(t, owner, blobName)
				v := sas.BlobSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: expiry, Permissions: string(letter), ContainerName: name}
				if scope.sr == "b" {
					v.BlobName = blobName
				}
				qp, err := v.SignWithSharedKey(f.cred)
				must(t, err, "sign sr=%s sp=%c", scope.sr, letter)
				if got := qp.Resource(); got != scope.sr {
					t.Fatalf("SDK signed sr=%q, want %q", got, scope.sr)
				}
				sc := sasContainer(t, f, name, qp.Encode())
				err = op.run(t.Context(), sc, blobName)
				what := "sr=" + scope.sr + " sp=" + string(letter) + ": " + op.name
				switch {
				case op.grants == "":
					checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationFailure, "%s (no service SAS may)", what)
				case strings.ContainsRune(op.grants, letter):
					if err != nil {
						t.Errorf("%s: %v, want success (%q grants it)", what, err, letter)
					}
				default:
					checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationPermissionMismatch, "%s (needs one of %q)", what, op.grants)
				}
			}
		}
	}
	// The container survived every refused Delete Container.
	_, err := owner.GetProperties(t.Context(), nil)
	must(t, err, "container after the matrix")
}

// TestSASCreateOnlyCannotOverwrite: create (c) without write makes new
// blobs but may not replace one, by upload or by copy.
func TestSASCreateOnlyCannotOverwrite(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	name := cname("sas-create")
	owner := f.createContainer(name, nil)
	upload(t, owner.NewBlockBlobClient("taken"), []byte("original"), nil)
	qp, err := sas.BlobSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: time.Now().Add(time.Hour), Permissions: "c", ContainerName: name}.SignWithSharedKey(f.cred)
	must(t, err, "sign")
	sc := sasContainer(t, f, name, qp.Encode())

	upload(t, sc.NewBlockBlobClient("fresh"), []byte("made with c"), nil)
	_, err = sc.NewBlockBlobClient("taken").Upload(t.Context(), rsc([]byte("x")), nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationPermissionMismatch, "Put Blob over an existing blob with sp=c")
	_, err = sc.NewPageBlobClient("taken").Create(t.Context(), 512, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationPermissionMismatch, "Put Blob (page) over an existing blob with sp=c")
	_, err = sc.NewAppendBlobClient("fresh-append").Create(t.Context(), nil)
	must(t, err, "create an append blob with sp=c")

	// Copy Blob into a new name is fine, over an existing one is not.
	srcSAS, err := owner.NewBlobClient("taken").GetSASURL(sas.BlobPermissions{Read: true}, time.Now().Add(time.Hour), nil)
	must(t, err, "source SAS")
	_, err = sc.NewBlobClient("copied").StartCopyFromURL(t.Context(), srcSAS, nil)
	must(t, err, "copy to a new blob with sp=c")
	_, err = sc.NewBlobClient("fresh").StartCopyFromURL(t.Context(), srcSAS, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationPermissionMismatch, "copy over an existing blob with sp=c")
	expectContent(t, owner.NewBlobClient("taken"), []byte("original"), "blob a create-only SAS tried to overwrite")
	expectContent(t, owner.NewBlobClient("fresh"), []byte("made with c"), "blob a create-only copy tried to overwrite")
}

// TestAccountSASMatrix: an account SAS is checked for service (ss),
// resource type (srt) and permission, per Azure's account SAS table; it
// reaches the container operations a service SAS cannot, except the
// container ACL, which only the account owner may read or change.
func TestAccountSASMatrix(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	name := cname("acct-matrix")
	owner := f.createContainer(name, nil)
	prepBlock(t, owner, "blob")
	now := time.Now().UTC()
	sign := func(types, perms string) string { // the blob SDK signs ss=b only
		qp, err := sas.AccountSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: now.Add(time.Hour), Permissions: perms, ResourceTypes: types}.SignWithSharedKey(f.cred)
		must(t, err, "sign account SAS")
		return qp.Encode()
	}
	ctx := t.Context()

	all := sign((&sas.AccountResourceTypes{Service: true, Container: true, Object: true}).String(), "racwdlt")
	sc := sasContainer(t, f, name, all)
	_, err := sc.GetProperties(ctx, nil)
	must(t, err, "Get Container Properties with an account SAS")
	_, err = sc.SetMetadata(ctx, &container.SetMetadataOptions{Metadata: map[string]*string{"k": ptr("v")}})
	must(t, err, "Set Container Metadata with an account SAS")
	_, err = sc.GetAccessPolicy(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationFailure, "Get Container ACL with an account SAS (owner only)")
	_, err = sc.SetAccessPolicy(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationFailure, "Set Container ACL with an account SAS (owner only)")

	// Create Container takes create or write.
	for _, perm := range []string{"c", "w"} {
		q := sign("c", perm)
		_, err := sasContainer(t, f, name+perm, q).Create(ctx, nil)
		must(t, err, "Create Container with account SAS sp=%s", perm)
	}
	_, err = sasContainer(t, f, name+"r", sign("c", "r")).Create(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationPermissionMismatch, "Create Container with account SAS sp=r")

	// Resource types.
	_, err = sasContainer(t, f, name, sign("o", "rl")).NewListBlobsFlatPager(nil).NextPage(ctx)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationResourceTypeMismatch, "List Blobs with srt=o")
	_, err = sasContainer(t, f, name, sign("c", "r")).NewBlobClient("blob").DownloadStream(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationResourceTypeMismatch, "Get Blob with srt=c")
	_, err = sasService(t, f, sign("c", "l")).NewListContainersPager(nil).NextPage(ctx)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationResourceTypeMismatch, "List Containers with srt=c")
	_, err = sasService(t, f, sign("s", "l")).NewListContainersPager(nil).NextPage(ctx)
	must(t, err, "List Containers with srt=s sp=l")

	// Append Block takes add or write; Delete Blob delete only.
	prepAppend(t, owner, "log")
	for _, perm := range []string{"a", "w"} {
		_, err := sasContainer(t, f, name, sign("o", perm)).NewAppendBlobClient("log").AppendBlock(ctx, rsc([]byte(perm)), nil)
		must(t, err, "Append Block with account SAS sp=%s", perm)
	}
	_, err = sasContainer(t, f, name, sign("o", "w")).NewBlobClient("blob").Delete(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationPermissionMismatch, "Delete Blob with account SAS sp=w")
	_, err = sasContainer(t, f, name, sign("o", "t")).NewBlobClient("blob").GetTags(ctx, nil)
	must(t, err, "Get Blob Tags with account SAS sp=t")

	// A valid account SAS for another service (ss=q) reaches no blob.
	qcred, err := azqueue.NewSharedKeyCredential(f.env.Account, f.env.Key)
	must(t, err, "queue credential")
	qqp, err := queuesas.AccountSignatureValues{Protocol: queuesas.ProtocolHTTPSandHTTP, ExpiryTime: now.Add(time.Hour), Permissions: "rl", ResourceTypes: "sco"}.SignWithSharedKey(qcred)
	must(t, err, "sign a queue account SAS")
	_, err = sasContainer(t, f, name, qqp.Encode()).NewBlobClient("blob").DownloadStream(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationServiceMismatch, "Get Blob with an ss=q account SAS")
}

// TestDirectorySAS: a directory SAS (sr=d) reaches the blobs under its
// directory, whether the directory was named with a trailing slash or not,
// and nothing outside it.
func TestDirectorySAS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	name := cname("sas-dir")
	owner := f.createContainer(name, nil)
	for _, n := range []string{"logs/2024/a.txt", "logs/b.txt", "other/c.txt", "logsx/d.txt"} {
		upload(t, owner.NewBlockBlobClient(n), []byte(n), nil)
	}
	for _, dir := range []string{"logs", "logs/"} {
		qp, err := sas.BlobSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: time.Now().Add(time.Hour), Permissions: "rw", ContainerName: name, Directory: dir}.SignWithSharedKey(f.cred)
		must(t, err, "sign directory SAS %q", dir)
		if qp.Resource() != "d" || qp.SignedDirectoryDepth() != "1" {
			t.Fatalf("directory SAS %q: sr=%q sdd=%q", dir, qp.Resource(), qp.SignedDirectoryDepth())
		}
		sc := sasContainer(t, f, name, qp.Encode())
		expectContent(t, sc.NewBlobClient("logs/2024/a.txt"), []byte("logs/2024/a.txt"), "nested blob under a directory SAS "+dir)
		expectContent(t, sc.NewBlobClient("logs/b.txt"), []byte("logs/b.txt"), "blob under a directory SAS "+dir)
		upload(t, sc.NewBlockBlobClient("logs/new-"+strings.TrimSuffix(dir, "/")+".txt"), []byte("w"), nil)
		for _, outside := range []string{"other/c.txt", "logsx/d.txt"} {
			_, err = sc.NewBlobClient(outside).DownloadStream(t.Context(), nil)
			checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "%s with a directory SAS for %q", outside, dir)
		}
		_, err = sc.GetProperties(t.Context(), nil)
		checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "the container with a directory SAS for %q", dir)
	}
}

// TestDuplicatedSASParameters: a SAS whose fields appear twice is refused
// (Azure will not pick one), even when both copies agree.
func TestDuplicatedSASParameters(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	name := cname("sas-dup")
	owner := f.createContainer(name, nil)
	prepBlock(t, owner, "blob")
	qp, err := sas.BlobSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: time.Now().Add(time.Hour), Permissions: "r", ContainerName: name}.SignWithSharedKey(f.cred)
	must(t, err, "sign")
	q := qp.Encode()
	expectContent(t, sasContainer(t, f, name, q).NewBlobClient("blob"), []byte("matrix"), "the SAS as signed")
	for _, extra := range []string{"sp=r", "sp=rw", "sr=c", "sv=" + qp.Version(), "sig=" + strings.ReplaceAll(qp.Signature(), "+", "%2B")} {
		_, err := sasContainer(t, f, name, q+"&"+extra).NewBlobClient("blob").DownloadStream(t.Context(), nil)
		checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "SAS with a second %s", extra)
	}
	acct := f.accountSAS(sas.AccountPermissions{Read: true}, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	_, err = sasContainer(t, f, name, acct+"&srt=sco").NewBlobClient("blob").DownloadStream(t.Context(), nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "account SAS with a second srt")
}
