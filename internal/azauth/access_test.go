package azauth

import (
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

func TestAllows(t *testing.T) {
	account := Access{Kind: AccessAccountSAS, Services: "bf", ResourceTypes: "co", Permissions: "rl"}
	container := Access{Kind: AccessServiceSAS, Resource: "c", Permissions: "rwl", service: 'b'}
	blob := Access{Kind: AccessServiceSAS, Resource: "b", Permissions: "r", service: 'b'}
	tests := []struct {
		name   string
		access Access
		need   Need
		want   *azerr.Error
	}{
		{"shared key may do anything", Access{Kind: AccessSharedKey}, Need{Service: 'b', ResourceType: 's', Permission: 'w'}, nil},
		{"anonymous is refused", Access{Kind: AccessAnonymous}, Need{Service: 'b', ResourceType: 'o', Permission: 'r'}, azerr.ErrAuthorizationFailure},
		{"account read", account, Need{Service: 'b', ResourceType: 'o', Permission: 'r'}, nil},
		{"account r-only cannot write", account, Need{Service: 'b', ResourceType: 'o', Permission: 'w'}, azerr.ErrAuthorizationPermissionMismatch},
		{"account srt=co cannot reach service", account, Need{Service: 'b', ResourceType: 's', Permission: 'r'}, azerr.ErrAuthorizationResourceTypeMismatch},
		{"account ss=bf on queue", account, Need{Service: 'q', ResourceType: 'o', Permission: 'r'}, azerr.ErrAuthorizationServiceMismatch},
		{"account srt=o cannot create container", Access{Kind: AccessAccountSAS, Services: "b", ResourceTypes: "o", Permissions: "c"}, Need{Service: 'b', ResourceType: 'c', Permission: 'c'}, azerr.ErrAuthorizationResourceTypeMismatch},
		{"container sas lists", container, Need{Service: 'b', ResourceType: 'c', Permission: 'l'}, nil},
		{"container sas writes blobs", container, Need{Service: 'b', ResourceType: 'o', Permission: 'w'}, nil},
		{"container sas cannot delete", container, Need{Service: 'b', ResourceType: 'o', Permission: 'd'}, azerr.ErrAuthorizationPermissionMismatch},
		{"container sas cannot reach service", container, Need{Service: 'b', ResourceType: 's', Permission: 'r'}, azerr.ErrAuthorizationFailure},
		{"blob sas reads blob", blob, Need{Service: 'b', ResourceType: 'o', Permission: 'r'}, nil},
		{"blob sas cannot list container", blob, Need{Service: 'b', ResourceType: 'c', Permission: 'l'}, azerr.ErrAuthorizationFailure},
		{"blob sas on queue", blob, Need{Service: 'q', ResourceType: 'o', Permission: 'r'}, azerr.ErrAuthorizationServiceMismatch},
		{"the second letter grants too", blob, Need{Service: 'b', ResourceType: 'o', Permission: 'e', Or: 'r'}, nil},
		{"neither letter", blob, Need{Service: 'b', ResourceType: 'o', Permission: 'w', Or: 'c'}, azerr.ErrAuthorizationPermissionMismatch},
		{"account sas: second letter", account, Need{Service: 'b', ResourceType: 'o', Permission: 'a', Or: 'r'}, nil},
		{"container sas refused container properties", container, Need{Service: 'b', ResourceType: 'c', Permission: 'r', NoServiceSAS: true}, azerr.ErrAuthorizationFailure},
		{"account sas reads container properties", account, Need{Service: 'b', ResourceType: 'c', Permission: 'r', NoServiceSAS: true}, nil},
		{"account sas refused an owner-only operation", account, Need{Service: 'b', ResourceType: 'c', OwnerOnly: true}, azerr.ErrAuthorizationFailure},
		{"service sas refused an owner-only operation", container, Need{Service: 'b', ResourceType: 'c', OwnerOnly: true}, azerr.ErrAuthorizationFailure},
		{"shared key does owner-only operations", Access{Kind: AccessSharedKey}, Need{Service: 'b', ResourceType: 'c', OwnerOnly: true}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			CheckErr(t, tc.access.Allows(tc.need), tc.want)
		})
	}
}

func TestGrants(t *testing.T) {
	sasC := Access{Kind: AccessServiceSAS, Permissions: "c"}
	for _, tc := range []struct {
		access Access
		letter byte
		want   bool
	}{
		{Access{Kind: AccessSharedKey}, 'w', true},
		{Access{Kind: AccessAnonymous}, 'r', false},
		{sasC, 'c', true},
		{sasC, 'w', false},
		{Access{Kind: AccessAccountSAS, Permissions: "rw"}, 'w', true},
	} {
		if got := tc.access.Grants(tc.letter); got != tc.want {
			t.Errorf("%v (sp=%q).Grants(%c) = %v, want %v", tc.access.Kind, tc.access.Permissions, tc.letter, got, tc.want)
		}
	}
}
