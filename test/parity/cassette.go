package parity

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A cassette is a recording in the go-vcr format the Azure SDK for Go
// wrote before the test proxy (its legacy storage package and the first
// azblob and aztables releases): YAML, a list of interactions, headers as
// lists, bodies as text.
type cassette struct {
	Interactions []struct {
		Request struct {
			Body    string              `yaml:"body"`
			Headers map[string][]string `yaml:"headers"`
			URL     string              `yaml:"url"`
			Method  string              `yaml:"method"`
		} `yaml:"request"`
		Response struct {
			Body    string              `yaml:"body"`
			Headers map[string][]string `yaml:"headers"`
			Code    int                 `yaml:"code"`
		} `yaml:"response"`
	} `yaml:"interactions"`
}

// parseCassette reads a go-vcr cassette into the test proxy's entries,
// each body stored as the test proxy stores it (JSON as JSON, text as a
// string, anything else base64), so that one decoder serves both.
func parseCassette(data []byte) ([]Entry, error) {
	var c cassette
	if err := yaml.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	entries := make([]Entry, 0, len(c.Interactions))
	for i, it := range c.Interactions {
		reqH, respH := joinHeaders(it.Request.Headers), joinHeaders(it.Response.Headers)
		ct, _ := reqH.Get("Content-Type")
		reqBody, err := encodeBody(it.Request.Body, ct)
		if err != nil {
			return nil, fmt.Errorf("interaction %d request body: %w", i, err)
		}
		ct, _ = respH.Get("Content-Type")
		respBody, err := encodeBody(it.Response.Body, ct)
		if err != nil {
			return nil, fmt.Errorf("interaction %d response body: %w", i, err)
		}
		entries = append(entries, Entry{
			RequestURI:      it.Request.URL,
			RequestMethod:   it.Request.Method,
			RequestHeaders:  reqH,
			RequestBody:     reqBody,
			StatusCode:      it.Response.Code,
			ResponseHeaders: respH,
			ResponseBody:    respBody,
		})
	}
	return entries, nil
}

// joinHeaders joins each header's values with ", ", as they went over
// the wire.
func joinHeaders(h map[string][]string) Headers {
	out := make(Headers, len(h))
	for k, v := range h {
		out[k] = strings.Join(v, ", ")
	}
	return out
}

// encodeBody is decodeBody's inverse for a body recorded as text.
func encodeBody(body, contentType string) (json.RawMessage, error) {
	switch {
	case body == "":
		return json.RawMessage("null"), nil
	case strings.Contains(strings.ToLower(contentType), "json") && json.Valid([]byte(body)) && strings.TrimSpace(body)[0] != '"':
		return json.RawMessage(body), nil
	case isText(contentType):
		return json.Marshal(body)
	}
	return json.Marshal(base64.StdEncoding.EncodeToString([]byte(body)))
}
