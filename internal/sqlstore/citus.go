package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// On a Citus coordinator the migrations create the tables as they do on
// one PostgreSQL, and then distribute finishes the job: every table that
// belongs to a merchant is distributed by merchant_key (migration 0032),
// all of them co-located with merchants, so that one merchant's rows are
// in one shard group; the few service-wide tables become reference tables,
// copied to every node; the job queue's tables and payd_migrations stay
// the coordinator's own. A database restored from one PostgreSQL into the
// coordinator is distributed the same way by its first `payd migrate`
// (docs/operations.md, "Past one PostgreSQL").

// merchantTables are the tables distributed by merchant_key, merchants
// first (the others are co-located with it), each with the SQL expression
// of a row's merchant id, from which distribute derives the keys of rows
// written before migration 0032 (none for a table rebuilt from others). Keys are derived in SQL by mkey (a
// function of this session, from pg_temp).
var merchantTables = []struct{ table, merchant string }{
	{"merchants", "id"},
	{"shops", "merchant_id"},
	{"api_keys", "(SELECT s.merchant_id FROM shops s WHERE s.id = api_keys.shop_id)"},
	{"idempotency_keys", "(SELECT s.merchant_id FROM shops s WHERE s.id = idempotency_keys.shop_id)"},
	{"events", "merchant_id"},
	{"webhook_endpoints", "(SELECT s.merchant_id FROM shops s WHERE s.id = webhook_endpoints.shop_id)"},
	{"payments", "(SELECT s.merchant_id FROM shops s WHERE s.id = payments.shop_id)"},
	{"provider_notifications", "''"},
	{"discrepancies", "(SELECT s.merchant_id FROM payments p JOIN shops s ON s.id = p.shop_id WHERE p.id = discrepancies.payment_id)"},
	{"sandbox_attempts", "(SELECT s.merchant_id FROM payments p JOIN shops s ON s.id = p.shop_id WHERE p.id = sandbox_attempts.payment_id)"},
	{"webhook_deliveries", "(SELECT e.merchant_id FROM events e WHERE e.id = webhook_deliveries.event_id)"},
	{"delivery_attempts", "(SELECT e.merchant_id FROM events e WHERE e.id = delivery_attempts.event_id)"},
	{"ledger_entries", "(SELECT MIN(p.owner) FROM ledger_postings p WHERE p.entry_id = ledger_entries.id AND p.owner <> 'payd')"},
	{"ledger_postings", "(SELECT MIN(p.owner) FROM ledger_postings p WHERE p.entry_id = ledger_postings.entry_id AND p.owner <> 'payd')"},
	{"ledger_totals", "owner"},
	{"ledger_totals_opened", "owner"},
	{"refunds", "(SELECT s.merchant_id FROM shops s WHERE s.id = refunds.shop_id)"},
	{"payout_freezes", "merchant_id"},
	{"settlements", "merchant_id"},
	{"settlement_days", "merchant_id"},
	{"disputes", "merchant_id"},
	{"evidence_files", "(SELECT d.merchant_id FROM disputes d WHERE d.id = evidence_files.dispute_id)"},
	{"evidence_chunks", "(SELECT d.merchant_id FROM evidence_files f JOIN disputes d ON d.id = f.dispute_id WHERE f.id = evidence_chunks.file_id)"},
	{"payment_links", "(SELECT s.merchant_id FROM shops s WHERE s.id = payment_links.shop_id)"},
	{"link_payments", "(SELECT s.merchant_id FROM payments p JOIN shops s ON s.id = p.shop_id WHERE p.id = link_payments.payment_id)"},
	{"payouts", "merchant_id"},
	{"audit_log", "merchant_id"},
	// Rebuilt from the payments (rebuildPayTotals): a row's key is its
	// payments', derived above.
	{"payment_day_totals", ""},
}

// referenceTables are small, service-wide and rarely written: copied to
// every node, read where they are needed. Dashboard users sign in by
// email before any merchant is known, and a session is found by its
// token's hash. The operator's staff, their tokens and the operator audit
// log belong to no merchant and are written at people's pace, as are
// their sessions.
var referenceTables = []string{"holidays", "provider_routes", "service_secrets", "signin_guards",
	"dashboard_users", "dashboard_sessions", "staff", "staff_sessions", "staff_tokens", "operator_audit", "proposals"}

