package main

import (
	"errors"
	"fmt"

	"github.com/paydhq/payd/internal/seal"
	"github.com/paydhq/payd/internal/serve"
)

// secretsKeyEnv holds the key-encryption keys themselves, for deployments
// that pass secrets in the environment rather than in files. It has no
// flag: a key on the command line is visible to every user of the host.
const secretsKeyEnv = "PAYD_SECRETS_KEY"

// secretsKeyFileUsage is --secrets-key-file's help, for serve and migrate.
const secretsKeyFileUsage = "file of the key-encryption keys that seal the secrets the database keeps, one <id>:<base64 of 32 bytes> a line, the first sealing (docs/security.md; or the keys themselves in $" + secretsKeyEnv + ")"

// secretsKeys reads the keys from --secrets-key-file or PAYD_SECRETS_KEY,
// and is nil without either. serve then refuses to start, except with
// --dev, which keeps a key in its data directory (serve.DevSecretsKeys):
// a production service that made a key of its own would write secrets
// that only its disk can open, and several instances would each seal
// under another key.
func secretsKeys(file string, getenv func(string) string) (*seal.Keyring, error) {
	env := getenv(secretsKeyEnv)
	switch {
	case file != "" && env != "":
		return nil, errors.New("give the secrets key once: --secrets-key-file or " + secretsKeyEnv + ", not both")
	case file != "":
		k, err := serve.ReadSecretsKeys(file)
		if err != nil {
			return nil, fmt.Errorf("--secrets-key-file: %w", err)
		}
		return k, nil
	case env != "":
		k, err := seal.Parse(env)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", secretsKeyEnv, err)
		}
		return k, nil
	}
	return nil, nil
}

// errNoSecretsKey is serve's refusal to start without a key.
var errNoSecretsKey = errors.New("no secrets key: payd seals webhook signing secrets, TOTP secrets and the answers it replays under a key-encryption key kept outside the database; " +
	"give --secrets-key-file FILE (a line such as k1:<output of openssl rand -base64 32>, mode 600) or " + secretsKeyEnv + ", or use --dev for local development (docs/security.md)")
