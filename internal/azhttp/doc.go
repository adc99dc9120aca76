// Package azhttp is the HTTP plumbing every cerulean storage service
// shares: the request middleware (Wrap: request ids, x-ms-version
// handling, logging, panic recovery, CORS), the writers of Azure's error
// documents (WriteError, WriteErrorJSON; the errors themselves are
// azerr's), the record of the operation a request was routed to (Routed),
// and the wire helpers of the Storage protocols: XML bodies and their
// shape limits, byte ranges, metadata headers, lease requests, Set/Get
// ACL bodies, header and response case.
//
// Authentication is azauth's, the error model azerr's, structured message
// bodies azbody's; azhttp uses them and none of them uses azhttp.
//
// URL styles: HostStyle decides, for every storage service alike, whether
// a request names its account in the Host (production style,
// account.blob.core.windows.net) or in the first path segment (path
// style); handlers always see the path-style form, and Shared Key is
// verified over the path the client actually sent. Over HTTPS the raw
// header bytes are kept by CaseTLSListener, with CaseTLS restoring r.TLS.
package azhttp
