package table

import (
	"errors"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// checkTable is loadTable for an entity operation, which needs only to
// know the table exists: it reads the record (so a concurrent Delete
// Table still conflicts with the write) without decoding it, which a
// profile of upserts showed costing more than the entity's own work.
func checkTable(r kv.Reader, acct, name string) error {
	if err := validateTableName(name); err != nil {
		return err
	}
	_, err := kv.GetShared(r, tableKey(acct, name))
	if errors.Is(err, kv.ErrNotFound) {
		return azerr.ErrTableNotFound
	}
	return err
}