// isCitus reports whether the database is a Citus coordinator.
func isCitus(ctx context.Context, q querier) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_extension WHERE extname = 'citus'`).Scan(&n)
	return n > 0, err
}

// migrationDialect is the dialect of a coordinator's migrations: Citus's
// once the merchants' tables are distributed, plain PostgreSQL's before.
func migrationDialect(ctx context.Context, q querier) (dialect, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_dist_partition
		WHERE logicalrelid = to_regclass('merchants') AND partmethod = 'h'`).Scan(&n)
	return postgresDialect{citus: n > 0}, err
}

// distribute distributes the tables that are not yet: it runs at the end
// of every Migrate on a coordinator, and does nothing once all are.
func distribute(ctx context.Context, conn *sql.Conn) error {
	done := map[string]bool{}
	rows, err := conn.QueryContext(ctx, `SELECT c.relname FROM pg_dist_partition p
		JOIN pg_class c ON c.oid = p.logicalrelid
		WHERE c.relnamespace = current_schema()::regnamespace`)
	if err != nil {
		return fmt.Errorf("read distributed tables: %w", err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		done[name] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, mkeyFunc); err != nil {
		return fmt.Errorf("create mkey: %w", err)
	}
	// References from a reference table to a distributed one cannot be
	// kept: dashboard users name their merchant, checked by the service.
	if !done["dashboard_users"] {
		if err := dropForeignKeys(ctx, conn, "dashboard_users", "merchants"); err != nil {
			return err
		}
	}
	for _, t := range referenceTables {
		if done[t] {
			continue
		}
		if _, err := conn.ExecContext(ctx, `SELECT create_reference_table($1)`, t); err != nil {
			return fmt.Errorf("make %s a reference table: %w", t, err)
		}
	}
	var pending []string
	for _, t := range merchantTables {
		if done[t.table] {
			continue
		}
		pending = append(pending, t.table)
		if t.merchant == "" {
			if err := rebuildPayTotals(ctx, conn); err != nil {
				return err
			}
			continue
		}
		if _, err := conn.ExecContext(ctx, `UPDATE `+t.table+` SET merchant_key = pg_temp.mkey(`+t.merchant+`)`); err != nil {
			return fmt.Errorf("derive merchant keys of %s: %w", t.table, err)
		}
	}
	if !done["unkeyed_ids"] {
		if err := buildDirectory(ctx, conn); err != nil {
			return err
		}
	}
	if len(pending) == 0 {
		return nil
	}
	if slices.Contains(pending, "ledger_totals") {
		if err := rebuildServiceTotals(ctx, conn); err != nil {
			return err
		}
	}
	// Foreign keys between the tables name the key on both sides, so
	// they hold within a shard group; they are dropped while the unique
	// indexes they rest on are rebuilt.
	fks, err := foreignKeys(ctx, conn, pending)
	if err != nil {
		return err
	}
	for _, fk := range fks {
		if _, err := conn.ExecContext(ctx, `ALTER TABLE `+fk.table+` DROP CONSTRAINT `+fk.name); err != nil {
			return fmt.Errorf("drop %s: %w", fk.name, err)
		}
	}
	for _, t := range pending {
		if err := keyUniqueIndexes(ctx, conn, t); err != nil {
			return err
		}
	}
	for _, t := range pending {
		colocate := "merchants"
		if t == "merchants" {
			colocate = "none"
		}
		if _, err := conn.ExecContext(ctx, `SELECT create_distributed_table($1, 'merchant_key', colocate_with => $2)`,
			t, colocate); err != nil {
			return fmt.Errorf("distribute %s: %w", t, err)
		}
	}
	for _, fk := range fks {
		stmt := fmt.Sprintf(`ALTER TABLE %s ADD CONSTRAINT %s FOREIGN KEY (%s, merchant_key) REFERENCES %s (%s, merchant_key)`,
			fk.table, fk.name, fk.cols, fk.refTable, fk.refCols)
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("restore %s: %w", fk.name, err)
		}
	}
	return nil
}

