package table

import (
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// resKind is what a request path addresses.
type resKind int

const (
	resService  resKind = iota // /acct or /acct/ (service properties)
	resTables                  // /acct/Tables
	resTable                   // /acct/Tables('name')
	resBatch                   // /acct/$batch
	resEntities                // /acct/name or /acct/name()
	resEntity                  // /acct/name(PartitionKey='pk',RowKey='rk')
)

// resource is a parsed request path (after the account).
type resource struct {
	kind   resKind
	table  string
	pk, rk string
}

// parseResource reads the decoded path after the account. Key values are
// quoted, with two quotes standing for one, as OData writes them.
func parseResource(rest string) (resource, error) {
	switch rest {
	case "":
		return resource{kind: resService}, nil
	case "$batch":
		return resource{kind: resBatch}, nil
	case "Tables":
		return resource{kind: resTables}, nil
	}
	name, args, hasArgs := strings.Cut(rest, "(")
	if name == "" && hasArgs {
		// "/(retry)": parentheses after no table name address nothing,
		// and Azure says so before it reads the request's format (404
		// ResourceNotFound as plain application/json, recorded in
		// go-storage StorageClientSuite Test_doRetry).
		return resource{}, unnegotiated{azerr.ErrResourceNotFound}
	}
	if name == "" || strings.ContainsAny(name, "/')") {
		return resource{}, badURI(rest)
	}
	if !hasArgs {
		return resource{kind: resEntities, table: name}, nil
	}
	args, ok := strings.CutSuffix(args, ")")
	if !ok {
		return resource{}, badURI(rest)
	}
	if name == "Tables" {
		if args == "" {
			return resource{kind: resTables}, nil
		}
		table, tail, err := quotedValue(args)
		if err != nil || tail != "" {
			return resource{}, badURI(rest)
		}
		return resource{kind: resTable, table: table}, nil
	}
	if args == "" {
		return resource{kind: resEntities, table: name}, nil
	}
	res := resource{kind: resEntity, table: name}
	var havePK, haveRK bool
	for args != "" {
		key, after, ok := strings.Cut(args, "=")
		if !ok {
			return resource{}, badURI(rest)
		}
		v, tail, err := quotedValue(after)
		if err != nil {
			return resource{}, badURI(rest)
		}
		switch {
		case key == "PartitionKey" && !havePK:
			res.pk, havePK = v, true
		case key == "RowKey" && !haveRK:
			res.rk, haveRK = v, true
		default:
			return resource{}, badURI(rest)
		}
		if tail != "" {
			if tail, ok = strings.CutPrefix(tail, ","); !ok || tail == "" {
				return resource{}, badURI(rest)
			}
		}
		args = tail
	}
	if !havePK || !haveRK {
		return resource{}, badURI(rest)
	}
	return res, nil
}

// quotedValue reads a leading 'quoted' value and returns it with the
// text after it.
func quotedValue(s string) (value, tail string, err error) {
	if !strings.HasPrefix(s, "'") {
		return "", "", azerr.ErrInvalidUri
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return b.String(), s[i+1:], nil
	}
	return "", "", azerr.ErrInvalidUri
}

func badURI(rest string) error {
	return azerr.ErrInvalidUri.WithMessage("The requested URI does not represent any resource on the server: %q.", rest)
}
