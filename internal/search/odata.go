package search

import (
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// metadataLevel is how much OData control information an answer carries,
// as the request's Accept asks: odata.metadata=none leaves @odata.context
// out; minimal is the default (and what full is answered with).
type metadataLevel string

const (
	metadataMinimal metadataLevel = "minimal"
	metadataNone    metadataLevel = "none"
)

// requestedMetadata reads odata.metadata from the request's Accept header.
func requestedMetadata(r *http.Request) metadataLevel {
	for _, accept := range r.Header.Values("Accept") {
		for _, part := range strings.Split(accept, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil || (mt != "application/json" && mt != "*/*" && mt != "application/*") {
				continue
			}
			if strings.EqualFold(params["odata.metadata"], "none") {
				return metadataNone
			}
		}
	}
	return metadataMinimal
}

// jsonContentType is the media type of a JSON answer at the request's
// metadata level, written as the service writes it (the Python SDK's
// recordings: "application/json; odata.metadata=minimal;
// odata.streaming=true; charset=utf-8", and odata.metadata=none for
// requests that ask for none).
func jsonContentType(r *http.Request) string {
	return "application/json; odata.metadata=" + string(requestedMetadata(r)) + "; odata.streaming=true; charset=utf-8"
}

// errorContentType is the media type of an error body: the service sends
// no OData parameters with it (the synonym map recording's 412).
const errorContentType = "application/json; charset=utf-8"

// serviceURL is the service's root as the client addressed it: the scheme
// it used (https when the connection is TLS) and the Host it sent, so that
// @odata.context, @odata.nextLink and Location lead back to this server.
func serviceURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// entityPath is the OData path of one resource: /indexes('name'), a quote
// in the name doubled.
func entityPath(kind Kind, name string) string {
	return "/" + string(kind) + "('" + url.PathEscape(strings.ReplaceAll(name, "'", "''")) + "')"
}

// resourceLocation is the URL a 201 Created names in Location: the new
// resource at the api-version of the request that created it.
func resourceLocation(r *http.Request, kind Kind, name string) string {
	return serviceURL(r) + entityPath(kind, name) + "?api-version=" + url.QueryEscape(r.URL.Query().Get("api-version"))
}
