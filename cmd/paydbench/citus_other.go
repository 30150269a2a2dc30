//go:build !linux

package main

import (
	"context"
	"errors"
	"io"
)

// runCitus needs Linux: the throwaway servers (internal/pgserver) and the
// CPU of their processes (/proc).
func runCitus(context.Context, *config, io.Writer) (*Report, error) {
	return nil, errors.New("--citus runs on Linux only")
}
