package storetest

import (
	"testing"

	"github.com/paydhq/payd"
)

func testSecret(t *testing.T, open func(t *testing.T) payd.Store) {
	// Every instance of the service shares one value of each secret: the
	// first to ask stores its fresh value, the others get that one.
	t.Run("GetOrCreate", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx := t.Context()
		get := func(name string, fresh []byte) (v []byte) {
			t.Helper()
			mustTx(t, s, func(tx payd.Tx) (err error) { v, err = tx.SecretGetOrCreate(ctx, name, fresh); return err })
			return v
		}
		// Bytes that are not text: a text column would mangle them.
		first := []byte{0x00, 0xff, 0x80, 0xfe, 's', 0x00}
		wantDiff(t, "SecretGetOrCreate of a new secret", first, get("sandbox_signing", first))
		wantDiff(t, "SecretGetOrCreate of a kept secret", first, get("sandbox_signing", []byte("another value")))
		wantDiff(t, "SecretGetOrCreate of another secret", []byte("form"), get("form_protection", []byte("form")))
		wantDiff(t, "SecretGetOrCreate of the first again", first, get("sandbox_signing", []byte("third value")))

		// A value offered in a transaction that rolled back was not kept.
		err := s.Tx(ctx, func(tx payd.Tx) error {
			if _, err := tx.SecretGetOrCreate(ctx, "rolled_back", []byte("lost")); err != nil {
				return err
			}
			return errRollback
		})
		wantErr(t, "the transaction rolled back on purpose", err, errRollback)
		wantDiff(t, "SecretGetOrCreate after a rolled back create", []byte("kept"), get("rolled_back", []byte("kept")))
	})
}
