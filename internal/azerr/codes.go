package azerr

import "net/http"

func newError(status int, code, message string) *Error {
	return &Error{Status: status, Code: code, Message: message}
}

// Common REST API error codes, with Azure's default messages.
var (
	ErrAuthenticationFailed = newError(http.StatusForbidden, "AuthenticationFailed", "Server failed to authenticate the request. Make sure the value of Authorization header is formed correctly including the signature.")
	// ErrNoAuthenticationInformation answers a request with no credentials
	// where no public access applies. Azure's answer also carries a
	// WWW-Authenticate challenge naming its Entra ID tenant, which a local
	// server does not have.
	ErrNoAuthenticationInformation          = newError(http.StatusUnauthorized, "NoAuthenticationInformation", "Server failed to authenticate the request. Please refer to the information in the www-authenticate header.")
	ErrAuthorizationFailure                 = newError(http.StatusForbidden, "AuthorizationFailure", "This request is not authorized to perform this operation.")
	ErrAuthorizationPermissionMismatch      = newError(http.StatusForbidden, "AuthorizationPermissionMismatch", "This request is not authorized to perform this operation using this permission.")
	ErrAuthorizationResourceTypeMismatch    = newError(http.StatusForbidden, "AuthorizationResourceTypeMismatch", "This request is not authorized to perform this operation using this resource type.")
	ErrAuthorizationServiceMismatch         = newError(http.StatusForbidden, "AuthorizationServiceMismatch", "This request is not authorized to perform this operation using this service.")
	ErrAuthorizationSourceIPMismatch        = newError(http.StatusForbidden, "AuthorizationSourceIPMismatch", "This request is not authorized to perform this operation using this source IP.")
	ErrAuthorizationProtocolMismatch        = newError(http.StatusForbidden, "AuthorizationProtocolMismatch", "This request is not authorized to perform this operation using this protocol.")
	ErrConditionHeadersNotSupported         = newError(http.StatusBadRequest, "ConditionHeadersNotSupported", "Condition headers are not supported.")
	ErrConditionNotMet                      = newError(http.StatusPreconditionFailed, "ConditionNotMet", "The condition specified using HTTP conditional header(s) is not met.")
	ErrEmptyMetadataKey                     = newError(http.StatusBadRequest, "EmptyMetadataKey", "The key for one of the metadata key-value pairs is empty.")
	ErrInsufficientAccountPermissions       = newError(http.StatusForbidden, "InsufficientAccountPermissions", "The account being accessed does not have sufficient permissions to execute this operation.")
	ErrInternalError                        = newError(http.StatusInternalServerError, "InternalError", "The server encountered an internal error. Please retry the request.")
	ErrInvalidAuthenticationInfo            = newError(http.StatusBadRequest, "InvalidAuthenticationInfo", "Authentication information is not given in the correct format. Check the value of Authorization header.")
	ErrInvalidHeaderValue                   = newError(http.StatusBadRequest, "InvalidHeaderValue", "The value for one of the HTTP headers is not in the correct format.")
	ErrInvalidHttpVerb                      = newError(http.StatusBadRequest, "InvalidHttpVerb", "The HTTP verb specified was not recognized by the server.")
	ErrInvalidInput                         = newError(http.StatusBadRequest, "InvalidInput", "One of the request inputs is not valid.")
	ErrInvalidMd5                           = newError(http.StatusBadRequest, "InvalidMd5", "The MD5 value specified in the request is invalid. The MD5 value must be 128 bits and Base64-encoded.")
	ErrInvalidMetadata                      = newError(http.StatusBadRequest, "InvalidMetadata", "The metadata specified is invalid. It has characters that are not permitted.")
	ErrInvalidQueryParameterValue           = newError(http.StatusBadRequest, "InvalidQueryParameterValue", "Value for one of the query parameters specified in the request URI is invalid.")
	ErrInvalidRange                         = newError(http.StatusRequestedRangeNotSatisfiable, "InvalidRange", "The range specified is invalid for the current size of the resource.")
	ErrInvalidResourceName                  = newError(http.StatusBadRequest, "InvalidResourceName", "The specified resource name contains invalid characters.")
	ErrInvalidUri                           = newError(http.StatusBadRequest, "InvalidUri", "The requested URI does not represent any resource on the server.")
	ErrInvalidXmlDocument                   = newError(http.StatusBadRequest, "InvalidXmlDocument", "The specified XML is not syntactically valid.")
	ErrInvalidXmlNodeValue                  = newError(http.StatusBadRequest, "InvalidXmlNodeValue", "The value for one of the XML nodes is not in the correct format.")
	ErrMd5Mismatch                          = newError(http.StatusBadRequest, "Md5Mismatch", "The MD5 value specified in the request did not match with the MD5 value calculated by the server.")
	ErrCrc64Mismatch                        = newError(http.StatusBadRequest, "Crc64Mismatch", "The CRC64 value specified in the request did not match with the CRC64 value calculated by the server.")
	ErrMetadataTooLarge                     = newError(http.StatusBadRequest, "MetadataTooLarge", "The size of the specified metadata exceeds the maximum size permitted.")
	ErrMissingContentLengthHeader           = newError(http.StatusLengthRequired, "MissingContentLengthHeader", "The Content-Length header was not specified.")
	ErrMissingRequiredQueryParameter        = newError(http.StatusBadRequest, "MissingRequiredQueryParameter", "A required query parameter was not specified for this request.")
	ErrMissingRequiredHeader                = newError(http.StatusBadRequest, "MissingRequiredHeader", "A required HTTP header was not specified.")
	ErrMissingRequiredXmlNode               = newError(http.StatusBadRequest, "MissingRequiredXmlNode", "A required XML node was not specified in the request body.")
	ErrMultipleConditionHeadersNotSupported = newError(http.StatusBadRequest, "MultipleConditionHeadersNotSupported", "Multiple condition headers are not supported.")
	ErrOperationTimedOut                    = newError(http.StatusInternalServerError, "OperationTimedOut", "The operation could not be completed within the permitted time.")
	ErrOutOfRangeInput                      = newError(http.StatusBadRequest, "OutOfRangeInput", "One of the request inputs is out of range.")
	ErrOutOfRangeQueryParameterValue        = newError(http.StatusBadRequest, "OutOfRangeQueryParameterValue", "One of the query parameters specified in the request URI is outside the permissible range.")
	ErrRequestBodyTooLarge                  = newError(http.StatusRequestEntityTooLarge, "RequestBodyTooLarge", "The size of the request body exceeds the maximum size permitted.")
	ErrResourceTypeMismatch                 = newError(http.StatusConflict, "ResourceTypeMismatch", "The specified resource type does not match the type of the existing resource.")
	ErrRequestUrlFailedToParse              = newError(http.StatusBadRequest, "RequestUrlFailedToParse", "The url in the request could not be parsed.")
	ErrResourceAlreadyExists                = newError(http.StatusConflict, "ResourceAlreadyExists", "The specified resource already exists.")
	ErrResourceNotFound                     = newError(http.StatusNotFound, "ResourceNotFound", "The specified resource does not exist.")
	ErrServerBusy                           = newError(http.StatusServiceUnavailable, "ServerBusy", "The server is currently unable to receive requests. Please retry your request.")
	ErrUnsupportedHeader                    = newError(http.StatusBadRequest, "UnsupportedHeader", "One of the HTTP headers specified in the request is not supported.")
	ErrUnsupportedXmlNode                   = newError(http.StatusBadRequest, "UnsupportedXmlNode", "One of the XML nodes specified in the request body is not supported.")
	ErrUnsupportedQueryParameter            = newError(http.StatusBadRequest, "UnsupportedQueryParameter", "One of the query parameters specified in the request URI is not supported.")
	ErrUnsupportedHttpVerb                  = newError(http.StatusMethodNotAllowed, "UnsupportedHttpVerb", "The resource doesn't support the specified HTTP verb.")

	// ErrNotImplemented answers operations cerulean does not support; give
	// it a message naming the operation with WithMessage.
	ErrNotImplemented = newError(http.StatusNotImplemented, "NotImplemented", "The requested operation is not implemented by cerulean.")
	// ErrCorsPreflightFailure answers a preflight no CORS rule allows.
	ErrCorsPreflightFailure = newError(http.StatusForbidden, "CorsPreflightFailure", "CORS not enabled or no matching rule found for this request.")
	// ErrNotModified is ConditionNotMet as Azure answers it for conditional
	// GET/HEAD: 304 and no body.
	ErrNotModified = newError(http.StatusNotModified, "ConditionNotMet", "The condition specified using HTTP conditional header(s) is not met.")
)

