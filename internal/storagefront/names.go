package storagefront

import "strings"

// ValidName applies the naming rule Azure gives containers, shares and
// queues alike: 3 to 63 lower-case letters, digits and single hyphens,
// starting and ending with a letter or digit. Each service decides which
// error a bad name answers.
func ValidName(n string) bool {
	if len(n) < 3 || len(n) > 63 || n[0] == '-' || n[len(n)-1] == '-' || strings.Contains(n, "--") {
		return false
	}
	for _, c := range n {
		if ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-'; !ok {
			return false
		}
	}
	return true
}
