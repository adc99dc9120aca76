package parity

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
)

// resignSAS rebuilds the signature of a SAS token from its fields with
// the target's key: the recording's signature was made with Azure's key
// and sanitized away. The strings to sign are the ones Azure documents
// ("Create an account SAS", "Create a service SAS"), written here apart
// from the server's verifier so that the two check each other.
func (t *Target) resignSAS(u *url.URL, service string) error {
	q := u.Query()
	key, err := t.key()
	if err != nil {
		return err
	}
	var fields []string
	if q.Get("ss") != "" || q.Get("srt") != "" {
		fields = t.accountSASFields(q)
	} else {
		if fields, err = t.serviceSASFields(service, u, q); err != nil {
			return err
		}
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(strings.Join(fields, "\n")))
	q.Set("sig", base64.StdEncoding.EncodeToString(m.Sum(nil)))
	u.RawQuery = q.Encode()
	return nil
}

// key is the target's account key, decoded.
func (t *Target) key() ([]byte, error) { return base64.StdEncoding.DecodeString(t.Key) }

func (t *Target) accountSASFields(q url.Values) []string {
	f := []string{t.Account, q.Get("sp"), q.Get("ss"), q.Get("srt"), q.Get("st"), q.Get("se"), q.Get("sip"), q.Get("spr"), q.Get("sv")}
	if q.Get("sv") >= "2020-12-06" {
		f = append(f, q.Get("ses"))
	}
	return append(f, "")
}

// serviceSASFields is the string to sign of a service SAS, by service
// and version; the resource is named by the request's path (after the
// account) or, for a table, by tn.
func (t *Target) serviceSASFields(service string, u *url.URL, q url.Values) ([]string, error) {
	sv := q.Get("sv")
	if sv < "2015-04-05" {
		return nil, fmt.Errorf("service SAS version %s is not rebuilt", sv)
	}
	// Path style: /account/container/blob.
	_, rest, _ := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/")
	head := []string{q.Get("sp"), q.Get("st"), q.Get("se")}
	common := func(resource string) []string {
		return append(head, resource, q.Get("si"), q.Get("sip"), q.Get("spr"), sv)
	}
	headers := []string{q.Get("rscc"), q.Get("rscd"), q.Get("rsce"), q.Get("rscl"), q.Get("rsct")}
	switch service {
	case "queue":
		name, _, _ := strings.Cut(rest, "/")
		return common("/queue/" + t.Account + "/" + name), nil
	case "table":
		f := common("/table/" + t.Account + "/" + strings.ToLower(q.Get("tn")))
		return append(f, q.Get("spk"), q.Get("srk"), q.Get("epk"), q.Get("erk")), nil
	case "file":
		resource := "/file/" + t.Account + "/" + rest
		if q.Get("sr") == "s" {
			share, _, _ := strings.Cut(rest, "/")
			resource = "/file/" + t.Account + "/" + share
		}
		return append(common(resource), headers...), nil
	case "blob":
		resource := "/blob/" + t.Account + "/" + rest
		if q.Get("sr") == "c" {
			container, _, _ := strings.Cut(rest, "/")
			resource = "/blob/" + t.Account + "/" + container
		}
		f := common(resource)
		if sv >= "2018-11-09" {
			f = append(f, q.Get("sr"), q.Get("snapshot"))
		}
		if sv >= "2020-12-06" {
			f = append(f, q.Get("ses"))
		}
		return append(f, headers...), nil
	}
	return nil, fmt.Errorf("no service SAS for %s", service)
}
