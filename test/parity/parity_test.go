package parity

import (
	"crypto/tls"
	"flag"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/servertest"
)

var (
	report = flag.Bool("parity.report", false, "print every recording that differs and the per-service score instead of checking the known differences")
	only   = flag.String("parity.only", "", "with -parity.report, replay only the recordings whose name (service/file) matches this regular expression")
)

// startTarget starts a fresh server for one recording, with blob
// versioning, last access time tracking and share soft delete on when
// the recording's account had them.
func startTarget(t testing.TB, rec *Recording) *Target {
	opts := []servertest.Option{servertest.WithTestClock()}
	if versioned, days := rec.Versioned(), rec.ContainerRetentionDays(); versioned || days > 0 {
		opts = append(opts, servertest.WithBlobDataProtection(versioned, days))
	}
	if rec.LastAccessTracked() {
		opts = append(opts, servertest.WithBlobLastAccessTracking())
	}
	if rec.LargeFileShares() {
		opts = append(opts, servertest.WithFileLargeShares())
	}
	if days := rec.ShareRetentionDays(); days > 0 {
		opts = append(opts, servertest.WithShareRetention(days))
	}
	httpsOnly := rec.HTTPSOnlySAS()
	if httpsOnly {
		opts = append(opts, servertest.WithStorageTLS())
	}
	env := servertest.Start(t, opts...)
	client := &http.Client{Timeout: 30 * time.Second}
	if httpsOnly {
		client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: env.CertPool, MinVersion: tls.VersionTLS12}}
	}
	target := &Target{
		Blob: env.BlobURL, Queue: env.QueueURL, Table: env.TableURL, File: env.FileURL, Search: env.SearchURL,
		Account: env.Account, Key: env.Key, SearchKey: env.SearchAdminKey,
		Client: client,
		Clock:  env.Server.Clock(),
		Settle: env.Server.WaitForIndexers,
	}
	if days := rec.BlobSoftDeleteDays(); days > 0 {
		if err := target.SetBlobSoftDelete(days); err != nil {
			t.Fatal(err)
		}
	}
	return target
}

// replayAll replays every recording, each against a fresh server.
func replayAll(t *testing.T) []Result {
	recs, err := LoadRecordings("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 {
		t.Fatal("no recordings under testdata")
	}
	if *only != "" {
		if !*report {
			t.Fatal("-parity.only needs -parity.report: the known differences are checked against every recording")
		}
		re, err := regexp.Compile(*only)
		if err != nil {
			t.Fatal(err)
		}
		recs = slices.DeleteFunc(recs, func(r *Recording) bool { return !re.MatchString(r.Name) })
	}
	results := make([]Result, len(recs))
	var mu sync.Mutex
	t.Run("replay", func(t *testing.T) {
		for i, rec := range recs {
			t.Run(rec.Name, func(t *testing.T) {
				t.Parallel()
				target := startTarget(t, rec)
				r := Result{Recording: rec}
				if err := target.Setup(rec); err != nil {
					r.Diff = &Difference{Index: -1, Method: "SETUP", Reason: err.Error()}
				} else {
					r = target.Replay(rec)
				}
				mu.Lock()
				results[i] = r
				mu.Unlock()
			})
		}
	})
	return results
}

// TestParity replays the recordings and fails on any difference from
// Azure not in known_differences.txt, and on any listed one that has gone.
func TestParity(t *testing.T) {
	results := replayAll(t)
	if *report {
		fmt.Print(Report(results))
		return
	}
	known, err := LoadKnownDifferences("known_differences.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range CheckKnown(results, known) {
		t.Error(p)
	}
}

// Report is one line a recording that differs (its first difference) and
// then one line a service: "SERVICE: N of M recordings match (R requests)".
func Report(results []Result) string {
	var b strings.Builder
	type score struct{ match, total, requests int }
	scores := map[string]*score{}
	for _, r := range results {
		s := scores[r.Recording.Service]
		if s == nil {
			s = &score{}
			scores[r.Recording.Service] = s
		}
		s.total++
		s.requests += len(r.Recording.Entries)
		if r.Diff == nil {
			s.match++
			continue
		}
		fmt.Fprintf(&b, "%s %s\n", r.Recording.Name, r.Diff)
	}
	services := make([]string, 0, len(scores))
	for s := range scores {
		services = append(services, s)
	}
	sort.Strings(services)
	for _, name := range services {
		s := scores[name]
		fmt.Fprintf(&b, "%s: %d of %d recordings match (%d recorded requests)\n", strings.ToUpper(name), s.match, s.total, s.requests)
	}
	return b.String()
}

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(m.Run())
}
