package azerr

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorIs(t *testing.T) {
	custom := ErrBlobNotFound.WithMessage("blob %q is gone", "x")
	if !errors.Is(fmt.Errorf("get: %w", custom), ErrBlobNotFound) {
		t.Fatal("WithMessage copy does not match its sentinel")
	}
	if errors.Is(custom, ErrContainerNotFound) {
		t.Fatal("different codes match")
	}
	if errors.Is(ErrNotModified, ErrConditionNotMet) {
		t.Fatal("304 and 412 ConditionNotMet must be told apart")
	}
	if ErrBlobNotFound.Message != "The specified blob does not exist." || custom.Error() != `BlobNotFound: blob "x" is gone` {
		t.Fatalf("sentinel changed or Error() wrong: %q", custom.Error())
	}
}
