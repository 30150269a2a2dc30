// Package sqlstore implements payd.Store on SQLite (the embedded default)
// and PostgreSQL over database/sql. Both databases run the same SQL: times
// are integer microseconds, JSON is text and placeholders are $N, which the
// SQLite driver binds by number. What differs — row locks, the idempotency
// try-lock, error codes, a type name in the DDL — sits behind the dialect in
// dialect.go, so the two stores cannot drift apart and one conformance suite
// (storetest) proves both.
//
// The secrets the store must read back in clear — webhook signing secrets,
// TOTP secrets, the service's keys, idempotent answers — are sealed under
// the keyring it is opened with (Options.Keyring, package seal) on their
// way in and opened on their way out, in the same code for both databases
// (seal.go).
package sqlstore
