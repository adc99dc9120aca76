package usage

// SetBasePage makes the base count's pages n records long until the
// returned function restores them.
func SetBasePage(n int) (restore func()) {
	was := basePage
	basePage = n
	return func() { basePage = was }
}
