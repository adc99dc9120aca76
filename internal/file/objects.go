package file

import (
	"fmt"

	"github.com/cerulean-db/cerulean/internal/extentstore"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// objects is where file content lives in the content store Blob shares
// (package extentstore): a file's data objects under "Fa acct d share
// file". Every object is written inside the transaction that references
// it, and freed objects are deleted there too, saying their sizes; only
// the data of a deleted file or share, which may be more than a store
// that counts stored bytes can read in one transaction, is dropped, to be
// deleted after the commit (registered under Fd).
var objects = &extentstore.Layout[fileRef]{
	Name:    "file",
	Objects: func(f fileRef) tuple.Key { return filePayloadPrefix(f.acct, f.share, f.id) },
	Dropped: tuple.New(keyspace.FileDropped),
}

// dataOwner names the owner of a file's data objects: they live under the
// live share even when a snapshot namespace reads them.
func dataOwner(acct, share string, file uint64) fileRef {
	return fileRef{acct, baseShare(share), file}
}

func (f fileRef) String() string { return fmt.Sprintf("%s/%s file %d", f.acct, f.share, f.id) }

// Span is the extent's run of content, for extentstore.Stream.
func (e extent) Span() extentstore.Span {
	return extentstore.Span{Data: e.Data, DataOff: e.DataOff, Offset: e.Offset, Size: e.Size}
}

// WithSpan is the extent narrowed to s, a part of its data object
// (extentstore.Cut).
func (e extent) WithSpan(s extentstore.Span) extent {
	e.Data, e.DataOff, e.Offset, e.Size = s.Data, s.DataOff, s.Offset, s.Size
	return e
}
