package blob

// Option changes a Service's data protection, which Azure turns on through
// the management plane (and this server through flags).
type Option func(*dataProtection)

// dataProtection is what the account settings outside the Blob REST
// protocol say: whether blobs keep versions, how long deleted containers
// stay restorable (0: not at all), and whether blobs' last access times
// are tracked. Blob soft delete is the DeleteRetentionPolicy of the Blob
// service properties instead.
type dataProtection struct {
	versioning         bool
	containerRetention int // days
	lastAccess         bool
}

// WithVersioning makes every write that changes a blob's content or
// metadata keep the previous state as a version.
func WithVersioning(on bool) Option { return func(d *dataProtection) { d.versioning = on } }

// WithLastAccessTracking reports each blob's last access time, as an
// account with Azure's last access time tracking policy does
// (lastaccess.go).
func WithLastAccessTracking(on bool) Option { return func(d *dataProtection) { d.lastAccess = on } }

// WithContainerRetention keeps deleted containers restorable for days
// (1 to 365); 0 deletes them at once.
func WithContainerRetention(days int) Option {
	return func(d *dataProtection) { d.containerRetention = days }
}
