package main

import (
	"context"
	"errors"
	"io"
)

func runAdmin(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return errors.New("admin: not available yet")
}
