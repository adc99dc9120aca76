package cosmos

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// routeOffers dispatches /offers[/{rid}].
func (h *handler) routeOffers(q *request) error {
	segs, m := q.segs, q.r.Method
	switch len(segs) {
	case 1:
		switch m {
		case http.MethodGet:
			f, err := h.svc.ListOffers(q.r.Context())
			if err != nil {
				return err
			}
			return h.writeFeed(q, "", "Offers", f.Items)
		case http.MethodPost:
			if isQuery(q.r) {
				return h.runQuery(q, "Offers", func(query *Query, params map[string]any) (*Feed, error) {
					return h.svc.QueryOffers(q.r.Context(), query, params)
				}, nil)
			}
		}
	case 2:
		switch m {
		case http.MethodGet:
			o, err := h.svc.GetOffer(q.r.Context(), segs[1], preconditions(q.r))
			if err != nil {
				return err
			}
			return h.writeOffer(q, o)
		case http.MethodPut:
			b, err := readBody(q.r)
			if err != nil {
				return err
			}
			o, err := h.svc.ReplaceOffer(q.r.Context(), segs[1], b, preconditions(q.r))
			if err != nil {
				return err
			}
			return h.writeOffer(q, o)
		}
	default:
		return notFound("The resource path %q does not exist.", q.r.URL.Path)
	}
	return methodNotAllowed(m)
}

func (h *handler) writeOffer(q *request, o *Offer) error {
	hdr := q.w.Header()
	hdr.Set("X-Ms-Cosmos-Min-Throughput", strconv.Itoa(o.MinThroughput))
	hdr.Set("X-Ms-Offer-Replace-Pending", "false")
	return h.writeResource(q, http.StatusOK, o.ETag, o.Body)
}

// requestThroughput reads the throughput a database or container create
// asks for: x-ms-offer-throughput (manual RU/s) or
// x-ms-cosmos-offer-autopilot-settings ({"maxThroughput":…,
// "autoUpgradePolicy":{"throughputPolicy":{"incrementPercent":…}}}).
// It returns nil when the request names neither.
func requestThroughput(r *http.Request) ([]Throughput, error) {
	manual := r.Header.Get("X-Ms-Offer-Throughput")
	auto := r.Header.Get("X-Ms-Cosmos-Offer-Autopilot-Settings")
	if manual == "" && auto == "" {
		return nil, nil
	}
	var t Throughput
	if manual != "" {
		n, err := strconv.Atoi(manual)
		if err != nil {
			return nil, badRequest("Invalid value %q for x-ms-offer-throughput.", manual)
		}
		t.Manual = n
	}
	if auto != "" {
		var s struct {
			MaxThroughput     *int `json:"maxThroughput"`
			AutoUpgradePolicy *struct {
				ThroughputPolicy *struct {
					IncrementPercent int `json:"incrementPercent"`
				} `json:"throughputPolicy"`
			} `json:"autoUpgradePolicy"`
		}
		if err := json.Unmarshal([]byte(auto), &s); err != nil || s.MaxThroughput == nil {
			return nil, badRequest("Invalid value %q for x-ms-cosmos-offer-autopilot-settings.", auto)
		}
		t.AutoscaleMax = *s.MaxThroughput
		if t.AutoscaleMax <= 0 {
			return nil, badRequest("Invalid value %q for x-ms-cosmos-offer-autopilot-settings.", auto)
		}
		if s.AutoUpgradePolicy != nil && s.AutoUpgradePolicy.ThroughputPolicy != nil {
			t.AutoscaleIncrement = s.AutoUpgradePolicy.ThroughputPolicy.IncrementPercent
		}
	}
	if err := t.validate(); err != nil {
		return nil, err
	}
	return []Throughput{t}, nil
}
