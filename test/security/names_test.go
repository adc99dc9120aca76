package security

import (
	"bytes"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// hostileNames are object names, as sent on the wire after the container
// or share, that would leave it if the server resolved them as paths:
// dot segments plain and percent-encoded, encoded separators, backslashes,
// control characters and NUL.
var hostileNames = []string{
	"a/../../victim/secret",
	"../victim/secret",
	"..%2Fvictim%2Fsecret",
	"a%2F..%2F..%2Fvictim%2Fsecret",
	"%2E%2E/victim/secret",
	"a/%2e%2e/%2E%2E/victim/secret",
	"..%5Cvictim%5Csecret",
	"a%5C..%5C..%5Cvictim%5Csecret",
	"..%2F..%2F..%2Fdevstoreaccount1%2Fvictim%2Fsecret",
	"%2E%2E%2F%2E%2E%2Fvictim%2Fsecret",
	"./secret",
	"..",
	".",
	"a%00b",
	"..%00/victim/secret",
	"a%01b",
	"a%0Ab",
	"a%0D%0Ax-ms-meta-evil:1",
	"a%7Fb",
	"%C0%AE%C0%AE/victim/secret", // overlong UTF-8 for ".."
}

const secret = "TOP-SECRET-CONTENT"

// TestNamesStayInTheirContainer: whatever a hostile name is taken for — a
// literal name in the same container or share, or a refusal — it never
// reads or writes another container's data. Requests are made with a SAS
// for the attacker's container only, and with the account key.
func TestNamesStayInTheirContainer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cases := []struct {
		service string
		create  func(t testing.TB, name string)
		put     func(path string, body []byte) call
		get     func(path string) call
		list    func(container string) call
		sas     func(container string) sasValues
	}{
		{
			service: "blob",
			create:  func(t testing.TB, name string) { blobService.createContainer(t, f, name) },
			put: func(path string, body []byte) call {
				return call{method: http.MethodPut, path: path, header: map[string]string{"x-ms-blob-type": "BlockBlob"}, body: body}
			},
			get: func(path string) call { return call{method: http.MethodGet, path: path} },
			list: func(c string) call {
				return call{method: http.MethodGet, path: c, query: q("restype", "container", "comp", "list")}
			},
			sas: func(c string) sasValues {
				return sasValues{service: "blob", resource: "/" + f.env.Account + "/" + c, sr: "c", permissions: "rcwdl"}
			},
		},
		{
			service: "file",
			create: func(t testing.TB, name string) {
				fileService.createContainer(t, f, name)
			},
			put: func(path string, body []byte) call {
				return call{method: http.MethodPut, path: path, header: map[string]string{"x-ms-type": "file", "x-ms-content-length": strconv.Itoa(len(body))}}
			},
			get: func(path string) call { return call{method: http.MethodGet, path: path} },
			list: func(c string) call {
				return call{method: http.MethodGet, path: c, query: q("restype", "directory", "comp", "list")}
			},
			sas: func(c string) sasValues {
				return sasValues{service: "file", resource: "/" + f.env.Account + "/" + c, sr: "s", permissions: "rcwdl"}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.service, func(t *testing.T) {
			t.Parallel()
			attacker := f.name("attacker")
			tc.create(t, attacker)
			// The victim is named "victim" relative to the attacker's
			// container; each service has its own namespace.
			victim := "victim"
			tc.create(t, victim)
			if tc.service == "file" {
				f.prepare(t, "file", tc.put(victim+"/secret", []byte(secret)))
				f.prepare(t, "file", call{method: http.MethodPut, path: victim + "/secret", query: q("comp", "range"),
					header: map[string]string{"x-ms-range": "bytes=0-" + strconv.Itoa(len(secret)-1), "x-ms-write": "update"}, body: []byte(secret)})
			} else {
				f.prepare(t, "blob", tc.put(victim+"/secret", []byte(secret)))
			}
			sas := tc.sas(attacker)
			sas.expiry = f.clock.Now().Add(time.Hour)
			token := sas.sign(f.env.Account, f.env.Key)

			for i, name := range hostileNames {
				path := attacker + "/" + name
				payload := []byte("payload-" + strconv.Itoa(i))
				for _, withKey := range []bool{false, true} {
					send := func(c call) (int, []byte) {
						if withKey {
							resp := f.withKey(t, tc.service, c, sharedKey)
							return resp.StatusCode, resp.Body
						}
						resp := f.withSAS(t, tc.service, c, token)
						return resp.StatusCode, resp.Body
					}
					who := map[bool]string{false: "attacker's SAS", true: "account key"}[withKey]
					status, body := send(tc.get(path))
					if status/100 == 5 || status/100 == 3 || bytes.Contains(body, []byte(secret)) {
						t.Errorf("GET %s (%s): HTTP %d %.200s", name, who, status, body)
					}
					status, body = send(tc.put(path, payload))
					if status/100 == 5 || status/100 == 3 {
						t.Errorf("PUT %s (%s): HTTP %d %.200s", name, who, status, body)
					}
					// Azure Files refuses all but DEL (only 0x00-0x1F are
					// barred); overlong UTF-8 names no directory there is.
					if tc.service == "file" && name != "a%7Fb" && status/100 != 4 {
						t.Errorf("PUT %s (%s): HTTP %d, want a refusal as Azure Files answers", name, who, status)
					}
				}
			}

			// The victim's container holds its one object, unchanged.
			resp := f.withKey(t, tc.service, tc.list(victim), sharedKey)
			must2xx(t, resp, "list the victim")
			if names := nameElements.FindAll(resp.Body, -1); len(names) != 1 || !bytes.Contains(names[0], []byte("secret")) {
				t.Errorf("the victim's container now lists %q", names)
			}
			resp = f.withKey(t, tc.service, tc.get(victim+"/secret"), sharedKey)
			if string(resp.Body) != secret {
				t.Errorf("the victim's object now reads %q", resp.Body)
			}
		})
	}
}

var nameElements = regexp.MustCompile(`<Name>[^<]*</Name>`)
