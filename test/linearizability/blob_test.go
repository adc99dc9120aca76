package linearizability_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/anishathalye/porcupine"

	"github.com/cerulean-db/cerulean/internal/servertest"
)

func newBlobClient(t *testing.T, env *servertest.Env) *azblob.Client {
	t.Helper()
	c, err := azblob.NewClientFromConnectionString(env.ConnectionString, &azblob.ClientOptions{
		ClientOptions: policy.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// blobClients is a client per front end for blob name in container "lin".
func blobClients(t *testing.T, fes []*servertest.Env, name string) perFrontEnd[*blockblob.Client] {
	return clientsFor(fes, func(env *servertest.Env) *blockblob.Client {
		return newBlobClient(t, env).ServiceClient().NewContainerClient("lin").NewBlockBlobClient(name)
	})
}

func statusCode(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}

// Register operations on one blob.
type (
	regRead      struct{}
	regCondWrite struct{ IfMatch, Value string }
	regWrite     struct{ Value string }
	regState     struct{ Value, ETag string }
	regResult    struct {
		OK          bool // false: 412
		Value, ETag string
	}
)

var registerModel = porcupine.Model{
	Step: func(state, input, output any) (bool, any) {
		s, out := state.(regState), output.(regResult)
		switch in := input.(type) {
		case regRead:
			return out.Value == s.Value && out.ETag == s.ETag, s
		case regCondWrite:
			if !out.OK {
				return in.IfMatch != s.ETag, s
			}
			return in.IfMatch == s.ETag && out.ETag != s.ETag, regState{in.Value, out.ETag}
		case regWrite:
			return out.ETag != s.ETag, regState{in.Value, out.ETag}
		}
		return false, s
	},
	DescribeOperation: func(input, output any) string {
		out := output.(regResult)
		switch in := input.(type) {
		case regRead:
			return fmt.Sprintf("read -> %s %s", out.Value, out.ETag)
		case regCondWrite:
			return fmt.Sprintf("write(%s if %s) -> %v %s", in.Value, in.IfMatch, out.OK, out.ETag)
		case regWrite:
			return fmt.Sprintf("write(%s) -> %s", in.Value, out.ETag)
		}
		return "?"
	},
}

// TestBlobConditionalWrites: reads, If-Match writes and blind writes on
// one blob form a linearizable register history; every successful write
// yields a fresh ETag.
func TestBlobConditionalWrites(t *testing.T) { inRounds(t, oneServer, blobConditionalWrites) }

func blobConditionalWrites(t *testing.T, fes []*servertest.Env) {
	ctx := t.Context()
	if _, err := newBlobClient(t, fes[0]).CreateContainer(ctx, "lin", nil); err != nil {
		t.Fatal(err)
	}
	blobs := blobClients(t, fes, "register")
	up, err := blobs.at(0).Upload(ctx, streamOf("init"), nil)
	if err != nil {
		t.Fatal(err)
	}
	initial := regState{"init", string(*up.ETag)}
	checkRegister(t, initial, func(cl int) register {
		bb := blobs.at(cl)
		return register{
			read: func() (string, string, error) {
				resp, err := bb.DownloadStream(ctx, nil)
				if err != nil {
					return "", "", err
				}
				body, err := io.ReadAll(resp.Body)
				if err := errors.Join(err, resp.Body.Close()); err != nil {
					return "", "", fmt.Errorf("body: %w", err)
				}
				return string(body), string(*resp.ETag), nil
			},
			condWrite: func(ifMatch azcore.ETag, value string) (string, error) {
				resp, err := bb.Upload(ctx, streamOf(value), &blockblob.UploadOptions{AccessConditions: &blob.AccessConditions{
					ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &ifMatch}}})
				if err != nil {
					return "", err
				}
				return string(*resp.ETag), nil
			},
			write: func(value string) (string, error) {
				resp, err := bb.Upload(ctx, streamOf(value), nil)
				if err != nil {
					return "", err
				}
				return string(*resp.ETag), nil
			},
		}
	})
}

func streamOf(s string) nopSeeker { return nopSeeker{bytes.NewReader([]byte(s))} }

type nopSeeker struct{ *bytes.Reader }

func (nopSeeker) Close() error { return nil }

// Lease operations on one blob (infinite leases, break period 0, so that
// no outcome depends on time).
type (
	leaseAcquire struct{ ID string }
	leaseRenew   struct{ ID string }
	leaseRelease struct{ ID string }
	leaseBreak   struct{}
	leaseState   struct {
		State string // available, leased, broken
		ID    string
	}
)

var leaseModel = porcupine.Model{
	Init: func() any { return leaseState{State: "available"} },
	Step: func(state, input, output any) (bool, any) {
		s, ok := state.(leaseState), output.(bool)
		next, allowed := s, false
		switch in := input.(type) {
		case leaseAcquire:
			allowed = s.State != "leased" || s.ID == in.ID
			next = leaseState{"leased", in.ID}
		case leaseRenew:
			allowed = s.State == "leased" && s.ID == in.ID
		case leaseRelease:
			allowed = s.State != "available" && s.ID == in.ID
			next = leaseState{State: "available"}
		case leaseBreak:
			allowed = s.State != "available"
			next = leaseState{"broken", s.ID}
		}
		if ok != allowed {
			return false, s
		}
		if !ok {
			return true, s
		}
		return true, next
	},
	DescribeOperation: func(input, output any) string { return fmt.Sprintf("%T%+v -> %v", input, input, output) },
}

// TestLeaseOperations: concurrent acquire / renew / release / break by
// clients with their own lease IDs form a linearizable history of Azure's
// lease state machine.
func TestLeaseOperations(t *testing.T) { inRounds(t, oneServer, leaseOperations) }

func leaseOperations(t *testing.T, fes []*servertest.Env) {
	ctx := t.Context()
	if _, err := newBlobClient(t, fes[0]).CreateContainer(ctx, "lin", nil); err != nil {
		t.Fatal(err)
	}
	blobs := blobClients(t, fes, "leased")
	if _, err := blobs.at(0).Upload(ctx, streamOf("x"), nil); err != nil {
		t.Fatal(err)
	}
	h := &history{}
	runClients(t, func(cl int, rng *rand.Rand) {
		id := fmt.Sprintf("%08d-0000-0000-0000-000000000000", cl)
		lc, err := lease.NewBlobClient(blobs.at(cl), &lease.BlobClientOptions{LeaseID: &id})
		if err != nil {
			t.Error(err)
			return
		}
		outcome := func(err error, what string) any {
			if err == nil {
				return true
			}
			if code := statusCode(err); code != http.StatusConflict {
				t.Errorf("%s: unexpected %v", what, err)
			}
			return false
		}
		for range *opsEach {
			switch r := rng.IntN(10); {
			case r < 4:
				h.record(cl, leaseAcquire{id}, func() any {
					_, err := lc.AcquireLease(ctx, -1, nil)
					return outcome(err, "acquire")
				})
			case r < 6:
				h.record(cl, leaseRenew{id}, func() any {
					_, err := lc.RenewLease(ctx, nil)
					return outcome(err, "renew")
				})
			case r < 9:
				h.record(cl, leaseRelease{id}, func() any {
					_, err := lc.ReleaseLease(ctx, nil)
					return outcome(err, "release")
				})
			default:
				zero := int32(0)
				h.record(cl, leaseBreak{}, func() any {
					_, err := lc.BreakLease(ctx, &lease.BlobBreakOptions{BreakPeriod: &zero})
					return outcome(err, "break")
				})
			}
		}
	})
	check(t, leaseModel, h)
}
