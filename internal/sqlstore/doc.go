// Package sqlstore implements payd.Store on SQLite (the embedded default)
// and PostgreSQL over database/sql. Both databases run the same SQL: times
// are integer microseconds, JSON is text and placeholders are $N, which the
// SQLite driver binds by number. What differs — row locks, the idempotency
// try-lock, error codes, a type name in the DDL — sits behind the dialect in
// dialect.go, so the two stores cannot drift apart and one conformance suite
// (storetest) proves both.
package sqlstore
