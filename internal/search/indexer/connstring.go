package indexer

import (
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azauth"
)

// connectionString splits "Key=Value;Key=Value" into lower-cased keys.
// A value may itself hold '=' (base64 keys do).
func connectionString(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("the connection string is malformed near '%s'", redact(part))
		}
		out[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	return out, nil
}

// redact keeps a fragment of a connection string printable without its
// secret.
func redact(part string) string {
	if k, _, ok := strings.Cut(part, "="); ok {
		return k + "=…"
	}
	if len(part) > 8 {
		return part[:8] + "…"
	}
	return part
}

// storageTarget is the account a Storage connection string names, checked
// against the server's accounts, and the blob endpoint that
// metadata_storage_path is built from.
type storageTarget struct {
	account      string
	blobEndpoint string
}

// devBlobEndpoint is where UseDevelopmentStorage=true points, as the SDKs
// expand it.
const devBlobEndpoint = "http://127.0.0.1:10000/" + azauth.DevAccount

func parseStorage(conn string, accounts *azauth.Accounts) (*storageTarget, error) {
	kv, err := connectionString(conn)
	if err != nil {
		return nil, err
	}
	if _, ok := kv["resourceid"]; ok {
		return nil, fmt.Errorf("connection strings with ResourceId (managed identity) are not supported by cerulean; use AccountName and AccountKey")
	}
	if strings.EqualFold(kv["usedevelopmentstorage"], "true") {
		return &storageTarget{account: azauth.DevAccount, blobEndpoint: devBlobEndpoint}, nil
	}
	if _, ok := kv["sharedaccesssignature"]; ok {
		return nil, fmt.Errorf("connection strings with a SharedAccessSignature are not supported by cerulean; use AccountName and AccountKey")
	}
	name, key := kv["accountname"], kv["accountkey"]
	if name == "" || key == "" {
		return nil, fmt.Errorf("the storage connection string needs AccountName and AccountKey")
	}
	acct, ok := accounts.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("the storage account '%s' does not exist on this server", name)
	}
	raw, err := base64.StdEncoding.DecodeString(key)
	if err != nil || !keyMatches(raw, acct.Keys) {
		return nil, fmt.Errorf("the AccountKey of the connection string is not a key of the storage account '%s'", name)
	}
	endpoint := kv["blobendpoint"]
	if endpoint == "" {
		proto := kv["defaultendpointsprotocol"]
		if proto == "" {
			proto = "https"
		}
		suffix := kv["endpointsuffix"]
		if suffix == "" {
			suffix = "core.windows.net"
		}
		endpoint = proto + "://" + name + ".blob." + suffix
	}
	if u, err := url.Parse(endpoint); err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("the BlobEndpoint of the connection string is not a URL")
	}
	return &storageTarget{account: name, blobEndpoint: strings.TrimRight(endpoint, "/")}, nil
}

func keyMatches(key []byte, keys [][]byte) bool {
	for _, k := range keys {
		if subtle.ConstantTimeCompare(key, k) == 1 {
			return true
		}
	}
	return false
}

// parseCosmos checks AccountEndpoint=…;AccountKey=…;Database=… against
// the Cosmos DB account's master keys and returns the database.
func parseCosmos(conn string, keys [][]byte) (database string, err error) {
	kv, err := connectionString(conn)
	if err != nil {
		return "", err
	}
	if _, ok := kv["resourceid"]; ok {
		return "", fmt.Errorf("connection strings with ResourceId (managed identity) are not supported by cerulean; use AccountEndpoint, AccountKey and Database")
	}
	if kv["accountendpoint"] == "" || kv["accountkey"] == "" || kv["database"] == "" {
		return "", fmt.Errorf("the Cosmos DB connection string needs AccountEndpoint, AccountKey and Database")
	}
	raw, err := base64.StdEncoding.DecodeString(kv["accountkey"])
	if err != nil || !keyMatches(raw, keys) {
		return "", fmt.Errorf("the AccountKey of the connection string is not a key of this server's Cosmos DB account")
	}
	return kv["database"], nil
}
