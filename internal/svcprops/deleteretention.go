package svcprops

// Blob soft delete keeps deleted data for 1 to 365 days.
const (
	MinDeleteRetentionDays = 1
	MaxDeleteRetentionDays = 365
)
