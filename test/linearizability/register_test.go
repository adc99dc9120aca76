package linearizability_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
)

// register is one client's operations on the one object a register
// workload reads and writes (a blob, an item, an entity).
type register struct {
	read func() (value, etag string, err error)
	// condWrite writes value if the object's ETag is ifMatch.
	condWrite func(ifMatch azcore.ETag, value string) (etag string, err error)
	// write writes value unconditionally; nil for a workload without
	// blind writes.
	write func(value string) (etag string, err error)
	// writeSetsETag makes a blind write's ETag the one the client
	// conditions its next write on.
	writeSetsETag bool
}

// checkRegister runs every client's operations on the register that
// starts as initial, 40% reads, 50% conditional writes and 10% blind
// writes (conditional writes instead of blind ones where write is nil),
// and checks that the history is linearizable.
func checkRegister(t *testing.T, initial regState, at func(cl int) register) {
	h := &history{}
	runClients(t, func(cl int, rng *rand.Rand) {
		r := at(cl)
		lastETag := initial.ETag
		for i := range *opsEach {
			value := fmt.Sprintf("c%d-%d", cl, i)
			switch n := rng.IntN(10); {
			case n < 4:
				h.record(cl, regRead{}, func() any {
					v, etag, err := r.read()
					if err != nil {
						t.Errorf("read: %v", err)
						return regResult{}
					}
					lastETag = etag
					return regResult{OK: true, Value: v, ETag: lastETag}
				})
			case n < 9 || r.write == nil:
				ifMatch := azcore.ETag(lastETag)
				h.record(cl, regCondWrite{IfMatch: lastETag, Value: value}, func() any {
					etag, err := r.condWrite(ifMatch, value)
					if statusCode(err) == http.StatusPreconditionFailed {
						return regResult{OK: false}
					}
					if err != nil {
						t.Errorf("conditional write: %v", err)
						return regResult{}
					}
					lastETag = etag
					return regResult{OK: true, ETag: lastETag}
				})
			default:
				h.record(cl, regWrite{Value: value}, func() any {
					etag, err := r.write(value)
					if err != nil {
						t.Errorf("write: %v", err)
						return regResult{}
					}
					if r.writeSetsETag {
						lastETag = etag
					}
					return regResult{OK: true, ETag: etag}
				})
			}
		}
	})
	model := registerModel
	model.Init = func() any { return initial }
	check(t, model, h)
}

// jsonValue is what a register read of a JSON document (a Cosmos item, a
// table entity) returns: its Value property and ETag, or err.
func jsonValue(doc []byte, etag azcore.ETag, err error) (string, string, error) {
	if err != nil {
		return "", "", err
	}
	var d struct{ Value string }
	_ = json.Unmarshal(doc, &d)
	return d.Value, string(etag), nil
}
