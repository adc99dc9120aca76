package faults

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// rulesBody is the JSON the /faults endpoint reads and writes.
type rulesBody struct {
	Rules []Rule `json:"rules"`
}

// Handler serves the rules on the admin port: GET answers them, PUT
// replaces them (a JSON {"rules":[…]} body, or the spec syntax Parse
// reads as text/plain), DELETE removes them all.
func (in *Injector) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
		case http.MethodPut, http.MethodPost:
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
			if err != nil {
				http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
				return
			}
			var rules []Rule
			if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
				var b rulesBody
				dec := json.NewDecoder(bytes.NewReader(body))
				dec.DisallowUnknownFields()
				err = dec.Decode(&b)
				rules = b.Rules
			} else {
				rules, err = Parse(string(body))
			}
			if err == nil {
				err = in.SetRules(rules)
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
		case http.MethodDelete:
			_ = in.SetRules(nil)
		default:
			w.Header().Set("Allow", "GET, PUT, POST, DELETE")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(rulesBody{Rules: in.Rules()})
	})
}
