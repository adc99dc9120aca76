package azauth

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

func TestCheckRequestDate(t *testing.T) {
	wall := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	auth := &Authenticator{Wall: func() time.Time { return wall }}
	at := func(d time.Duration) string { return wall.Add(d).Format(http.TimeFormat) }
	cases := []struct {
		name         string
		msDate, date string
		wantRefused  bool
	}{
		{name: "now", msDate: at(0)},
		{name: "14m59s old", msDate: at(-15*time.Minute + time.Second)},
		{name: "15m old", msDate: at(-15 * time.Minute)},
		{name: "15m1s old", msDate: at(-15*time.Minute - time.Second), wantRefused: true},
		{name: "15m ahead", msDate: at(15 * time.Minute)},
		{name: "15m1s ahead", msDate: at(15*time.Minute + time.Second), wantRefused: true},
		{name: "Date when x-ms-date is absent", date: at(-time.Hour), wantRefused: true},
		{name: "x-ms-date wins over Date", msDate: at(0), date: at(-time.Hour)},
		{name: "no date at all", wantRefused: true},
		{name: "unreadable", msDate: "yesterday", wantRefused: true},
	}
	for _, tc := range cases {
		r := httptest.NewRequest(http.MethodGet, "/devstoreaccount1/c", nil)
		if tc.msDate != "" {
			r.Header.Set("x-ms-date", tc.msDate)
		}
		if tc.date != "" {
			r.Header.Set("Date", tc.date)
		}
		err := auth.checkRequestDate(r)
		if refused := errors.Is(err, azerr.ErrAuthenticationFailed); refused != tc.wantRefused || err != nil && !refused {
			t.Errorf("%s: err = %v, want refused %v", tc.name, err, tc.wantRefused)
		}
	}
	// A service clock moved ahead (as tests move it): a date near either
	// clock passes, one near neither does not.
	moved := &Authenticator{Wall: func() time.Time { return wall }, Now: func() time.Time { return wall.Add(48 * time.Hour) }}
	for _, tc := range []struct {
		d    time.Duration
		want bool
	}{{0, true}, {48 * time.Hour, true}, {48*time.Hour + 10*time.Minute, true}, {24 * time.Hour, false}, {-time.Hour, false}} {
		r := httptest.NewRequest(http.MethodGet, "/devstoreaccount1/c", nil)
		r.Header.Set("x-ms-date", at(tc.d))
		if err := moved.checkRequestDate(r); (err == nil) != tc.want {
			t.Errorf("service clock 48h ahead, date %v from the wall: err = %v, want accepted %v", tc.d, err, tc.want)
		}
	}
	if err := (&Authenticator{}).checkRequestDate(httptest.NewRequest(http.MethodGet, "/", nil)); err != nil {
		t.Errorf("without a wall clock the date is not checked, got %v", err)
	}
}

// The parse of the last request date is kept: repeated, alternating and
// unreadable dates each still read as http.ParseTime reads them.
func TestParseRequestDateKeepsTheLast(t *testing.T) {
	a, b := "Mon, 01 Jun 2026 12:00:00 GMT", "Monday, 01-Jun-26 12:00:01 GMT"
	for _, v := range []string{a, a, b, a, "yesterday", a, b, b, "Mon Jun  1 12:00:02 2026", a} {
		got, err := parseRequestDate(v)
		want, wantErr := http.ParseTime(v)
		if !got.Equal(want) || (err == nil) != (wantErr == nil) {
			t.Errorf("parseRequestDate(%q) = %v, %v; http.ParseTime gives %v, %v", v, got, err, want, wantErr)
		}
	}
}
