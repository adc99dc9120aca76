package svcprops

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
)

// A retention policy Azure refuses is InvalidXmlDocument with where its
// reader stood (the policy's end tag) and Azure's reason, as recorded in
// the Go SDK's azblob TestAccountDeleteRetentionPolicyDaysOmitted (line
// 2, position 75) and ...DaysTooSmall (line 2, position 89).
func TestServeSetRetentionErrorPosition(t *testing.T) {
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	s := New(store, "blob", func(acct string) []byte { return []byte("p/" + acct) })
	const head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	for _, c := range []struct {
		body, line, pos, reason string
	}{
		{head + "<StorageServiceProperties><DeleteRetentionPolicy><Enabled>true</Enabled></DeleteRetentionPolicy></StorageServiceProperties>",
			"2", "75", "Element is missing: Days."},
		{head + "<StorageServiceProperties><DeleteRetentionPolicy><Enabled>true</Enabled><Days>0</Days></DeleteRetentionPolicy></StorageServiceProperties>",
			"2", "89", "Retention days must be greater than 0 and less than or equal to 365 days."},
	} {
		r := httptest.NewRequest("PUT", "/?restype=service&comp=properties", strings.NewReader(c.body))
		err := s.ServeSet(httptest.NewRecorder(), r, "a")
		var ae *azerr.Error
		if !errors.As(err, &ae) || ae.Code != azerr.ErrInvalidXmlDocument.Code {
			t.Fatalf("ServeSet: %v, want InvalidXmlDocument", err)
		}
		got := map[string]string{}
		for _, d := range ae.Details {
			got[d.Name] = d.Value
		}
		if got["LineNumber"] != c.line || got["LinePosition"] != c.pos || got["Reason"] != c.reason {
			t.Errorf("details %v, want line %s position %s reason %q", got, c.line, c.pos, c.reason)
		}
	}
}
