package sqlstore

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

func migrations() []migration {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		panic(err)
	}
	var out []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			panic("migration file without a number: " + e.Name())
		}
		b, err := migrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			panic(err)
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out
}

func latestVersion() int {
	m := migrations()
	return m[len(m)-1].version
}

const migrationsTable = `CREATE TABLE IF NOT EXISTS payd_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at BIGINT NOT NULL
)`

// appliedVersions reads which migrations the database has.
func appliedVersions(ctx context.Context, q querier) (map[int]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT version FROM payd_migrations`)
	if err != nil {
		return nil, fmt.Errorf("read schema version: %w", err)
	}
	defer rows.Close()
	out := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out[v] = true
	}
	return out, rows.Err()
}

// schemaCurrent reports whether the database has every migration of this
// build and none it does not know. It reads through the read pool, so a
// readiness probe never queues behind SQLite's one writer.
func (s *Store) schemaCurrent(ctx context.Context) error {
	applied, err := appliedVersions(ctx, s.rdb)
	if err != nil {
		return err
	}
	known := map[int]bool{}
	var missing []string
	for _, m := range migrations() {
		known[m.version] = true
		if !applied[m.version] {
			missing = append(missing, m.name)
		}
	}
	var unknown []int
	for v := range applied {
		if !known[v] {
			unknown = append(unknown, v)
		}
	}
	sort.Ints(unknown)
	switch {
	case len(unknown) > 0:
		return fmt.Errorf("the database has migrations %v that this build does not know: a newer payd migrated it", unknown)
	case len(missing) > 0:
		return fmt.Errorf("migrations not applied: %s: run payd migrate", strings.Join(missing, ", "))
	}
	return nil
}

// Migrate applies every migration not yet applied, in order, each in its
// own transaction: one numbered below the highest applied (a database that
// ran a later migration first) is applied too, not skipped. On PostgreSQL an advisory lock keeps two instances starting
// at once from applying the same migration.
func (s *Store) Migrate(ctx context.Context) (applied []string, err error) {
	return s.migrateTo(ctx, latestVersion())
}

// migrateTo applies the migrations not yet applied up to version last;
// tests stop at an older schema to fill it with data of that time.
func (s *Store) migrateTo(ctx context.Context, last int) (applied []string, err error) {
	return s.migrateWhere(ctx, func(v int) bool { return v <= last })
}

// migrateWhere applies the missing migrations whose version want accepts.
func (s *Store) migrateWhere(ctx context.Context, want func(version int) bool) (applied []string, err error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if s.d.Name() == "postgres" {
		const lockKey = 7_316_504_011 // any constant unique to payd migrations
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, lockKey); err != nil {
			return nil, err
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lockKey)
	}
	if _, err := conn.ExecContext(ctx, migrationsTable); err != nil {
		return nil, fmt.Errorf("create migrations table: %w", err)
	}
	done, err := appliedVersions(ctx, conn)
	if err != nil {
		return nil, err
	}
	// A migration's own steps see the tables as they are then: on a
	// Citus coordinator they are distributed only once every migration
	// has run (citus.go).
	migDialect := s.d
	if s.d.distributed() {
		if migDialect, err = migrationDialect(ctx, conn); err != nil {
			return nil, err
		}
	}
	for _, m := range migrations() {
		if done[m.version] || !want(m.version) {
			continue
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return applied, err
		}
		for _, stmt := range splitStatements(s.d.ddl(m.sql)) {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				tx.Rollback()
				return applied, fmt.Errorf("migration %s: %w", m.name, err)
			}
		}
		if step := dataSteps[m.version]; step != nil {
			if err := step(ctx, tx, s.d); err != nil {
				tx.Rollback()
				return applied, fmt.Errorf("migration %s: %w", m.name, err)
			}
		}
		if step := sealSteps[m.version]; step != nil {
			mt := s.migrationTx(tx)
			mt.d, mt.q = migDialect, route(migDialect, tx)
			if err := step(ctx, s, mt); err != nil {
				tx.Rollback()
				return applied, fmt.Errorf("migration %s: %w", m.name, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO payd_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
			m.version, m.name, time.Now().UnixMicro()); err != nil {
			tx.Rollback()
			return applied, err
		}
		if err := tx.Commit(); err != nil {
			return applied, err
		}
		applied = append(applied, m.name)
	}
	if s.d.distributed() && allApplied(done, applied) {
		if err := distribute(ctx, conn); err != nil {
			return applied, fmt.Errorf("distribute the tables: %w", err)
		}
	}
	if s.truncateWAL {
		// A data step rewrote secrets that were in clear: the WAL still
		// holds the pages as they were, until it is emptied.
		s.truncateWAL = false
		if _, err := conn.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			return applied, fmt.Errorf("empty the WAL: %w", err)
		}
	}
	return applied, nil
}

// splitStatements splits a migration on semicolons at line ends; the
// migrations hold no procedural code, so this is enough.
func splitStatements(src string) []string {
	var out []string
	var b strings.Builder
	for _, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "--") {
			continue
		}
		b.WriteString(line)
		b.WriteString("\n")
		if strings.HasSuffix(trimmed, ";") {
			out = append(out, strings.TrimSpace(b.String()))
			b.Reset()
		}
	}
	if s := strings.TrimSpace(b.String()); s != "" {
		out = append(out, s)
	}
	return out
}

// allApplied reports whether every migration of this build is among done
// (versions applied before) or applied (names applied now).
func allApplied(done map[int]bool, applied []string) bool {
	for _, m := range migrations() {
		if !done[m.version] && !slices.Contains(applied, m.name) {
			return false
		}
	}
	return true
}
