package blob

import (
	"time"

	"github.com/cerulean-db/cerulean/internal/extentstore"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// objects is where blob content lives in the shared content store
// (package extentstore): a blob's data objects under "Ba acct d container
// blob", uploads staged under Bs, data freed by a commit under Bg and the
// data of deleted blobs and containers under Bd.
var objects = &extentstore.Layout[blobID]{
	Name:          "blob",
	Objects:       func(b blobID) tuple.Key { return containerDataPrefix(b.acct, b.container).Str(b.name) },
	Staged:        stagedPrefix(),
	Freed:         garbagePrefix(),
	Registrations: registrations{},
	Dropped:       droppedPrefix(),
}

// payload is upload content on its way into the store.
type payload = extentstore.Payload[blobID]

// staged registers a data object written outside its commit transaction.
type staged struct {
	Account, Container, Blob string
	Created                  time.Time
	// Owner is the id of the process staging it (liveness); empty in
	// registrations written before front ends shared a store.
	Owner string `json:",omitempty"`
}

// garbage is one page of data objects of one blob awaiting deletion.
type garbage struct {
	Account, Container, Blob string
	Data                     []uint64
}

// registrations reads and writes the Bs and Bg records.
type registrations struct{}

func (registrations) Staged(b blobID, s extentstore.Staging) any {
	return staged{Account: b.acct, Container: b.container, Blob: b.name, Created: s.Created, Owner: s.Process}
}

func (registrations) ParseStaged(v []byte) (blobID, extentstore.Staging, error) {
	var reg staged
	err := record.Decode(v, &reg)
	return blobID{reg.Account, reg.Container, reg.Blob}, extentstore.Staging{Created: reg.Created, Process: reg.Owner}, err
}

func (registrations) Freed(b blobID, ids []uint64) any {
	return garbage{Account: b.acct, Container: b.container, Blob: b.name, Data: ids}
}

func (registrations) ParseFreed(v []byte) (blobID, []uint64, error) {
	var page garbage
	err := record.Decode(v, &page)
	return blobID{page.Account, page.Container, page.Blob}, page.Data, err
}

// Span is the extent's run of content, for extentstore.Stream.
func (e extent) Span() extentstore.Span {
	return extentstore.Span{Data: e.Data, DataOff: e.DataOff, Offset: e.Offset, Size: e.Size}
}

// WithSpan is a page blob extent narrowed to s (extentstore.Cut).
func (e extent) WithSpan(s extentstore.Span) extent {
	return extent{BlockID: e.BlockID, Data: s.Data, DataOff: s.DataOff, Offset: s.Offset, Size: s.Size}
}
