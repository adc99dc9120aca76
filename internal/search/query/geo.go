package query

import (
	"math"
	"strconv"
	"strings"
)

// geoError is a malformed geography literal; its text is the message.
type geoError string

func (e geoError) Error() string { return string(e) }

// parseGeography reads the body of a geography'...' literal: POINT(lon lat)
// or POLYGON((lon lat, ...)) with one ring whose first and last points are
// equal, optionally after SRID=4326;.
func parseGeography(body string) (Literal, error) {
	s := strings.TrimSpace(body)
	if i := strings.IndexByte(s, ';'); i >= 0 && strings.HasPrefix(strings.ToUpper(s), "SRID=") {
		if strings.TrimSpace(s[5:i]) != "4326" {
			return Literal{}, geoError("Only SRID 4326 is supported in geography literals.")
		}
		s = strings.TrimSpace(s[i+1:])
	}
	upper := strings.ToUpper(s)
	switch {
	case strings.HasPrefix(upper, "POINT"):
		inner, ok := parenthesised(strings.TrimSpace(s[5:]))
		if !ok {
			return Literal{}, geoError("The geography point literal must be POINT(longitude latitude).")
		}
		pt, err := parsePoint(inner)
		if err != nil {
			return Literal{}, err
		}
		return Literal{Kind: LitPoint, Point: pt}, nil
	case strings.HasPrefix(upper, "POLYGON"):
		outer, ok := parenthesised(strings.TrimSpace(s[7:]))
		if !ok {
			return Literal{}, geoError("The geography polygon literal must be POLYGON((lon lat, ...)).")
		}
		ring, ok := parenthesised(strings.TrimSpace(outer))
		if !ok || strings.ContainsAny(ring, "()") {
			return Literal{}, geoError("Only polygons with a single ring are supported: POLYGON((lon lat, ...)).")
		}
		var pts []GeoPoint
		for _, part := range strings.Split(ring, ",") {
			pt, err := parsePoint(part)
			if err != nil {
				return Literal{}, err
			}
			pts = append(pts, pt)
		}
		if len(pts) < 4 {
			return Literal{}, geoError("A polygon needs at least four points, the last equal to the first.")
		}
		if pts[0] != pts[len(pts)-1] {
			return Literal{}, geoError("The first and last points of a polygon must be the same.")
		}
		return Literal{Kind: LitPolygon, Polygon: pts}, nil
	}
	return Literal{}, geoError("Only POINT and POLYGON geography literals are supported.")
}

func parenthesised(s string) (string, bool) {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return "", false
	}
	return s[1 : len(s)-1], true
}

func parsePoint(s string) (GeoPoint, error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return GeoPoint{}, geoError("A geography point needs a longitude and a latitude separated by a space.")
	}
	lon, err1 := strconv.ParseFloat(f[0], 64)
	lat, err2 := strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil || math.IsNaN(lon) || math.IsNaN(lat) || lon < -180 || lon > 180 || lat < -90 || lat > 90 {
		return GeoPoint{}, geoError("A geography point needs a longitude in [-180, 180] and a latitude in [-90, 90].")
	}
	return GeoPoint{Lon: lon, Lat: lat}, nil
}

// earthRadiusKm is the mean Earth radius used for geo.distance.
const earthRadiusKm = 6371.0088

// DistanceKm is the great-circle (haversine) distance between two points.
func DistanceKm(a, b GeoPoint) float64 {
	rad := math.Pi / 180
	dLat := (b.Lat - a.Lat) * rad
	dLon := (b.Lon - a.Lon) * rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(a.Lat*rad)*math.Cos(b.Lat*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * earthRadiusKm * math.Asin(math.Min(1, math.Sqrt(h)))
}

// inPolygon reports whether pt lies inside the ring (even-odd rule on
// longitude/latitude; rings do not cross the antimeridian).
func inPolygon(pt GeoPoint, ring []GeoPoint) bool {
	in := false
	for i, j := 0, len(ring)-1; i < len(ring); j, i = i, i+1 {
		a, b := ring[i], ring[j]
		if (a.Lat > pt.Lat) != (b.Lat > pt.Lat) &&
			pt.Lon < (b.Lon-a.Lon)*(pt.Lat-a.Lat)/(b.Lat-a.Lat)+a.Lon {
			in = !in
		}
	}
	return in
}
