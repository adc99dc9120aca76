package azhttp_test

import (
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	blobservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	fileservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/cerulean-db/cerulean/internal/servertest"
)

// TestPreflightEveryStorageService: the preflight rules are wired into
// Blob, Queue, Table and Files alike. One rule allows GET and PUT from
// one origin with x-ms-meta-* and content-type; a preflight asking for
// another method or header is refused 403 CorsPreflightFailure, and one
// without Origin or Access-Control-Request-Method 400 InvalidHeaderValue.
func TestPreflightEveryStorageService(t *testing.T) {
	env := servertest.Start(t)
	ctx := t.Context()
	origins, methods, headers := to.Ptr("https://app.example"), to.Ptr("GET,PUT"), to.Ptr("x-ms-meta-*,content-type")

	bsvc := sharedKeyClient(t, env, env.BlobURL, blobservice.NewSharedKeyCredential, blobservice.NewClientWithSharedKeyCredential)
	_, err := bsvc.SetProperties(ctx, &blobservice.SetPropertiesOptions{CORS: []*blobservice.CORSRule{{AllowedOrigins: origins, AllowedMethods: methods, AllowedHeaders: headers, ExposedHeaders: to.Ptr(""), MaxAgeInSeconds: to.Ptr[int32](60)}}})
	must(t, err)

	qsvc := sharedKeyClient(t, env, env.QueueURL, azqueue.NewSharedKeyCredential, azqueue.NewServiceClientWithSharedKeyCredential)
	_, err = qsvc.SetProperties(ctx, &azqueue.SetPropertiesOptions{CORS: []*azqueue.CORSRule{{AllowedOrigins: origins, AllowedMethods: methods, AllowedHeaders: headers, ExposedHeaders: to.Ptr(""), MaxAgeInSeconds: to.Ptr[int32](60)}}})
	must(t, err)

	tsvc := sharedKeyClient(t, env, env.TableURL, aztables.NewSharedKeyCredential, aztables.NewServiceClientWithSharedKey)
	_, err = tsvc.SetProperties(ctx, aztables.ServiceProperties{Cors: []*aztables.CorsRule{{AllowedOrigins: origins, AllowedMethods: methods, AllowedHeaders: headers, ExposedHeaders: to.Ptr(""), MaxAgeInSeconds: to.Ptr[int32](60)}}}, nil)
	must(t, err)

	fsvc := sharedKeyClient(t, env, env.FileURL, fileservice.NewSharedKeyCredential, fileservice.NewClientWithSharedKeyCredential)
	_, err = fsvc.SetProperties(ctx, &fileservice.SetPropertiesOptions{CORS: []*fileservice.CORSRule{{AllowedOrigins: origins, AllowedMethods: methods, AllowedHeaders: headers, ExposedHeaders: to.Ptr(""), MaxAgeInSeconds: to.Ptr[int32](60)}}})
	must(t, err)

	for svc, base := range map[string]string{"blob": env.BlobURL, "queue": env.QueueURL, "table": env.TableURL, "file": env.FileURL} {
		for _, tc := range []struct {
			name   string
			header map[string]string
			status int
			code   string
		}{
			{"allowed", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "x-ms-meta-a,content-type"}, 200, ""},
			{"method", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "DELETE"}, 403, "CorsPreflightFailure"},
			{"header", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-ms-meta-a,x-ms-version"}, 403, "CorsPreflightFailure"},
			{"origin", map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"}, 403, "CorsPreflightFailure"},
			{"no method", map[string]string{"Origin": "https://app.example"}, 400, "InvalidHeaderValue"},
			{"no origin", map[string]string{"Access-Control-Request-Method": "GET"}, 400, "InvalidHeaderValue"},
		} {
			req, err := http.NewRequestWithContext(ctx, http.MethodOptions, base+"anything", nil)
			must(t, err)
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			must(t, err)
			_ = resp.Body.Close() // the status and headers are all we read
			if resp.StatusCode != tc.status || resp.Header.Get("x-ms-error-code") != tc.code {
				t.Errorf("%s %s: %d %q, want %d %q", svc, tc.name, resp.StatusCode, resp.Header.Get("x-ms-error-code"), tc.status, tc.code)
			}
			if tc.status == 200 && (resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" || resp.Header.Get("Access-Control-Allow-Methods") != "PUT") {
				t.Errorf("%s %s: allow headers %v", svc, tc.name, resp.Header)
			}
		}
	}
}

// sharedKeyClient is the client an SDK's own constructors make for url
// with the Shared Key credential of env's account, given default options.
func sharedKeyClient[Cred, Client, Opts any](t *testing.T, env *servertest.Env, url string, newCred func(account, key string) (Cred, error), newClient func(string, Cred, *Opts) (Client, error)) Client {
	t.Helper()
	cred, err := newCred(env.Account, env.Key)
	must(t, err)
	c, err := newClient(url, cred, nil)
	must(t, err)
	return c
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
