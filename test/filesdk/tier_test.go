package filesdk_test

import (
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestShareAccessTier: a share's access tier is stored on create (the
// standard default TransactionOptimized otherwise), reported by Get
// Share Properties and List Shares with its change time, changed by Set
// Share Properties, and a tier a standard account has not is refused.
func TestShareAccessTier(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
	f := newFixture(t, servertest.WithClock(clock.Now))
	ctx := t.Context()
	plain := f.share(t, "plain")
	hot := f.svc.NewShareClient("hot")
	if _, err := hot.Create(ctx, &share.CreateOptions{AccessTier: to.Ptr(share.AccessTierHot)}); err != nil {
		t.Fatal(err)
	}
	created := clock.Now().Truncate(time.Second)
	for sc, want := range map[*share.Client]share.AccessTier{plain: share.AccessTierTransactionOptimized, hot: share.AccessTierHot} {
		p, err := sc.GetProperties(ctx, nil)
		if err != nil || *p.AccessTier != string(want) || !p.AccessTierChangeTime.Equal(created) {
			t.Fatalf("%s: tier %v changed %v (%v), want %s at %v", sc.URL(), p.AccessTier, p.AccessTierChangeTime, err, want, created)
		}
	}
	clock.Advance(time.Hour)
	if _, err := hot.SetProperties(ctx, &share.SetPropertiesOptions{AccessTier: to.Ptr(share.AccessTierCool)}); err != nil {
		t.Fatal(err)
	}
	pager := f.svc.NewListSharesPager(&service.ListSharesOptions{Prefix: to.Ptr("hot")})
	page, err := pager.NextPage(ctx)
	if err != nil || len(page.Shares) != 1 {
		t.Fatalf("list: %v", err)
	}
	if p := page.Shares[0].Properties; *p.AccessTier != string(share.AccessTierCool) || !p.AccessTierChangeTime.Equal(created.Add(time.Hour)) {
		t.Errorf("listed tier %v changed %v, want Cool an hour later", *p.AccessTier, p.AccessTierChangeTime)
	}
	_, err = hot.SetProperties(ctx, &share.SetPropertiesOptions{AccessTier: to.Ptr(share.AccessTierPremium)})
	wantCode(t, err, fileerror.InvalidHeaderValue)
	if p, err := hot.GetProperties(ctx, nil); err != nil || *p.AccessTier != string(share.AccessTierCool) {
		t.Errorf("a refused change left tier %v (%v)", p.AccessTier, err)
	}
}
