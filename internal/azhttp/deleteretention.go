package azhttp

// Blob soft delete keeps deleted data for 1 to 365 days.
const (
	MinDeleteRetentionDays = 1
	MaxDeleteRetentionDays = 365
)

// validateDeleteRetention checks the Blob service's DeleteRetentionPolicy
// as Azure does: an enabled policy needs Days within range, a disabled
// one takes none.
func (p ServiceProperties) validateDeleteRetention() error {
	d := p.DeleteRetentionPolicy
	switch {
	case d == nil:
		return nil
	case d.Enabled && d.Days == nil:
		return ErrInvalidXmlDocument.WithMessage("XML specified is not syntactically valid. Element Days is expected when DeleteRetentionPolicy is enabled.")
	case !d.Enabled && d.Days != nil:
		return ErrInvalidXmlDocument.WithMessage("XML specified is not syntactically valid. Element Days is only expected when DeleteRetentionPolicy is enabled.")
	case d.Enabled && (*d.Days < MinDeleteRetentionDays || *d.Days > MaxDeleteRetentionDays):
		return ErrInvalidXmlNodeValue
	}
	return nil
}
