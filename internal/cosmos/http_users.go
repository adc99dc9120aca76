package cosmos

import (
	"encoding/json"
	"net/http"
)

// routeUsers dispatches /dbs/{db}/users[/{user}[/permissions[/{perm}]]].
func (h *handler) routeUsers(q *request) error {
	segs, m := q.segs, q.r.Method
	db := segs[1]
	ctx := q.r.Context()
	switch {
	case len(segs) == 3:
		switch m {
		case http.MethodGet:
			f, err := h.svc.ListUsers(ctx, db)
			if err != nil {
				return err
			}
			return h.writeFeed(q, f.ResourceID, "Users", f.Items)
		case http.MethodPost:
			if isQuery(q.r) {
				return h.runQuery(q, "Users", func(query *Query, params map[string]any) (*Feed, error) {
					return h.svc.QueryUsers(ctx, db, query, params)
				}, nil)
			}
			b, err := readBody(q.r)
			if err != nil {
				return err
			}
			u, err := h.svc.CreateUser(ctx, db, b)
			if err != nil {
				return err
			}
			return h.writeResource(q, http.StatusCreated, u.ETag, u.Body)
		}
	case len(segs) == 4:
		user := segs[3]
		switch m {
		case http.MethodGet:
			u, err := h.svc.GetUser(ctx, UserRef{DB: db, User: user}, preconditions(q.r))
			if err != nil {
				return err
			}
			return h.writeResource(q, http.StatusOK, u.ETag, u.Body)
		case http.MethodPut:
			b, err := readBody(q.r)
			if err != nil {
				return err
			}
			u, err := h.svc.ReplaceUser(ctx, UserRef{DB: db, User: user}, b, preconditions(q.r))
			if err != nil {
				return err
			}
			return h.writeResource(q, http.StatusOK, u.ETag, u.Body)
		case http.MethodDelete:
			if err := h.svc.DeleteUser(ctx, UserRef{DB: db, User: user}, preconditions(q.r)); err != nil {
				return err
			}
			return h.writeJSON(q, http.StatusNoContent, nil)
		}
	case segs[4] != "permissions":
		return unsupported("The resource type " + segs[4])
	case len(segs) == 5:
		return h.routePermissionFeed(q, db, segs[3])
	case len(segs) == 6:
		return h.routePermission(q, db, segs[3], segs[5])
	default:
		return notFound("The resource path %q does not exist.", q.r.URL.Path)
	}
	return methodNotAllowed(m)
}

func (h *handler) routePermissionFeed(q *request, db, user string) error {
	if _, err := tokenExpiry(q.r); err != nil {
		return err
	}
	ctx := q.r.Context()
	switch q.r.Method {
	case http.MethodGet:
		ps, rid, err := h.svc.ListPermissions(ctx, UserRef{DB: db, User: user})
		if err != nil {
			return err
		}
		items := make([]json.RawMessage, len(ps))
		for i, p := range ps {
			if items[i], err = h.permissionBody(q, p); err != nil {
				return err
			}
		}
		return h.writeFeed(q, rid, "Permissions", items)
	case http.MethodPost:
		if isQuery(q.r) {
			return h.runQuery(q, "Permissions", func(query *Query, params map[string]any) (*Feed, error) {
				ps, rid, err := h.svc.ListPermissions(ctx, UserRef{DB: db, User: user})
				if err != nil {
					return nil, err
				}
				docs := make([]map[string]any, len(ps))
				for i, p := range ps {
					b, err := h.permissionBody(q, p)
					if err != nil {
						return nil, err
					}
					if docs[i], err = decodeForQuery(b); err != nil {
						return nil, err
					}
				}
				res, err := query.run(docs, params)
				if err != nil {
					return nil, err
				}
				return &Feed{ResourceID: rid, Items: res}, nil
			}, nil)
		}
		b, err := readBody(q.r)
		if err != nil {
			return err
		}
		p, err := h.svc.CreatePermission(ctx, UserRef{DB: db, User: user}, b)
		if err != nil {
			return err
		}
		return h.writePermission(q, http.StatusCreated, p)
	}
	return methodNotAllowed(q.r.Method)
}

func (h *handler) routePermission(q *request, db, user, perm string) error {
	if _, err := tokenExpiry(q.r); err != nil {
		return err
	}
	ctx := q.r.Context()
	switch q.r.Method {
	case http.MethodGet:
		p, err := h.svc.GetPermission(ctx, UserRef{DB: db, User: user}, perm, preconditions(q.r))
		if err != nil {
			return err
		}
		return h.writePermission(q, http.StatusOK, p)
	case http.MethodPut:
		b, err := readBody(q.r)
		if err != nil {
			return err
		}
		p, err := h.svc.ReplacePermission(ctx, UserRef{DB: db, User: user}, perm, b, preconditions(q.r))
		if err != nil {
			return err
		}
		return h.writePermission(q, http.StatusOK, p)
	case http.MethodDelete:
		if err := h.svc.DeletePermission(ctx, UserRef{DB: db, User: user}, perm, preconditions(q.r)); err != nil {
			return err
		}
		return h.writeJSON(q, http.StatusNoContent, nil)
	}
	return methodNotAllowed(q.r.Method)
}

// permissionBody renders a permission as the gateway does, with a
// freshly minted _token valid for the request's expiry.
func (h *handler) permissionBody(q *request, p *Permission) ([]byte, error) {
	d, err := tokenExpiry(q.r)
	if err != nil {
		return nil, err
	}
	out := record{}
	for k, v := range p.rec {
		out[k] = v
	}
	delete(out, grantKey)
	delete(out, "_grantPK")
	out["_token"] = mintToken(h.keys[0], p, h.now().Add(d))
	return marshal(out)
}

func (h *handler) writePermission(q *request, status int, p *Permission) error {
	b, err := h.permissionBody(q, p)
	if err != nil {
		return err
	}
	return h.writeResource(q, status, p.rec.str("_etag"), b)
}
