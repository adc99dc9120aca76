package smb

import "crypto/cipher"

// SMB 3.1.1 signing algorithm negotiation (MS-SMB2 2.2.3.1.7, 3.3.5.4):
// a client that sends SMB2_SIGNING_CAPABILITIES lists the algorithms it
// signs with; the server picks one and answers the context with it.
// Without the context 3.x signs with AES-128-CMAC. The signing key is
// derived as before (MS-SMB2 3.3.5.5.3); only the algorithm over it
// changes.

// Signing algorithm IDs (MS-SMB2 2.2.3.1.7).
const (
	signHMACSHA256 uint16 = 0x0000
	signAESCMAC    uint16 = 0x0001
	signAESGMAC    uint16 = 0x0002
)

// signingPreference is the server's order, best first: AES-GMAC, then
// AES-CMAC, then HMAC-SHA256, as Windows Server prefers them.
var signingPreference = []uint16{signAESGMAC, signAESCMAC, signHMACSHA256}

// cipherPreference is the server's order of the ciphers it serves, best
// first: Windows Server's default order (AES-128-GCM, AES-128-CCM,
// AES-256-GCM, AES-256-CCM) less AES-256-CCM, which Azure Files does not
// offer (its SMB channel encryption setting lists AES-256-GCM,
// AES-128-GCM and AES-128-CCM).
var cipherPreference = []uint16{cipherAES128GCM, cipherAES128CCM, cipherAES256GCM}

// signing is the connection's 3.x signing algorithm: the one its
// signing context chose, else AES-CMAC.
func (c *conn) signing() uint16 {
	if c.signingChosen {
		return c.signAlg
	}
	return signAESCMAC
}

// preferred returns the first of the server's preferences that the
// client offers, and whether there is one.
func preferred(server []uint16, offered map[uint16]bool) (uint16, bool) {
	for _, id := range server {
		if offered[id] {
			return id, true
		}
	}
	return 0, false
}

// cipherKeyBits is a cipher's key length: 256 for AES-256-GCM and -CCM,
// whose keys the KDF derives with L = 256 (MS-SMB2 3.3.5.5.3), 128
// otherwise.
func cipherKeyBits(cipherID uint16) int {
	if cipherID == cipherAES256GCM || cipherID == cipherAES256CCM {
		return 256
	}
	return 128
}

// gmacSignature is AES-128-GMAC over a message whose signature field is
// zeroed (MS-SMB2 3.1.4.1): GCM with no plaintext and the whole message
// as additional data, whose tag is the signature. The 12-byte nonce is
// the MessageId, then a 32-bit field whose lowest bit says the server
// sent the message and whose next bit marks a CANCEL request, so that a
// response, or a CANCEL, never shares a nonce with the request it
// answers or cancels.
func gmacSignature(g cipher.AEAD, m []byte) [16]byte {
	var nonce [12]byte
	copy(nonce[:8], m[24:32])
	response := le.Uint32(m[16:])&flagResponse != 0
	if response {
		nonce[8] |= 1
	} else if le.Uint16(m[12:]) == cmdCancel {
		nonce[8] |= 2
	}
	var sig [16]byte
	copy(sig[:], g.Seal(nil, nonce[:], nil, m))
	return sig
}
