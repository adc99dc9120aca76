package azerr

import "net/http"

// Errors of customer-provided keys and encryption scopes.
var (
	// ErrBlobUsesCustomerSpecifiedEncryption answers a request without the
	// customer-provided key of the blob it reads or changes.
	ErrBlobUsesCustomerSpecifiedEncryption = newError(http.StatusConflict, "BlobUsesCustomerSpecifiedEncryption",
		"The blob is encrypted with customer specified encryption, but it was not provided in the request.")
	// ErrBlobCustomerSpecifiedEncryptionMismatch answers a customer-provided
	// key for a blob encrypted with an encryption scope.
	ErrBlobCustomerSpecifiedEncryptionMismatch = newError(http.StatusConflict, "BlobCustomerSpecifiedEncryptionMismatch",
		"The given customer specified encryption does not match the encryption used to encrypt the blob.")
	// ErrContainerOperationFailure answers a Create Container that gives
	// only one of x-ms-default-encryption-scope and
	// x-ms-deny-encryption-scope-override.
	ErrContainerOperationFailure = newError(http.StatusBadRequest, "ContainerOperationFailure",
		"Container encryption policy missing header: x-ms-default-encryption-scope and x-ms-deny-encryption-scope-override are required.")
)
