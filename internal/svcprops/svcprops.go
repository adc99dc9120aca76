package svcprops

import (
	"context"
	"errors"
	"net/http"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// Store keeps one service's properties per account under key(acct).
type Store struct {
	kv      kv.Store
	service string // "blob", "queue", "table" or "file"
	key     func(acct string) []byte
}

// New returns the properties store of service, kept under key(acct).
func New(store kv.Store, service string, key func(acct string) []byte) *Store {
	return &Store{kv: store, service: service, key: key}
}

func (s *Store) load(r kv.Reader, acct string) (ServiceProperties, error) {
	p := DefaultServiceProperties(s.service)
	_, err := record.Load(r, s.key(acct), &p)
	return p, err
}

// Get returns the account's properties (the defaults before any Set).
func (s *Store) Get(ctx context.Context, acct string) (ServiceProperties, error) {
	var p ServiceProperties
	err := s.kv.View(ctx, func(r kv.Reader) error {
		var err error
		p, err = s.load(r, acct)
		return err
	})
	return p, err
}

// Set overlays the elements present in set (last writer wins). Elements
// that only the Blob or the File service has are ignored elsewhere.
func (s *Store) Set(ctx context.Context, acct string, set ServiceProperties) error {
	if err := set.Validate(); err != nil {
		return err
	}
	if s.service != "blob" {
		set.DeleteRetentionPolicy, set.StaticWebsite = nil, nil
	}
	if s.service != "file" {
		set.ProtocolSettings = nil
	}
	if s.service == "queue" && set.Cors != nil {
		cors := &CorsXML{Rules: make([]CorsRuleXML, 0, len(set.Cors.Rules))}
		for _, rule := range set.Cors.Rules {
			cors.Rules = append(cors.Rules, rule.normalized())
		}
		set.Cors = cors
	}
	return s.kv.Update(ctx, func(tx kv.Txn) error {
		p, err := s.load(tx, acct)
		if err != nil {
			return err
		}
		p.Merge(set)
		return record.Store(tx, s.key(acct), p)
	})
}

// CORSRules returns the account's CORS rules.
func (s *Store) CORSRules(ctx context.Context, acct string) ([]azhttp.CORSRule, error) {
	p, err := s.Get(ctx, acct)
	if err != nil {
		return nil, err
	}
	return p.CORSRules(), nil
}

// ServeGet answers Get Service Properties.
func (s *Store) ServeGet(w http.ResponseWriter, r *http.Request, acct string) error {
	p, err := s.Get(r.Context(), acct)
	if err != nil {
		return err
	}
	return azhttp.WriteXML(w, http.StatusOK, p)
}

// ServeSet answers Set Service Properties (202 Accepted, as Azure does).
func (s *Store) ServeSet(w http.ResponseWriter, r *http.Request, acct string) error {
	var p ServiceProperties
	body, err := azhttp.ReadXMLBody(r, &p)
	if err != nil {
		return err
	}
	if err := s.Set(r.Context(), acct, p); err != nil {
		var re *retentionError
		if errors.As(err, &re) {
			// Azure checks a retention policy once it has read it, and
			// says where its reader stood: at the policy's end tag.
			line, pos := azhttp.EndTagPosition(body, re.path...)
			return azhttp.InvalidXMLAt(line, pos, re.reason)
		}
		return err
	}
	return azhttp.WriteEmpty(w, http.StatusAccepted)
}
