//go:build linux

package pgserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// PatroniSettings are the failover timings Patroni keeps in its store
// (docs/operations.md explains the choice).
type PatroniSettings struct {
	// TTL is how long the leader key lives without being renewed: a
	// primary whose Patroni died is replaced this long after its last
	// renewal.
	TTL int
	// LoopWait is the pause between Patroni's rounds.
	LoopWait int
	// RetryTimeout bounds Patroni's retries of etcd and PostgreSQL before
	// a leader demotes itself.
	RetryTimeout int
	// Strict is synchronous_mode_strict: with no synchronous standby left,
	// writes wait instead of going on unreplicated.
	Strict bool
}

// DefaultPatroniSettings returns the reference deployment's settings: a
// crash is noticed within about ttl, which a loopback cluster can keep
// short.
func DefaultPatroniSettings() PatroniSettings {
	return PatroniSettings{TTL: 10, LoopWait: 1, RetryTimeout: 4}
}

// Patroni is a three-node PostgreSQL cluster managed by Patroni with a
// single etcd as its store, all on loopback ports of this process's own.
type Patroni struct {
	dir      string
	Settings PatroniSettings
	etcd     *Child
	etcdPort int
	Nodes    []*PatroniNode
}

// PatroniNode is one Patroni and the PostgreSQL it runs.
type PatroniNode struct {
	Name           string
	Port, RestPort int
	dir, config    string
	cred           *syscall.Credential
	mu             sync.Mutex
	proc           *Child
}

// StartPatroni starts etcd and three Patroni nodes under parent and waits
// until one leads with a synchronous standby and the third streams.
func StartPatroni(parent string, set PatroniSettings) (p *Patroni, err error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	if _, err := exec.LookPath("patroni"); err != nil {
		return nil, errors.New("patroni is not installed (apt-get install patroni etcd-server)")
	}
	cred, err := owner(parent)
	if err != nil {
		return nil, err
	}
	p = &Patroni{dir: parent, Settings: set}
	defer func() {
		if err != nil {
			p.Close()
		}
	}()
	if err := p.startEtcd(); err != nil {
		return nil, err
	}
	for i := 1; i <= 3; i++ {
		n := &PatroniNode{Name: fmt.Sprintf("pg%d", i), dir: filepath.Join(parent, fmt.Sprintf("pg%d", i)), cred: cred}
		if n.Port, err = FreePort(); err != nil {
			return nil, err
		}
		if n.RestPort, err = FreePort(); err != nil {
			return nil, err
		}
		if err := mkdirOwned(n.dir, cred); err != nil {
			return nil, err
		}
		n.config = filepath.Join(parent, n.Name+".yml")
		if err := os.WriteFile(n.config, []byte(p.config(n, bin)), 0o644); err != nil {
			return nil, err
		}
		p.Nodes = append(p.Nodes, n)
	}
	// The first node bootstraps alone, so that the others join it as
	// standbys instead of racing for the initialization key.
	if err := p.Nodes[0].Start(); err != nil {
		return nil, err
	}
	if _, err := p.WaitLeader(60 * time.Second); err != nil {
		return nil, err
	}
	for _, n := range p.Nodes[1:] {
		if err := n.Start(); err != nil {
			return nil, err
		}
	}
	return p, p.WaitHealthy(120 * time.Second)
}

func (p *Patroni) startEtcd() error {
	client, err := FreePort()
	if err != nil {
		return err
	}
	peer, err := FreePort()
	if err != nil {
		return err
	}
	p.etcdPort = client
	c, pu := fmt.Sprintf("http://127.0.0.1:%d", client), fmt.Sprintf("http://127.0.0.1:%d", peer)
	cmd := exec.Command("etcd", "--name", "etcd", "--data-dir", filepath.Join(p.dir, "etcd"),
		"--listen-client-urls", c, "--advertise-client-urls", c,
		"--listen-peer-urls", pu, "--initial-advertise-peer-urls", pu, "--initial-cluster", "etcd="+pu)
	p.etcd, err = StartChild("etcd", cmd, filepath.Join(p.dir, "etcd.log"), syscall.SIGKILL, nil)
	if err != nil {
		return err
	}
	return WaitTCP(client, 30*time.Second)
}

// config is a node's Patroni configuration. The bootstrap section is
// written to etcd by the node that initializes the cluster; the rest is
// the node's own.
func (p *Patroni) config(n *PatroniNode, bin string) string {
	s := p.Settings
	return fmt.Sprintf(`scope: payd
namespace: /service/
name: %[1]s
log:
  level: INFO
restapi:
  listen: 127.0.0.1:%[2]d
  connect_address: 127.0.0.1:%[2]d
etcd3:
  hosts: 127.0.0.1:%[3]d
bootstrap:
  dcs:
    ttl: %[4]d
    loop_wait: %[5]d
    retry_timeout: %[6]d
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    synchronous_mode_strict: %[7]v
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        max_connections: 250
        max_wal_senders: 10
        max_replication_slots: 10
        wal_level: replica
        wal_log_hints: "on"
        hot_standby: "on"
        synchronous_commit: "on"
        fsync: "off"
        full_page_writes: "on"
        shared_buffers: 32MB
        wal_keep_size: 128MB
  initdb:
  - encoding: UTF8
  - data-checksums
postgresql:
  listen: 127.0.0.1:%[8]d
  connect_address: 127.0.0.1:%[8]d
  data_dir: %[9]s
  bin_dir: %[10]s
  pgpass: %[11]s
  remove_data_directory_on_rewind_failure: true
  remove_data_directory_on_diverged_timelines: true
  authentication:
    superuser:
      username: postgres
    replication:
      username: postgres
    rewind:
      username: postgres
  pg_hba:
  - local all all trust
  - host all all 127.0.0.1/32 trust
  - host replication all 127.0.0.1/32 trust
  parameters:
    unix_socket_directories: %[12]s
`, n.Name, n.RestPort, p.etcdPort, s.TTL, s.LoopWait, s.RetryTimeout, s.Strict,
		n.Port, filepath.Join(n.dir, "data"), bin, filepath.Join(n.dir, "pgpass"), n.dir)
}