// Blob service error codes, with Azure's default messages.
var (
	ErrBlobAlreadyExists                     = newError(http.StatusConflict, "BlobAlreadyExists", "The specified blob already exists.")
	ErrBlobNotFound                          = newError(http.StatusNotFound, "BlobNotFound", "The specified blob does not exist.")
	ErrBlockCountExceedsLimit                = newError(http.StatusConflict, "BlockCountExceedsLimit", "The committed block count cannot exceed the maximum limit of 50,000 blocks.")
	ErrBlockListTooLong                      = newError(http.StatusBadRequest, "BlockListTooLong", "The block list may not contain more than 50,000 blocks.")
	ErrContainerAlreadyExists                = newError(http.StatusConflict, "ContainerAlreadyExists", "The specified container already exists.")
	ErrContainerBeingDeleted                 = newError(http.StatusConflict, "ContainerBeingDeleted", "The specified container is being deleted.")
	ErrContainerDisabled                     = newError(http.StatusConflict, "ContainerDisabled", "The specified container has been disabled by the administrator.")
	ErrContainerNotFound                     = newError(http.StatusNotFound, "ContainerNotFound", "The specified container does not exist.")
	ErrInvalidBlobOrBlock                    = newError(http.StatusBadRequest, "InvalidBlobOrBlock", "The specified blob or block content is invalid.")
	ErrInvalidBlobTier                       = newError(http.StatusBadRequest, "InvalidBlobTier", "The specified blob tier is invalid.")
	ErrInvalidBlobType                       = newError(http.StatusConflict, "InvalidBlobType", "The blob type is invalid for this operation.")
	ErrInvalidBlockId                        = newError(http.StatusBadRequest, "InvalidBlockId", "The specified block ID is invalid. The block ID must be Base64-encoded.")
	ErrInvalidBlockList                      = newError(http.StatusBadRequest, "InvalidBlockList", "The specified block list is invalid.")
	ErrInvalidOperation                      = newError(http.StatusBadRequest, "InvalidOperation", "Invalid operation against a blob snapshot.")
	ErrInvalidPageRange                      = newError(http.StatusRequestedRangeNotSatisfiable, "InvalidPageRange", "The page range specified is invalid.")
	ErrInvalidVersionForPageBlobOperation    = newError(http.StatusBadRequest, "InvalidVersionForPageBlobOperation", "All operations on page blobs require at least version 2009-09-19.")
	ErrMaxBlobSizeConditionNotMet            = newError(http.StatusPreconditionFailed, "MaxBlobSizeConditionNotMet", "The max blob size condition specified was not met.")
	ErrAppendPositionConditionNotMet         = newError(http.StatusPreconditionFailed, "AppendPositionConditionNotMet", "The append position condition specified was not met.")
	ErrSequenceNumberConditionNotMet         = newError(http.StatusPreconditionFailed, "SequenceNumberConditionNotMet", "The sequence number condition specified was not met.")
	ErrLeaseAlreadyPresent                   = newError(http.StatusConflict, "LeaseAlreadyPresent", "There is already a lease present.")
	ErrLeaseAlreadyBroken                    = newError(http.StatusConflict, "LeaseAlreadyBroken", "The lease has already been broken and cannot be broken again.")
	ErrLeaseIdMismatchWithBlobOperation      = newError(http.StatusPreconditionFailed, "LeaseIdMismatchWithBlobOperation", "The lease ID specified did not match the lease ID for the blob.")
	ErrLeaseIdMismatchWithContainerOperation = newError(http.StatusPreconditionFailed, "LeaseIdMismatchWithContainerOperation", "The lease ID specified did not match the lease ID for the container.")
	ErrLeaseIdMismatchWithLeaseOperation     = newError(http.StatusConflict, "LeaseIdMismatchWithLeaseOperation", "The lease ID specified did not match the lease ID for the blob/container.")
	ErrLeaseIdMissing                        = newError(http.StatusPreconditionFailed, "LeaseIdMissing", "There is currently a lease on the blob/container and no lease ID was specified in the request.")
	ErrLeaseIsBreakingAndCannotBeAcquired    = newError(http.StatusConflict, "LeaseIsBreakingAndCannotBeAcquired", "The lease ID matched, but the lease is currently in breaking state and cannot be acquired until it is broken.")
	ErrLeaseIsBreakingAndCannotBeChanged     = newError(http.StatusConflict, "LeaseIsBreakingAndCannotBeChanged", "The lease ID matched, but the lease is currently in breaking state and cannot be changed.")
	ErrLeaseIsBrokenAndCannotBeRenewed       = newError(http.StatusConflict, "LeaseIsBrokenAndCannotBeRenewed", "The lease ID matched, but the lease has been broken explicitly and cannot be renewed.")
	ErrLeaseLost                             = newError(http.StatusPreconditionFailed, "LeaseLost", "A lease ID was specified, but the lease for the blob/container has expired.")
	ErrLeaseNotPresentWithBlobOperation      = newError(http.StatusPreconditionFailed, "LeaseNotPresentWithBlobOperation", "There is currently no lease on the blob.")
	ErrLeaseNotPresentWithContainerOperation = newError(http.StatusPreconditionFailed, "LeaseNotPresentWithContainerOperation", "There is currently no lease on the container.")
	ErrLeaseNotPresentWithLeaseOperation     = newError(http.StatusConflict, "LeaseNotPresentWithLeaseOperation", "There is currently no lease on the blob/container.")
	ErrSnapshotsPresent                      = newError(http.StatusConflict, "SnapshotsPresent", "This operation is not permitted because the blob has snapshots.")
	ErrTargetConditionNotMet                 = newError(http.StatusPreconditionFailed, "TargetConditionNotMet", "The target condition specified using HTTP conditional header(s) is not met.")
	ErrSourceConditionNotMet                 = newError(http.StatusPreconditionFailed, "SourceConditionNotMet", "The source condition specified using HTTP conditional header(s) is not met.")
	ErrPendingCopyOperation                  = newError(http.StatusConflict, "PendingCopyOperation", "There is currently a pending copy operation.")
	ErrNoPendingCopyOperation                = newError(http.StatusConflict, "NoPendingCopyOperation", "There is currently no pending copy operation.")
	ErrCopyIdMismatch                        = newError(http.StatusConflict, "CopyIdMismatch", "The specified copy ID did not match the copy ID for the pending copy operation.")
	ErrPreviousSnapshotNotFound              = newError(http.StatusConflict, "PreviousSnapshotNotFound", "The previous snapshot is not found.")
	ErrBlobIsSealed                          = newError(http.StatusConflict, "BlobIsSealed", "The blob is sealed and its contents cannot be modified.")
	ErrBlobArchived                          = newError(http.StatusConflict, "BlobArchived", "This operation is not permitted on an archived blob.")
	ErrBlobBeingRehydrated                   = newError(http.StatusConflict, "BlobBeingRehydrated", "This operation is not permitted because the blob is being rehydrated.")
	ErrCannotVerifyCopySource                = newError(http.StatusForbidden, "CannotVerifyCopySource", "This request is not authorized to perform this operation using this source.")
	ErrInvalidSourceBlobType                 = newError(http.StatusConflict, "InvalidSourceBlobType", "The source blob type is invalid for this operation.")
	ErrInvalidSourceBlobUrl                  = newError(http.StatusBadRequest, "InvalidSourceBlobUrl", "The source url for a copy blob operation is invalid.")
)

