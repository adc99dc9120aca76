package blob

import "github.com/cerulean-db/cerulean/internal/azauth"

// accountInfoNeed is what Get Account Information needs. It answers on the
// account, container and blob URLs alike so that a SAS for any of them can
// ask: an account SAS of any resource type and permission, or a service
// SAS for the container or blob addressed (which need not exist).
var accountInfoNeed = azauth.Need{Service: 'b'}