// buildDirectory makes the directory of the identifiers made before
// merchant keys (merchant_key.go, directoryKey): every object's id that
// does not carry its merchant's key (a ULID's first character, 0-7, is
// not marked), with the key derived from its merchant. It is distributed
// by the identifier, apart from the merchants' shard groups: a look-up
// reads one shard. On a cluster that started empty it stays empty.
func buildDirectory(ctx context.Context, conn *sql.Conn) error {
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS unkeyed_ids (id TEXT PRIMARY KEY, merchant_key INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("create the directory of unkeyed identifiers: %w", err)
	}
	for _, t := range merchantTables[1:] {
		var n int
		if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'id'`, t.table).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			continue
		}
		if _, err := conn.ExecContext(ctx, `INSERT INTO unkeyed_ids (id, merchant_key)
			SELECT id, merchant_key FROM `+t.table+`
			WHERE length(id) >= 26 AND substr(id, length(id) - 25, 1) BETWEEN '0' AND '7'
			ON CONFLICT DO NOTHING`); err != nil {
			return fmt.Errorf("list the unkeyed identifiers of %s: %w", t.table, err)
		}
	}
	if _, err := conn.ExecContext(ctx, `SELECT create_distributed_table('unkeyed_ids', 'id')`); err != nil {
		return fmt.Errorf("distribute the directory of unkeyed identifiers: %w", err)
	}
	return nil
}

// mkeyFunc is payd.KeyOf in SQL: the 20 bits of characters 11 to 14 of an
// identifier's 26, 0 for NULL or anything shorter.
const mkeyFunc = `CREATE OR REPLACE FUNCTION pg_temp.mkey(id text) RETURNS integer LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN id IS NULL OR length(id) < 26 THEN 0 ELSE
		((strpos(a, substr(id, length(id) - 15, 1)) - 1) << 15) |
		((strpos(a, substr(id, length(id) - 14, 1)) - 1) << 10) |
		((strpos(a, substr(id, length(id) - 13, 1)) - 1) << 5) |
		(strpos(a, substr(id, length(id) - 12, 1)) - 1) END
	FROM (SELECT '0123456789ABCDEFGHJKMNPQRSTVWXYZ'::text AS a) alphabet
$$`

// rebuildPayTotals makes the payments' day totals again from the
// payments, as migration 0037 first made them: the rows it wrote from a
// database whose older payments had no key yet carry key 0.
func rebuildPayTotals(ctx context.Context, conn *sql.Conn) error {
	for _, stmt := range []string{
		`DELETE FROM payment_day_totals`,
		`INSERT INTO payment_day_totals (shop_id, test, day, status, currency, slot, count, amount, merchant_key)
			SELECT shop_id, test, created_at / 86400000000, status, currency, 0, COUNT(*), SUM(amount), MIN(merchant_key)
			FROM payments GROUP BY shop_id, test, created_at / 86400000000, status, currency`,
	} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("rebuild the payments' day totals: %w", err)
		}
	}
	return nil
}

// rebuildServiceTotals splits the running totals of the service's own
// accounts by merchant: on one server a total of the service's clearing
// account gathers every merchant's postings, on a cluster each merchant's
// shard group keeps its part, so that a posting never leaves its group.
// The parts are rebuilt from the postings, which are the truth; the ledger
// check sums them.
func rebuildServiceTotals(ctx context.Context, conn *sql.Conn) error {
	for _, stmt := range []string{
		`DELETE FROM ledger_totals WHERE owner = 'payd'`,
		`DELETE FROM ledger_totals_opened WHERE owner = 'payd'`,
		`INSERT INTO ledger_totals (kind, owner, test, currency, bucket, sub, slot, amount, merchant_key)
			SELECT 'account', owner, test, currency, bucket, sub, '', SUM(amount), merchant_key
			FROM ledger_postings WHERE owner = 'payd' GROUP BY merchant_key, owner, test, currency, bucket, sub`,
		`INSERT INTO ledger_totals (kind, owner, test, currency, bucket, sub, slot, amount, merchant_key)
			SELECT 'bucket', owner, test, currency, bucket, '', '', SUM(amount), merchant_key
			FROM ledger_postings WHERE owner = 'payd' GROUP BY merchant_key, owner, test, currency, bucket`,
	} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("split the service's totals by merchant: %w", err)
		}
	}
	return nil
}

type foreignKey struct{ table, name, cols, refTable, refCols string }

// foreignKeys lists the foreign keys among tables.
func foreignKeys(ctx context.Context, conn *sql.Conn, tables []string) ([]foreignKey, error) {
	rows, err := conn.QueryContext(ctx, `SELECT c.conrelid::regclass::text, c.conname, c.confrelid::regclass::text,
			(SELECT string_agg(a.attname, ', ' ORDER BY k.n) FROM unnest(c.conkey) WITH ORDINALITY k(att, n)
				JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.att),
			(SELECT string_agg(a.attname, ', ' ORDER BY k.n) FROM unnest(c.confkey) WITH ORDINALITY k(att, n)
				JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.att)
		FROM pg_constraint c
		WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
			AND c.conrelid::regclass::text = ANY($1) ORDER BY 1, 2`, "{"+strings.Join(tables, ",")+"}")
	if err != nil {
		return nil, fmt.Errorf("read foreign keys: %w", err)
	}
	defer rows.Close()
	var out []foreignKey
	for rows.Next() {
		var fk foreignKey
		if err := rows.Scan(&fk.table, &fk.name, &fk.refTable, &fk.cols, &fk.refCols); err != nil {
			return nil, err
		}
		out = append(out, fk)
	}
	return out, rows.Err()
}

// dropForeignKeys drops table's foreign keys to refTable.
func dropForeignKeys(ctx context.Context, conn *sql.Conn, table, refTable string) error {
	fks, err := foreignKeys(ctx, conn, []string{table})
	if err != nil {
		return err
	}
	for _, fk := range fks {
		if fk.refTable != refTable {
			continue
		}
		if _, err := conn.ExecContext(ctx, `ALTER TABLE `+table+` DROP CONSTRAINT `+fk.name); err != nil {
			return fmt.Errorf("drop %s: %w", fk.name, err)
		}
	}
	return nil
}

// keyUniqueIndexes rebuilds table's primary key and unique indexes with
// merchant_key as their last column, as Citus requires of a distributed
// table. Each keeps its name, columns and predicate; since a merchant's
// rows all carry one key, what was unique stays unique within a merchant,
// and identifiers, being unique everywhere, stay so.
func keyUniqueIndexes(ctx context.Context, conn *sql.Conn, table string) error {
	rows, err := conn.QueryContext(ctx, `SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid),
			COALESCE(c.conname, ''), COALESCE(c.contype::text, '')
		FROM pg_index i LEFT JOIN pg_constraint c ON c.conindid = i.indexrelid AND c.conrelid = i.indrelid
		WHERE i.indrelid = $1::regclass AND i.indisunique`, table)
	if err != nil {
		return fmt.Errorf("read unique indexes of %s: %w", table, err)
	}
	type index struct{ name, def, constraint, kind string }
	var list []index
	for rows.Next() {
		var ix index
		if err := rows.Scan(&ix.name, &ix.def, &ix.constraint, &ix.kind); err != nil {
			rows.Close()
			return err
		}
		list = append(list, ix)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, ix := range list {
		open := strings.Index(ix.def, " (")
		end := strings.Index(ix.def[open:], ")")
		if open < 0 || end < 0 {
			return fmt.Errorf("unexpected index definition %q", ix.def)
		}
		cols := ix.def[open+2 : open+end]
		if strings.Contains(cols, "merchant_key") {
			continue
		}
		var stmts []string
		switch ix.kind {
		case "p":
			stmts = []string{
				`ALTER TABLE ` + table + ` DROP CONSTRAINT ` + ix.constraint,
				`ALTER TABLE ` + table + ` ADD CONSTRAINT ` + ix.constraint + ` PRIMARY KEY (` + cols + `, merchant_key)`,
			}
		case "u":
			stmts = []string{
				`ALTER TABLE ` + table + ` DROP CONSTRAINT ` + ix.constraint,
				`ALTER TABLE ` + table + ` ADD CONSTRAINT ` + ix.constraint + ` UNIQUE (` + cols + `, merchant_key)`,
			}
		default:
			stmts = []string{
				`DROP INDEX ` + ix.name,
				ix.def[:open+end] + `, merchant_key` + ix.def[open+end:],
			}
		}
		for _, stmt := range stmts {
			if _, err := conn.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("add merchant_key to %s: %w", ix.name, err)
			}
		}
	}
	return nil
}
