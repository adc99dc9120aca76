// Package security holds the permission matrix: for every service and every
// kind of credential, requests over the wire to an in-process server are
// allowed exactly where Azure allows them and refused with Azure's status
// and error code everywhere else. The tests live in one file per concern:
// the SAS permission letters of each Storage service (matrix_*), the
// validity of a token (tokens), Shared Key and its clock skew (sharedkey),
// Cosmos DB master keys and resource tokens (cosmos), Search api-keys
// (search), hostile XML and JSON bodies (documents) and names that try to
// leave their container or share (names).
package security
