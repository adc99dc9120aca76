package table

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// Table is a table as stored.
type Table struct {
	Name    string // as created; lookups ignore case
	Version uint64 // commit version of its last change
	Created time.Time
	ACL     []azauth.SignedIdentifier // stored access policies
}

// loadTable returns the table or ErrTableNotFound. Every entity
// operation reads the table record, so it conflicts with a concurrent
// Delete Table and never writes into a table being removed.
//
// A name Azure could never have created is refused as Azure refuses it
// on every table and entity operation (InvalidResourceName or
// OutOfRangeInput), not reported missing.
func loadTable(r kv.Reader, acct, name string) (*Table, error) {
	if err := validateTableName(name); err != nil {
		return nil, err
	}
	return record.RequireShared[Table](r, tableKey(acct, name), azerr.ErrTableNotFound)
}

// validateTableName applies Azure's table naming rules: 3 to 63
// characters (else OutOfRangeInput), letters and digits starting with a
// letter, and not "tables" in any case (else InvalidResourceName).
func validateTableName(n string) error {
	if len(n) < 3 || len(n) > 63 {
		return azerr.ErrOutOfRangeInput.WithMessage("The specified resource name length is not within the permissible limits.")
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return errTableNameInvalid
		}
	}
	if tableID(n) == "tables" {
		return errTableNameInvalid
	}
	return nil
}

// errTableNameInvalid is InvalidResourceName with the message the Table
// service sends, spelling included (the SDKs look for it).
var errTableNameInvalid = azerr.ErrInvalidResourceName.WithMessage("The specifed resource name contains invalid characters.")

// CreateTable creates a table, or fails with TableAlreadyExists, also
// when a table of the same name in another case exists.
func (s *Service) CreateTable(ctx context.Context, acct, name string) (*Table, error) {
	if err := validateTableName(name); err != nil {
		return nil, fmt.Errorf("create table: %w", err)
	}
	var out *Table
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		if _, err := loadTable(tx, acct, name); err == nil {
			return azerr.ErrTableAlreadyExists
		} else if !errors.Is(err, azerr.ErrTableNotFound) {
			return err
		}
		out = &Table{Name: name, Version: tx.Version(), Created: odata.TicksTime(s.clock())}
		return record.Store(tx, tableKey(acct, name), out)
	})
	if err != nil {
		return nil, fmt.Errorf("create table: %w", err)
	}
	return out, nil
}

// GetTable returns a table's record.
func (s *Service) GetTable(ctx context.Context, acct, name string) (*Table, error) {
	var out *Table
	err := s.store.View(ctx, func(r kv.Reader) error {
		var err error
		out, err = loadTable(r, acct, name)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("get table: %w", err)
	}
	return out, nil
}

// DeleteTable removes a table and every entity in it, at once: the
// entities go with one range deletion in the same transaction, so no
// TableBeingDeleted window exists.
func (s *Service) DeleteTable(ctx context.Context, acct, name string) error {
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		if _, err := loadTable(tx, acct, name); err != nil {
			return err
		}
		p := entitiesPrefix(acct, name)
		if err := tx.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
			return err
		}
		return tx.Delete(tableKey(acct, name))
	})
	if err != nil {
		return fmt.Errorf("delete table: %w", err)
	}
	return nil
}

// SetTableACL replaces a table's stored access policies.
func (s *Service) SetTableACL(ctx context.Context, acct, name string, acl []azauth.SignedIdentifier) error {
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		t, err := loadTable(tx, acct, name)
		if err != nil {
			return err
		}
		t.ACL, t.Version = acl, tx.Version()
		return record.Store(tx, tableKey(acct, name), t)
	})
	if err != nil {
		return fmt.Errorf("set table acl: %w", err)
	}
	return nil
}

// TablePage is one page of Query Tables.
type TablePage struct {
	Tables []*Table
	// Next is the name the next page starts at; "" at the end.
	Next string
}

// QueryTables lists the account's tables in name order (ignoring case),
// those matching filter (on TableName) when it is not nil, at most top
// of them, starting at the table named next.
func (s *Service) QueryTables(ctx context.Context, acct string, filter *odata.Filter, top int, next string) (TablePage, error) {
	var page TablePage
	err := s.store.View(ctx, func(r kv.Reader) error {
		page = TablePage{}
		base := tablesPrefix(acct)
		start := []byte(base)
		if next != "" {
			start = base.Str(tableID(next))
		}
		budget := newScanBudget()
		return r.Scan(start, kv.PrefixEnd(base), func(k, v []byte) error {
			var t Table
			if err := record.Decode(v, &t); err != nil {
				return err
			}
			keep := filter == nil || filter.Match(tableGetter(t.Name))
			if budget.spent() || len(page.Tables) == top && keep {
				page.Next = t.Name
				return kv.ErrStopScan
			}
			budget.charge()
			// A full page looks on for a table the filter keeps: Azure
			// ends a TableName range with its last page, not with an
			// empty one after it.
			if keep && len(page.Tables) < top {
				page.Tables = append(page.Tables, &t)
			}
			return nil
		})
	})
	if err != nil {
		return TablePage{}, fmt.Errorf("query tables: %w", err)
	}
	return page, nil
}

func tableGetter(name string) odata.Getter {
	return func(prop string) (odata.Value, bool) {
		if prop == "TableName" {
			return odata.StringValue(name), true
		}
		return odata.Value{}, false
	}
}
