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
// Its file form is --secrets-key-file, whose twin PAYD_SECRETS_KEY_FILE
// is the name every other secret's file form has.
const secretsKeyEnv = "PAYD_SECRETS_KEY"

// secretsKeyFileUsage is --secrets-key-file's help, for serve and migrate.
const secretsKeyFileUsage = "file of the key-encryption keys that seal the secrets the database keeps, one <id>:<base64 of 32 bytes> a line, the first sealing; readable by its owner alone (docs/security.md)"

// secretsKeyUsage is the help of PAYD_SECRETS_KEY, for serve and migrate.
const secretsKeyUsage = "the key-encryption keys themselves, as --secrets-key-file holds them (give one of the two)"

// secretsKeys reads the keys from --secrets-key-file or PAYD_SECRETS_KEY,
// and is nil without either; the labels name each as it was given. serve
// then refuses to start, except with --dev, which keeps a key in its data
// directory (serve.DevSecretsKeys): a production service that made a key
// of its own would write secrets that only its disk can open, and several
// instances would each seal under another key.
func secretsKeys(fileLabel, file, keyLabel, key string) (*seal.Keyring, error) {
	switch {
	case file != "" && key != "":
		return nil, fmt.Errorf("give the secrets key once: %s or %s, not both", fileLabel, keyLabel)
	case file != "":
		k, err := serve.ReadSecretsKeys(file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fileLabel, err)
		}
		return k, nil
	case key != "":
		k, err := seal.Parse(key)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", keyLabel, err)
		}
		return k, nil
	}
	return nil, nil
}

// errNoSecretsKey is serve's refusal to start without a key.
var errNoSecretsKey = errors.New("no secrets key: payd seals webhook signing secrets, TOTP secrets and the answers it replays under a key-encryption key kept outside the database; " +
	"give --secrets-key-file FILE (a line such as k1:<output of openssl rand -base64 32>, mode 600) or " + secretsKeyEnv + ", or use --dev for local development (docs/security.md)")
