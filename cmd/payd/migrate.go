package main

import (
	"context"
	"fmt"
	"io"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/serve"
	"github.com/paydhq/payd/internal/sqlstore"
)

func runMigrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	f := newFlags("migrate", getenv, stdout)
	databaseURL := f.Secret("database-url", "postgres:// URL; empty uses SQLite in --data-dir", secretURLs)
	dataDir := f.String("data-dir", "./payd-data", "directory of the SQLite database")
	secretsKeyFile := f.String("secrets-key-file", "", secretsKeyFileUsage)
	secretsKey := f.EnvSecret("secrets-key", secretsKeyUsage)
	if err := f.Parse(args); err != nil {
		return err
	}
	// The key is needed only to seal secrets an older version kept in
	// clear (migration 0029), which then refuses to run without one.
	keys, err := secretsKeys(f.Setting("secrets-key-file"), *secretsKeyFile, f.Setting("secrets-key"), *secretsKey)
	if err != nil {
		return err
	}
	store, err := sqlstore.OpenWith(ctx, *databaseURL, *dataDir, sqlstore.Options{Keyring: keys})
	if err != nil {
		return err
	}
	defer store.Close()
	if err := serve.Migrate(ctx, store, payd.SystemClock{}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "migrations applied (%s)\n", store.Dialect())
	return nil
}