// File service error codes, with Azure's default messages
// (https://learn.microsoft.com/rest/api/storageservices/file-service-error-codes).
var (
	ErrShareAlreadyExists = newError(http.StatusConflict, "ShareAlreadyExists", "The specified share already exists.")
	ErrShareBeingDeleted  = newError(http.StatusConflict, "ShareBeingDeleted", "The specified share is being deleted. Try operation later.")
	ErrShareNotFound      = newError(http.StatusNotFound, "ShareNotFound", "The specified share does not exist.")
	// ErrShareSnapshotNotFound: Delete Share naming a snapshot of an
	// existing share that is not there (@azure/storage-file-share's
	// recording deleteIfExists).
	ErrShareSnapshotNotFound = newError(http.StatusNotFound, "ShareSnapshotNotFound", "The specified share snapshot was not found.")
	ErrParentNotFound        = newError(http.StatusNotFound, "ParentNotFound", "The specified parent path does not exist.")
	ErrDirectoryNotEmpty     = newError(http.StatusConflict, "DirectoryNotEmpty", "The specified directory is not empty.")

	ErrShareHasSnapshots                  = newError(http.StatusConflict, "ShareHasSnapshots", "The share has snapshots and the operation requires no snapshots.")
	ErrShareSnapshotCountExceeded         = newError(http.StatusConflict, "ShareSnapshotCountExceeded", "The total number of snapshots for the share is over the limit.")
	ErrShareSnapshotOperationNotSupported = newError(http.StatusBadRequest, "ShareSnapshotOperationNotSupported", "The operation is not supported on a share snapshot.")
	ErrFileGenerationMismatch             = newError(http.StatusConflict, "FileGenerationMismatch", "The file has been recreated since the previous snapshot was taken.")
	// SMB handles against FileREST
	// (https://learn.microsoft.com/rest/api/storageservices/managing-file-locks).
	// The error-code table lists ReadOnlyAttribute as 409, but the file
	// locks page, which describes the behaviour, answers 412.
	ErrSharingViolation         = newError(http.StatusConflict, "SharingViolation", "The specified resource may be in use by an SMB client.")
	ErrDeletePending            = newError(http.StatusConflict, "DeletePending", "The specified resource is marked for deletion by an SMB client.")
	ErrReadOnlyAttribute        = newError(http.StatusPreconditionFailed, "ReadOnlyAttribute", "The specified resource is read-only and cannot be modified at this time.")
	ErrShareSizeLimitReached    = newError(http.StatusForbidden, "ShareSizeLimitReached", "The specified share is full.")
	ErrFileInvalidPermission    = newError(http.StatusBadRequest, "FileInvalidPermission", "The specified file permission is not valid.")
	ErrFileInvalidPermissionKey = newError(http.StatusBadRequest, "FileInvalidPermissionKey", "The specified file permission key does not exist in the share.")
	ErrFileLockConflict         = newError(http.StatusConflict, "FileLockConflict", "A portion of the specified file is locked by an SMB client.")

	ErrLeaseIdMismatchWithFileOperation = newError(http.StatusPreconditionFailed, "LeaseIdMismatchWithFileOperation", "The lease ID specified did not match the lease ID for the file.")
	ErrLeaseNotPresentWithFileOperation = newError(http.StatusPreconditionFailed, "LeaseNotPresentWithFileOperation", "There is currently no lease on the file.")
)

