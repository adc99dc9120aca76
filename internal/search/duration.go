package search

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseDuration reads an ISO 8601 duration of days, hours, minutes and
// seconds (P1D, PT5M, PT1H30M), as indexer schedules use.
func ParseDuration(s string) (time.Duration, error) {
	rest, ok := strings.CutPrefix(s, "P")
	if !ok || rest == "" {
		return 0, fmt.Errorf("%q is not an ISO 8601 duration", s)
	}
	var d time.Duration
	inTime := false
	num := ""
	for _, c := range rest {
		switch {
		case c >= '0' && c <= '9' || c == '.':
			num += string(c)
		case c == 'T' && !inTime && num == "":
			inTime = true
		default:
			if num == "" {
				return 0, fmt.Errorf("%q is not an ISO 8601 duration", s)
			}
			var unit time.Duration
			switch {
			case !inTime && c == 'D':
				unit = 24 * time.Hour
			case !inTime && c == 'W':
				unit = 7 * 24 * time.Hour
			case inTime && c == 'H':
				unit = time.Hour
			case inTime && c == 'M':
				unit = time.Minute
			case inTime && c == 'S':
				unit = time.Second
			default:
				return 0, fmt.Errorf("%q is not an ISO 8601 duration of weeks, days, hours, minutes and seconds", s)
			}
			var f float64
			if _, err := fmt.Sscanf(num, "%g", &f); err != nil || f < 0 || f > 1e6 {
				return 0, fmt.Errorf("%q is not an ISO 8601 duration", s)
			}
			d += time.Duration(f * float64(unit))
			num = ""
		}
	}
	if num != "" || strings.HasSuffix(rest, "T") {
		return 0, fmt.Errorf("%q is not an ISO 8601 duration", s)
	}
	return d, nil
}

// formatDuration writes d as the service writes a time span: days, then
// hours, minutes and seconds after a T, each only when not zero (P365D,
// PT12H, P1DT2H30M, PT1.5S; PT0S for nothing).
func formatDuration(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	const day = 24 * time.Hour
	date, clock := "", ""
	if days := d / day; days > 0 {
		date = strconv.FormatInt(int64(days), 10) + "D"
	}
	if h := d % day / time.Hour; h > 0 {
		clock += strconv.FormatInt(int64(h), 10) + "H"
	}
	if m := d % time.Hour / time.Minute; m > 0 {
		clock += strconv.FormatInt(int64(m), 10) + "M"
	}
	if s := d % time.Minute; s > 0 || date == "" && clock == "" {
		clock += strconv.FormatFloat(s.Seconds(), 'f', -1, 64) + "S"
	}
	if clock != "" {
		clock = "T" + clock
	}
	return sign + "P" + date + clock
}
