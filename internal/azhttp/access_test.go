package azhttp

import "testing"

func TestAllows(t *testing.T) {
	account := Access{Kind: AccessAccountSAS, Services: "bf", ResourceTypes: "co", Permissions: "rl"}
	container := Access{Kind: AccessServiceSAS, Resource: "c", Permissions: "rwl", service: 'b'}
	blob := Access{Kind: AccessServiceSAS, Resource: "b", Permissions: "r", service: 'b'}
	tests := []struct {
		name   string
		access Access
		need   Need
		want   *Error
	}{
		{"shared key may do anything", Access{Kind: AccessSharedKey}, Need{'b', 's', 'w'}, nil},
		{"anonymous is refused", Access{Kind: AccessAnonymous}, Need{'b', 'o', 'r'}, ErrAuthorizationFailure},
		{"account read", account, Need{'b', 'o', 'r'}, nil},
		{"account r-only cannot write", account, Need{'b', 'o', 'w'}, ErrAuthorizationPermissionMismatch},
		{"account srt=co cannot reach service", account, Need{'b', 's', 'r'}, ErrAuthorizationResourceTypeMismatch},
		{"account ss=bf on queue", account, Need{'q', 'o', 'r'}, ErrAuthorizationServiceMismatch},
		{"account srt=o cannot create container", Access{Kind: AccessAccountSAS, Services: "b", ResourceTypes: "o", Permissions: "c"}, Need{'b', 'c', 'c'}, ErrAuthorizationResourceTypeMismatch},
		{"container sas lists", container, Need{'b', 'c', 'l'}, nil},
		{"container sas writes blobs", container, Need{'b', 'o', 'w'}, nil},
		{"container sas cannot delete", container, Need{'b', 'o', 'd'}, ErrAuthorizationPermissionMismatch},
		{"container sas cannot reach service", container, Need{'b', 's', 'r'}, ErrAuthorizationFailure},
		{"blob sas reads blob", blob, Need{'b', 'o', 'r'}, nil},
		{"blob sas cannot list container", blob, Need{'b', 'c', 'l'}, ErrAuthorizationFailure},
		{"blob sas on queue", blob, Need{'q', 'o', 'r'}, ErrAuthorizationServiceMismatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkErr(t, tc.access.Allows(tc.need), tc.want)
		})
	}
}