// Queue service error codes, with Azure's default messages
// (https://learn.microsoft.com/rest/api/storageservices/queue-service-error-codes).
var (
	ErrInvalidMarker      = newError(http.StatusBadRequest, "InvalidMarker", "The specified marker is invalid.")
	ErrMessageNotFound    = newError(http.StatusNotFound, "MessageNotFound", "The specified message does not exist.")
	ErrMessageTooLarge    = newError(http.StatusBadRequest, "MessageTooLarge", "The message exceeds the maximum allowed size.")
	ErrPopReceiptMismatch = newError(http.StatusBadRequest, "PopReceiptMismatch", "The specified pop receipt did not match the pop receipt for a dequeued message.")
	ErrQueueAlreadyExists = newError(http.StatusConflict, "QueueAlreadyExists", "The specified queue already exists.")
	ErrQueueBeingDeleted  = newError(http.StatusConflict, "QueueBeingDeleted", "The specified queue is being deleted.")
	ErrQueueDisabled      = newError(http.StatusConflict, "QueueDisabled", "The specified queue has been disabled by the administrator.")
	ErrQueueNotEmpty      = newError(http.StatusConflict, "QueueNotEmpty", "The specified queue is not empty.")
	ErrQueueNotFound      = newError(http.StatusNotFound, "QueueNotFound", "The specified queue does not exist.")
)

