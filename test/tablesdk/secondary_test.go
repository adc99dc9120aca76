package tablesdk_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestSecondaryEndpoint: the account's read-only secondary,
// <account>-secondary, in path style and in production style, answers
// Get Table Service Stats (aztables' TestGetStatistics calls it there,
// recorded in go-aztables TestGetStatistics) and reads, with the primary's
// key; its odata.metadata names the secondary as addressed; a write is
// refused 403, as the secondary of a read-access geo-redundant account
// is read-only.
func TestSecondaryEndpoint(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	_, err := c.AddEntity(t.Context(), entity("p", "r", map[string]any{"V": int32(1)}), nil)
	must(t, err, "AddEntity")
	const prodSecondary = "devstoreaccount1-secondary.table.core.windows.net"
	opts := clientOptions()
	opts.Transport = testkit.ResolvingClient(nil, map[string]string{prodSecondary: f.env.Server.TableAddr()})
	for style, base := range map[string]string{
		"path style":       strings.TrimSuffix(f.serviceURL(), f.env.Account) + f.env.Account + "-secondary/",
		"production style": "http://" + prodSecondary + "/",
	} {
		svc, err := aztables.NewServiceClientWithSharedKey(base, f.cred, opts)
		must(t, err, "%s secondary client", style)
		ctx := t.Context()
		stats, err := svc.GetStatistics(ctx, nil)
		must(t, err, "%s GetStatistics", style)
		if stats.GeoReplication == nil || stats.GeoReplication.Status == nil || stats.GeoReplication.LastSyncTime == nil {
			t.Errorf("%s stats %+v", style, stats.GeoReplication)
		}
		page, err := svc.NewListTablesPager(nil).NextPage(ctx)
		must(t, err, "%s ListTables", style)
		if len(page.Tables) != 1 || *page.Tables[0].Name != c.name {
			t.Errorf("%s tables %+v", style, page.Tables)
		}
		resp, err := svc.NewClient(c.name).GetEntity(ctx, "p", "r", &aztables.GetEntityOptions{Format: ptr(aztables.MetadataFormatFull)})
		must(t, err, "%s GetEntity", style)
		if !strings.Contains(string(resp.Value), `"odata.metadata":"`+base+`$metadata#`) {
			t.Errorf("%s entity %s: want odata.metadata under %s", style, resp.Value, base)
		}
		_, err = svc.CreateTable(ctx, "secondarywrite", nil)
		wantStatus(t, err, http.StatusForbidden, style+" CreateTable on the secondary")
		_, err = svc.NewClient(c.name).AddEntity(ctx, entity("p", "w", nil), nil)
		wantStatus(t, err, http.StatusForbidden, style+" AddEntity on the secondary")
	}
}

// wantStatus fails unless err is an answer with status, whatever its
// code (for answers whose code no source records).
func wantStatus(t *testing.T, err error, status int, what string) {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != status {
		t.Errorf("%s: %v, want HTTP %d", what, err, status)
	}
}
