//go:build linux

package pgserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Citus is a throwaway Citus cluster: a coordinator and its workers, each
// a Server of its own on a free loopback port, in database postgres.
type Citus struct {
	Coordinator *Server
	Workers     []*Server
	// settings are the caller's, given to every node (StartCitus).
	settings []string
}

// CitusShardCount is the shards per distributed table the cluster makes:
// one per worker of a test cluster, which proves that work divides over
// workers without paying, in every test's fresh schema, for the 32 of
// Citus's default.
const CitusShardCount = 2

// CitusInstalled reports whether the Citus extension is installed for the
// PostgreSQL whose binaries are in bin.
func CitusInstalled(bin string) bool {
	out, err := exec.Command(filepath.Join(bin, "pg_config"), "--pkglibdir").Output()
	if err != nil {
		// Debian's server packages keep pg_config out of bin/; the
		// library directory sits beside it.
		_, err := os.Stat(filepath.Join(filepath.Dir(bin), "lib", "citus.so"))
		return err == nil
	}
	_, err = os.Stat(filepath.Join(strings.TrimSpace(string(out)), "citus.so"))
	return err == nil
}

// StartCitus starts a coordinator and workers under parent, loads Citus on
// each and registers the workers with the coordinator. Close stops them.
// settings are added to every node's Settings after the cluster's own, so
// a later one of the same name wins (PostgreSQL takes the last -c):
// "shared_preload_libraries=citus,pg_stat_statements" loads another
// library beside Citus, which must stay first.
func StartCitus(ctx context.Context, parent string, workers int, settings ...string) (*Citus, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	if !CitusInstalled(bin) {
		return nil, fmt.Errorf("the Citus extension is not installed for %s: run scripts/install-citus", bin)
	}
	c := &Citus{settings: settings}
	start := func(name string) (*Server, error) { return c.startNode(ctx, parent, name) }
	if c.Coordinator, err = start("coordinator"); err != nil {
		c.Close()
		return nil, err
	}
	for i := 0; i < workers; i++ {
		w, err := start("worker" + strconv.Itoa(i+1))
		if w != nil {
			c.Workers = append(c.Workers, w)
		}
		if err != nil {
			c.Close()
			return nil, err
		}
	}
	stmts := []string{fmt.Sprintf("SELECT citus_set_coordinator_host('127.0.0.1', %d)", c.Coordinator.Port)}
	for _, w := range c.Workers {
		stmts = append(stmts, fmt.Sprintf("SELECT citus_add_node('127.0.0.1', %d)", w.Port))
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := c.Coordinator.Exec(ctx, "postgres", stmts...); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// startNode starts one node of the cluster with Citus loaded.
func (c *Citus) startNode(ctx context.Context, parent, name string) (*Server, error) {
	s, err := New(parent, name)
	if err != nil {
		return nil, err
	}
	// Two-phase commit of transactions over several workers needs
	// prepared transactions.
	s.Settings = []string{"shared_preload_libraries=citus", "max_prepared_transactions=200",
		"citus.shard_count=" + strconv.Itoa(CitusShardCount), "wal_level=logical",
		// The nodes talk over loopback; libpq's default of trying TLS
		// would read the caller's ~/.postgresql as the server's user.
		"citus.node_conninfo=sslmode=disable"}
	s.Settings = append(s.Settings, c.settings...)
	if err = s.Start(); err != nil {
		return s, err
	}
	return s, s.Exec(ctx, "postgres", "CREATE EXTENSION citus")
}

// AddWorker starts one more worker under parent, as the others, and adds
// it to the cluster (citus_add_node); it holds no shards until they are
// moved to it.
func (c *Citus) AddWorker(ctx context.Context, parent, name string) (*Server, error) {
	w, err := c.startNode(ctx, parent, name)
	if w != nil {
		c.Workers = append(c.Workers, w)
	}
	if err != nil {
		return w, err
	}
	return w, c.Coordinator.Exec(ctx, "postgres", fmt.Sprintf("SELECT citus_add_node('127.0.0.1', %d)", w.Port))
}

// Nodes are the coordinator and the workers, in that order.
func (c *Citus) Nodes() []*Server {
	return append([]*Server{c.Coordinator}, c.Workers...)
}

// URL is the coordinator's connection string: applications connect there.
func (c *Citus) URL() string { return c.Coordinator.URL("postgres") }

// Close stops every node, workers first.
func (c *Citus) Close() {
	for _, w := range c.Workers {
		w.Stop(false)
	}
	if c.Coordinator != nil {
		c.Coordinator.Stop(false)
	}
}