// Table service error codes, with Azure's default messages
// (https://learn.microsoft.com/rest/api/storageservices/table-service-error-codes).
// The Table service sends them in OData JSON (WriteErrorJSON).
var (
	ErrAtomFormatNotSupported       = newError(http.StatusUnsupportedMediaType, "AtomFormatNotSupported", "Atom format is not supported.")
	ErrDuplicatePropertiesSpecified = newError(http.StatusBadRequest, "DuplicatePropertiesSpecified", "A property is specified more than one time.")
	ErrEntityAlreadyExists          = newError(http.StatusConflict, "EntityAlreadyExists", "The specified entity already exists.")
	ErrEntityTooLarge               = newError(http.StatusBadRequest, "EntityTooLarge", "The entity is larger than the maximum size permitted.")
	ErrInvalidDuplicateRow          = newError(http.StatusBadRequest, "InvalidDuplicateRow", "The batch request contains multiple changes with same row key. An entity can appear only once in a batch request.")
	ErrKeyValueTooLarge             = newError(http.StatusBadRequest, "KeyValueTooLarge", "The size of the PartitionKey or RowKey exceeds the maximum permitted.")
	ErrPropertiesNeedValue          = newError(http.StatusBadRequest, "PropertiesNeedValue", "Values have not been specified for all properties in the entity.")
	ErrPropertyNameInvalid          = newError(http.StatusBadRequest, "PropertyNameInvalid", "The property name is invalid.")
	ErrPropertyNameTooLong          = newError(http.StatusBadRequest, "PropertyNameTooLong", "The property name exceeds the maximum allowed length.")
	ErrPropertyValueTooLarge        = newError(http.StatusBadRequest, "PropertyValueTooLarge", "The property value is larger than the maximum size permitted.")
	ErrTableAlreadyExists           = newError(http.StatusConflict, "TableAlreadyExists", "The table specified already exists.")
	ErrTableBeingDeleted            = newError(http.StatusConflict, "TableBeingDeleted", "The specified table is being deleted.")
	ErrTableNotFound                = newError(http.StatusNotFound, "TableNotFound", "The table specified does not exist.")
	ErrTooManyProperties            = newError(http.StatusBadRequest, "TooManyProperties", "The entity contains more properties than allowed.")
	ErrUpdateConditionNotSatisfied  = newError(http.StatusPreconditionFailed, "UpdateConditionNotSatisfied", "The update condition specified in the request was not satisfied.")
	ErrXMethodIncorrectCount        = newError(http.StatusBadRequest, "XMethodIncorrectCount", "More than one X-HTTP-Method is specified.")
	ErrXMethodIncorrectValue        = newError(http.StatusBadRequest, "XMethodIncorrectValue", "The specified X-HTTP-Method is invalid.")
	ErrXMethodNotUsingPost          = newError(http.StatusBadRequest, "XMethodNotUsingPost", "The request uses X-HTTP-Method with an HTTP verb other than POST.")
	ErrMethodNotAllowed             = newError(http.StatusMethodNotAllowed, "MethodNotAllowed", "The requested method is not allowed on the specified resource.")
	ErrJSONFormatNotSupported       = newError(http.StatusUnsupportedMediaType, "JsonFormatNotSupported", "JSON format is not supported.")
	ErrInvalidValueType             = newError(http.StatusBadRequest, "InvalidValueType", "The value specified is invalid.")
)
