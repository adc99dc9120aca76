package file

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// TestDescriptorKnownAnswer: the binary form of a small descriptor is the
// self-relative layout of [MS-DTYP] 2.4.6, byte for byte, its parts in
// the order Windows and Azure write them: DACL, owner, group.
func TestDescriptorKnownAnswer(t *testing.T) {
	const sddl = "O:SYG:SYD:(A;;FA;;;WD)"
	want := "0100" + "0480" + "30000000" + "3c000000" + "00000000" + "14000000" +
		"02001c0001000000" + // ACL revision 2, 28 bytes, one ACE
		"00001400ff011f00" + "010100000000000100000000" + // allow, FA, S-1-1-0
		"010100000000000512000000" + // owner S-1-5-18
		"010100000000000512000000" // group S-1-5-18
	got, err := SDDLToBinary(sddl)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(got)
	if hex.EncodeToString(raw) != want {
		t.Fatalf("binary\n got %x\nwant %s", raw, want)
	}
	back, err := BinaryToSDDL(got)
	if err != nil || back != sddl {
		t.Fatalf("back: %q %v", back, err)
	}
}

// TestDescriptorRoundTrip: canonical SDDLs survive binary and back;
// malformed binary is FileInvalidPermission, unsupported features 501.
func TestDescriptorRoundTrip(t *testing.T) {
	for _, sddl := range []string{
		defaultPermission,
		"O:BAG:SYD:P(A;OICI;FA;;;SY)(A;;0x1200a9;;;BU)(D;;FW;;;S-1-5-21-1-2-3-1001)S:AI(AU;SAFA;FA;;;WD)",
		"O:S-1-5-21-397955417-626881126-188441444-512G:S-1-5-21-397955417-626881126-188441444-513D:PAI",
		"O:BAG:SYD:NO_ACCESS_CONTROL", // a null DACL
		"O:BAG:SYD:PNO_ACCESS_CONTROL",
	} {
		b, err := SDDLToBinary(sddl)
		if err != nil {
			t.Fatalf("%q: %v", sddl, err)
		}
		back, err := BinaryToSDDL(b)
		if err != nil || back != sddl {
			t.Fatalf("%q came back as %q, %v", sddl, back, err)
		}
	}
	for _, bad := range []string{"not base64!", base64.StdEncoding.EncodeToString([]byte{1, 0, 4, 0x80}), ""} {
		if _, err := BinaryToSDDL(bad); !errors.Is(err, azerr.ErrFileInvalidPermission) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	for _, unsupported := range []string{"O:BAG:SYD:(XA;;FA;;;WD;(Member_of{SID(BA)}))", "O:DAG:SYD:"} {
		if !validSDDL(unsupported) {
			t.Fatalf("%q is not valid SDDL", unsupported)
		}
		if _, err := SDDLToBinary(unsupported); !errors.Is(err, azerr.ErrNotImplemented) {
			t.Errorf("%q: %v", unsupported, err)
		}
	}
}

// FuzzBinaryToSDDL: any binary descriptor that converts converts back to
// the same SDDL; nothing panics.
func FuzzBinaryToSDDL(f *testing.F) {
	for _, sddl := range []string{defaultPermission, "O:SYG:SYD:(A;;FA;;;WD)", "O:BAG:SYD:P(A;OICI;FA;;;SY)S:AI(AU;SAFA;FA;;;WD)"} {
		b, err := SDDLToBinary(sddl)
		if err != nil {
			f.Fatal(err)
		}
		raw, _ := base64.StdEncoding.DecodeString(b)
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		sddl, err := BinaryToSDDL(base64.StdEncoding.EncodeToString(raw))
		if err != nil {
			return
		}
		b, err := SDDLToBinary(sddl)
		if err != nil {
			t.Fatalf("%q converted from binary but not back: %v", sddl, err)
		}
		again, err := BinaryToSDDL(b)
		if err != nil || again != sddl {
			t.Fatalf("%q came back as %q, %v", sddl, again, err)
		}
	})
}
