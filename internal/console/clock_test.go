package console_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/console"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestProxySignsByTheServersClock: Cosmos DB refuses a token dated more
// than 15 minutes from its clock, so once a test clock has moved the
// server's time the console signs by that clock (Config.Now).
func TestProxySignsByTheServersClock(t *testing.T) {
	clock := testkit.NewClock(time.Now().Add(2 * time.Hour))
	env := servertest.Start(t, servertest.WithClock(clock.Now))
	for _, tc := range []struct {
		now  func() time.Time
		want int
	}{{clock.Now, http.StatusOK}, {nil, http.StatusUnauthorized}} {
		h, err := console.New(console.Config{CosmosURL: env.CosmosURL, CosmosKey: env.CosmosKey, Now: tc.now})
		if err != nil {
			t.Fatal(err)
		}
		site := httptest.NewServer(h)
		resp, body := consoleCall(t, site, "GET", "/console/api/cosmos/dbs", nil, "")
		if resp.StatusCode != tc.want {
			t.Errorf("signed by the server's clock %v: got %d %.200s, want %d", tc.now != nil, resp.StatusCode, body, tc.want)
		}
		site.Close()
	}
}
