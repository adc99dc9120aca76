package azauth

import (
	"sort"
	"testing"
)

func TestSDKHeaderOrder(t *testing.T) {
	names := []string{"x-ms-meta-a1", "x-ms-version", "x-ms-meta-a_b", "x-ms-date", "x-ms-meta-a-c", "x-ms-meta-ab"}
	sort.Slice(names, func(i, j int) bool { return sdkHeaderLess(names[i], names[j]) })
	want := []string{"x-ms-date", "x-ms-meta-a_b", "x-ms-meta-a1", "x-ms-meta-ab", "x-ms-meta-a-c", "x-ms-version"}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("order = %v, want %v", names, want)
		}
	}
}
