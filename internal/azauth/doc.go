// Package azauth proves who sent an Azure Storage request and what it may
// do: the account table (Accounts), Shared Key and Shared Key Lite
// verification and signing, account, service and table shared access
// signatures (SAS) with their response-header overrides, stored access
// policies (SignedIdentifier, StoredPolicy), the request-date skew check,
// and the permission checks of an authenticated Access.
//
// The wire behaviour follows the Azure Storage REST reference ("Authorize
// with Shared Key", "Create an account SAS", "Create a service SAS"), so
// that the official Azure SDKs work against cerulean unchanged. Where the
// SDKs deviate from the documents (header ordering, path escaping, SAS
// layouts signed with old versions) the verifier accepts both forms rather
// than rejecting real clients. Shared Key is verified over the path the
// client sent: azhttp.HostStyle records it (HostStyleRequest) before it
// rewrites a host-style request to path style.
//
// Errors are azerr's; the package knows nothing of the HTTP middleware.
package azauth
