package azhttp

import (
	"io"
	"log/slog"
)

var quietLogger = slog.New(slog.NewTextHandler(io.Discard, nil))