// URL names every node, so that a client connects to whichever is primary
// (target_session_attrs=read-write: pgx skips a standby); connect_timeout
// bounds the wait on each.
func (p *Patroni) URL(db string) string {
	var hosts []string
	for _, n := range p.Nodes {
		hosts = append(hosts, "127.0.0.1:"+strconv.Itoa(n.Port))
	}
	return "postgres://postgres@" + strings.Join(hosts, ",") + "/" + db +
		"?sslmode=disable&target_session_attrs=read-write&connect_timeout=2"
}

// NodeURL is the connection string for one node.
func (n *PatroniNode) NodeURL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", n.Port, db)
}

// Start starts the node's Patroni, which starts its PostgreSQL
// (initializing, cloning or rewinding it as the cluster needs).
func (n *PatroniNode) Start() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	// SIGTERM if this process dies: Patroni then stops its PostgreSQL,
	// which it started detached.
	c, err := StartChild("patroni-"+n.Name, exec.Command("patroni", n.config),
		filepath.Join(filepath.Dir(n.dir), n.Name+"-patroni.log"), syscall.SIGTERM, n.cred)
	if err != nil {
		return err
	}
	n.proc = c
	return WaitTCP(n.RestPort, 30*time.Second)
}

// Kill ends the node as a machine dying would: SIGKILL to Patroni, to its
// PostgreSQL and to every backend, at once.
func (n *PatroniNode) Kill() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc != nil && !n.proc.Exited() {
		killTree(n.proc.Pid())
		<-n.proc.Done()
	}
	if pid := n.postmaster(); pid > 0 {
		killTree(pid)
	}
}

// Stop stops Patroni gracefully; it stops its PostgreSQL first. Anything
// left after a minute is killed.
func (n *PatroniNode) Stop() {
	n.mu.Lock()
	if n.proc != nil && !n.proc.Exited() {
		n.proc.Stop(syscall.SIGTERM, time.Minute)
	}
	n.mu.Unlock()
	if pid := n.postmaster(); pid > 0 && syscall.Kill(pid, 0) == nil {
		syscall.Kill(pid, syscall.SIGQUIT)
		time.Sleep(time.Second)
		killTree(pid)
	}
}

// postmaster reads the PostgreSQL's pid from postmaster.pid (0 if none).
func (n *PatroniNode) postmaster() int {
	raw, err := os.ReadFile(filepath.Join(n.dir, "data", "postmaster.pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(raw), "\n", 2)[0]))
	return pid
}

// Close stops every node and etcd.
func (p *Patroni) Close() {
	var wg sync.WaitGroup
	for _, n := range p.Nodes {
		wg.Add(1)
		go func() { defer wg.Done(); n.Stop() }()
	}
	wg.Wait()
	p.etcd.Stop(syscall.SIGKILL, 5*time.Second)
}

// Member is one node as Patroni's REST API reports it.
type Member struct {
	Name  string `json:"name"`
	Role  string `json:"role"`
	State string `json:"state"`
	Port  int    `json:"port"`
	Lag   any    `json:"lag"`
}

// Members asks any node that answers for the cluster's view.
func (p *Patroni) Members() ([]Member, error) {
	c := &http.Client{Timeout: 2 * time.Second}
	var last error
	for _, n := range p.Nodes {
		resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d/cluster", n.RestPort))
		if err != nil {
			last = err
			continue
		}
		var out struct{ Members []Member }
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil {
			last = err
			continue
		}
		return out.Members, nil
	}
	return nil, fmt.Errorf("no Patroni answers: %w", last)
}

// Node finds a node by name.
func (p *Patroni) Node(name string) *PatroniNode {
	for _, n := range p.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// WaitLeader waits until a node leads and runs, and returns it.
func (p *Patroni) WaitLeader(d time.Duration) (*PatroniNode, error) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		ms, _ := p.Members()
		for _, m := range ms {
			if m.Role == "leader" && m.State == "running" {
				return p.Node(m.Name), nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return nil, fmt.Errorf("no Patroni leader after %v; logs in %s", d, p.dir)
}

// WaitHealthy waits until all three nodes run: a leader, a synchronous
// standby and a streaming replica.
func (p *Patroni) WaitHealthy(d time.Duration) error {
	deadline := time.Now().Add(d)
	var ms []Member
	for time.Now().Before(deadline) {
		ms, _ = p.Members()
		var leader, sync, other int
		for _, m := range ms {
			if m.State != "running" && m.State != "streaming" {
				continue
			}
			switch m.Role {
			case "leader":
				leader++
			case "sync_standby":
				sync++
			case "replica":
				other++
			}
		}
		if leader == 1 && sync == 1 && other == 1 {
			return nil
		}
		time.Sleep(250 * time.Millisecond)
	}
	return fmt.Errorf("cluster not healthy after %v: %+v; logs in %s", d, ms, p.dir)
}

// Switchover asks Patroni, through patronictl as an operator would, to
// hand the primary role to the synchronous standby.
func (p *Patroni) Switchover(ctx context.Context, leader string) error {
	cmd := exec.CommandContext(ctx, "patronictl", "-c", p.Nodes[0].config, "switchover", "--leader", leader, "--force")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("patronictl switchover: %v\n%s", err, out)
	}
	return nil
}
