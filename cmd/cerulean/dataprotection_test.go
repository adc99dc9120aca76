package main

import "testing"

// TestServeDataProtectionFlags: versioning, last access tracking, container
// and share retention are
// read from flags and the environment; a retention outside 0-365 days is
// refused, never clamped.
func TestServeDataProtectionFlags(t *testing.T) {
	f, err := parse(t, []string{"--blob-versioning", "--container-delete-retention-days", "7"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !f.blobVersioning || f.containerRetention != 7 {
		t.Errorf("flags read as versioning=%v retention=%d", f.blobVersioning, f.containerRetention)
	}
	f, err = parse(t, nil, map[string]string{"CERULEAN_BLOB_VERSIONING": "true", "CERULEAN_CONTAINER_DELETE_RETENTION_DAYS": "365"})
	if err != nil {
		t.Fatal(err)
	}
	if !f.blobVersioning || f.containerRetention != 365 {
		t.Errorf("environment read as versioning=%v retention=%d", f.blobVersioning, f.containerRetention)
	}
	f, err = parse(t, []string{"--blob-last-access-tracking"}, nil)
	if err != nil || !f.blobLastAccess {
		t.Errorf("last access tracking flag read as %v (%v)", f.blobLastAccess, err)
	}
	f, err = parse(t, nil, map[string]string{"CERULEAN_BLOB_LAST_ACCESS_TRACKING": "true"})
	if err != nil || !f.blobLastAccess {
		t.Errorf("last access tracking environment read as %v (%v)", f.blobLastAccess, err)
	}
	f, err = parse(t, []string{"--file-large-shares"}, nil)
	if err != nil || !f.largeShares {
		t.Errorf("large file shares flag read as %v (%v)", f.largeShares, err)
	}
	f, err = parse(t, nil, map[string]string{"CERULEAN_FILE_LARGE_SHARES": "true"})
	if err != nil || !f.largeShares {
		t.Errorf("large file shares environment read as %v (%v)", f.largeShares, err)
	}
	f, err = parse(t, []string{"--share-delete-retention-days", "14"}, nil)
	if err != nil || f.shareRetention != 14 {
		t.Errorf("share retention flag read as %d (%v)", f.shareRetention, err)
	}
	f, err = parse(t, nil, map[string]string{"CERULEAN_SHARE_DELETE_RETENTION_DAYS": "1"})
	if err != nil || f.shareRetention != 1 {
		t.Errorf("share retention environment read as %d (%v)", f.shareRetention, err)
	}
	for _, args := range [][]string{
		{"--share-delete-retention-days", "366"},
		{"--container-delete-retention-days", "366"},
		{"--container-delete-retention-days=-1"},
		{"--container-delete-retention-days", "a week"},
		{"--blob-versioning=sometimes"},
	} {
		if _, err := parse(t, args, nil); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}
