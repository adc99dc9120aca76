// Package azhttp is the HTTP plumbing every cerulean storage service shares:
// Azure's error model and error codes, the request middleware (request ids,
// x-ms-version handling, logging, panic recovery, CORS), the account table,
// and authentication of Shared Key, Shared Key Lite and shared access
// signature (SAS) requests.
//
// The wire behaviour follows the Azure Storage REST reference ("Authorize
// with Shared Key", "Create an account SAS", "Create a service SAS", "CORS
// support for Azure Storage", "Status and error codes"), so that the official
// Azure SDKs work against cerulean unchanged. Where the SDKs deviate from the
// documents (header ordering, path escaping, SAS layouts signed with old
// versions) the verifier accepts both forms rather than rejecting real
// clients.
//
// URL styles: HostStyle decides, for every storage service alike, whether
// a request names its account in the Host (production style,
// account.blob.core.windows.net) or in the first path segment (path
// style); handlers always see the path-style form, and Shared Key is
// verified over the path the client actually sent. Over HTTPS the raw
// header bytes are kept by CaseTLSListener, with CaseTLS restoring r.TLS.
package azhttp
