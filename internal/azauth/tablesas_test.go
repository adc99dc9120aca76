package azauth

import "testing"

func TestAllowsEntity(t *testing.T) {
	ranged := Access{Kind: AccessServiceSAS, startPK: "b", startRK: "2", endPK: "d", endRK: "5"}
	pkOnly := Access{Kind: AccessServiceSAS, startPK: "b", endPK: "c"}
	tests := []struct {
		access Access
		pk, rk string
		want   bool
	}{
		{Access{Kind: AccessSharedKey}, "anything", "at all", true},
		{ranged, "a", "9", false},
		{ranged, "b", "1", false},
		{ranged, "b", "2", true},
		{ranged, "c", "", true},
		{ranged, "d", "5", true},
		{ranged, "d", "6", false},
		{ranged, "e", "0", false},
		{pkOnly, "b", "", true},
		{pkOnly, "c", "zzz", true},
		{pkOnly, "c0", "", false},
		{pkOnly, "a", "z", false},
	}
	for _, tc := range tests {
		if got := tc.access.AllowsEntity(tc.pk, tc.rk); got != tc.want {
			t.Errorf("%+v AllowsEntity(%q, %q) = %v", tc.access, tc.pk, tc.rk, got)
		}
	}
	if spk, srk, epk, erk := ranged.EntityRange(); spk != "b" || srk != "2" || epk != "d" || erk != "5" {
		t.Errorf("EntityRange = %q %q %q %q", spk, srk, epk, erk)
	}
}
