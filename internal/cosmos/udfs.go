package cosmos

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/cerulean-db/cerulean/internal/cosmos/query"
)

// queryUDFs calls a container's user-defined functions for one query run:
// each is read from the query's transaction on its first call, and every
// call of the run shares one script budget, as one query's do in Cosmos
// DB.
type queryUDFs struct {
	t        *Tx
	db, coll string
	loaded   map[string]*Script
	deadline time.Time
}

// udfs returns the user-defined functions of a container for a query of
// the transaction.
func (t *Tx) udfs(db, coll string) query.UDFs {
	return &queryUDFs{t: t, db: db, coll: coll}
}

func (u *queryUDFs) CallUDF(name string, args []any) (any, error) {
	sc, ok := u.loaded[name]
	if !ok {
		var err error
		sc, err = u.t.script(u.db, u.coll, UserDefinedFunctions, name)
		if errors.Is(err, ErrNotFound) {
			return nil, badRequest("Unknown user-defined function 'udf.%s': the container has no user-defined function with that id.", name)
		}
		if err != nil {
			return nil, err
		}
		if u.loaded == nil {
			u.loaded = make(map[string]*Script)
			u.deadline = time.Now().Add(u.t.s.scriptBudget)
		}
		u.loaded[name] = sc
	}
	v, err := u.t.s.scripts.CallUDF(u.t.ctx, engineScript(sc), args, u.t.s.scriptOptions(false, u.deadline))
	if err != nil {
		return nil, scriptFailure(err, u.t.s.scriptBudget)
	}
	// The engine's values (int64, nested maps of its own making) become
	// the query's decoded-JSON values.
	b, err := json.Marshal(v)
	if err != nil {
		return nil, badRequest("The user-defined function 'udf.%s' returned a value that is not JSON: %v", name, err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}
