package conditions

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestCheck(t *testing.T) {
	lm := time.Date(2026, 11, 22, 10, 0, 0, 500_000_000, time.UTC)
	at := func(d time.Duration) string { return lm.Truncate(time.Second).Add(d).Format(http.TimeFormat) }
	exists := State{Exists: true, ETag: `"0x1"`, LastModified: lm}
	missing := State{}
	tests := []struct {
		name    string
		headers map[string]string
		kind    Kind
		state   State
		want    error
	}{
		{"no conditions", nil, Write, exists, nil},
		{"if-match equal", map[string]string{"If-Match": `"0x1"`}, Write, exists, nil},
		{"if-match unquoted", map[string]string{"If-Match": `0x1`}, Write, exists, nil},
		{"if-match list", map[string]string{"If-Match": `"0x9", "0x1"`}, Write, exists, nil},
		{"if-match stale", map[string]string{"If-Match": `"0x0"`}, Write, exists, ErrConditionNotMet},
		{"if-match stale read", map[string]string{"If-Match": `"0x0"`}, Read, exists, ErrConditionNotMet},
		{"if-match star exists", map[string]string{"If-Match": `*`}, Write, exists, nil},
		{"if-match star missing", map[string]string{"If-Match": `*`}, Write, missing, ErrConditionNotMet},
		{"if-match missing", map[string]string{"If-Match": `"0x1"`}, Write, missing, ErrConditionNotMet},
		{"if-none-match star create exists", map[string]string{"If-None-Match": `*`}, Create, exists, ErrAlreadyExists},
		{"if-none-match star create missing", map[string]string{"If-None-Match": `*`}, Create, missing, nil},
		{"if-none-match star write exists", map[string]string{"If-None-Match": `*`}, Write, exists, ErrConditionNotMet},
		{"if-none-match same read", map[string]string{"If-None-Match": `"0x1"`}, Read, exists, ErrNotModified},
		{"if-none-match same write", map[string]string{"If-None-Match": `"0x1"`}, Write, exists, ErrConditionNotMet},
		{"if-none-match other read", map[string]string{"If-None-Match": `"0x2"`}, Read, exists, nil},
		{"ims equal read", map[string]string{"If-Modified-Since": at(0)}, Read, exists, ErrNotModified},
		{"ims before read", map[string]string{"If-Modified-Since": at(-time.Second)}, Read, exists, nil},
		{"ims after read", map[string]string{"If-Modified-Since": at(time.Second)}, Read, exists, ErrNotModified},
		{"ims equal write", map[string]string{"If-Modified-Since": at(0)}, Write, exists, ErrConditionNotMet},
		{"ius equal", map[string]string{"If-Unmodified-Since": at(0)}, Write, exists, nil},
		{"ius before", map[string]string{"If-Unmodified-Since": at(-time.Second)}, Write, exists, ErrConditionNotMet},
		{"ius after", map[string]string{"If-Unmodified-Since": at(time.Second)}, Write, exists, nil},
		{"ius before read", map[string]string{"If-Unmodified-Since": at(-time.Second)}, Read, exists, ErrConditionNotMet},
		{"bad date ignored", map[string]string{"If-Modified-Since": "yesterday"}, Read, exists, nil},
		{"if-match wins over ius", map[string]string{"If-Match": `"0x1"`, "If-Unmodified-Since": at(-time.Second)}, Write, exists, nil},
		{"if-none-match wins over ims", map[string]string{"If-None-Match": `"0x2"`, "If-Modified-Since": at(time.Second)}, Read, exists, nil},
		{"match and none-match", map[string]string{"If-Match": `"0x1"`, "If-None-Match": `"0x1"`}, Read, exists, ErrNotModified},
		{"ims on missing", map[string]string{"If-Modified-Since": at(0)}, Read, missing, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.headers {
				h.Set(k, v)
			}
			got := FromHeader(h, "").Check(tc.kind, tc.state)
			if !errors.Is(got, tc.want) { // errors.Is(nil, nil) holds
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPrefixAndEmpty(t *testing.T) {
	h := http.Header{}
	h.Set("x-ms-source-if-match", `"0x5"`)
	if !FromHeader(h, "").Empty() {
		t.Fatal("unprefixed conditions should be empty")
	}
	c := FromHeader(h, "x-ms-source-")
	if c.Empty() || c.Check(Write, State{Exists: true, ETag: `"0x6"`}) == nil {
		t.Fatalf("source condition not applied: %+v", c)
	}
}

func TestAnswer(t *testing.T) {
	a := Answers{NotModified: errors.New("304"), AlreadyExists: errors.New("409"), NotMet: errors.New("412")}
	st := State{Exists: true, ETag: `"0x1"`}
	for _, tc := range []struct {
		c    Conditions
		kind Kind
		want error
	}{
		{Conditions{}, Write, nil},
		{Conditions{IfNoneMatch: []string{`"0x1"`}}, Read, a.NotModified},
		{Conditions{IfNoneMatch: []string{"*"}}, Create, a.AlreadyExists},
		{Conditions{IfMatch: []string{`"0x2"`}}, Write, a.NotMet},
	} {
		if got := tc.c.Answer(tc.kind, st, a); got != tc.want { //nolint:errorlint // the answer is the sentinel itself, never wrapped
			t.Errorf("%+v kind %d: %v, want %v", tc.c, tc.kind, got, tc.want)
		}
	}
}
