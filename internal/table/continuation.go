package table

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// Continuation tokens (x-ms-continuation-NextPartitionKey, -NextRowKey and
// -NextTableName) are opaque to clients. They look like Azure's:
// "1!<length>!<key in unpadded base64url>". The length guards against
// truncation; an empty key (a legal RowKey) still gives a non-empty token,
// which matters because clients stop paging at an empty token.

func encodeContinuation(key string) string {
	enc := base64.RawURLEncoding.EncodeToString([]byte(key))
	return "1!" + strconv.Itoa(len(enc)) + "!" + enc
}

// decodeContinuation reverses encodeContinuation; a malformed token is
// InvalidInput, as Azure answers.
func decodeContinuation(token string) (string, error) {
	bad := azerr.ErrInvalidInput.WithMessage("The continuation token %q is not valid.", token)
	rest, ok := strings.CutPrefix(token, "1!")
	if !ok {
		return "", bad
	}
	lenText, enc, ok := strings.Cut(rest, "!")
	if !ok {
		return "", bad
	}
	n, err := strconv.Atoi(lenText)
	if err != nil || n != len(enc) || strconv.Itoa(n) != lenText {
		return "", bad
	}
	key, err := base64.RawURLEncoding.Strict().DecodeString(enc)
	if err != nil {
		return "", bad
	}
	return string(key), nil
}
