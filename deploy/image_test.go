//go:build linux

package deploy

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paydhq/payd/internal/pgserver"
)

// The image as `make image` builds it: a database in its volume or on
// PostgreSQL, ready, serving a payment's whole path, draining on SIGTERM,
// and leaving nothing behind (podman.removeAll).
func TestImage(t *testing.T) {
	p := newPodman(t)
	const image = "localhost/payd:image-test"
	p.build(t, image)

	t.Run("plain HTTP on the container's addresses is refused until TLS is said to end in front", func(t *testing.T) {
		name := "payd-refuses-" + random(4)
		_, err := p.run(context.Background(), "run", "--name", name, "--network", "host", "--pull", "never", image)
		if err == nil {
			t.Fatal("payd started with the image's defaults alone")
		}
		logs := p.logs(name)
		if !strings.Contains(logs, "refusing to serve plain HTTP on 0.0.0.0:8080") || !strings.Contains(logs, "--behind-tls-proxy") {
			t.Errorf("the refusal does not name the address and the way out:\n%s", logs)
		}
		p.must(t, "rm", name)
	})

	t.Run("SQLite in the volume", func(t *testing.T) {
		// The secrets key as docs/deployment.md passes it: a podman
		// secret, mounted for the image's user alone (payd refuses a key
		// file others may read).
		env := settings(t)
		p.secret(t, "payd-secrets-key", env["PAYD_SECRETS_KEY"])
		delete(env, "PAYD_SECRETS_KEY")
		env["PAYD_SECRETS_KEY_FILE"] = "/run/secrets/payd-secrets-key"
		c := p.start(t, image, env, "--volume", "payd-data-"+random(4)+":/data",
			"--secret", "payd-secrets-key,uid=65532,gid=65532,mode=0400")
		if err := c.waitReady(); err != nil {
			t.Fatal(err)
		}
		shop, key := c.onboard(t)
		walkPayment(t, c, c, shop, key)
		if err := c.drain(); err != nil {
			t.Fatal(err)
		}
		// The database is in the volume, not in the container's own layer.
		mount := p.must(t, "volume", "inspect", "--format", "{{.Mountpoint}}", c.volume(t))
		if _, err := os.Stat(mount + "/payd.db"); err != nil {
			t.Errorf("no payd.db in the volume: %v", err)
		}
	})

	t.Run("PostgreSQL and Redis, two containers at once", func(t *testing.T) {
		dbURL := freshDatabase(t)
		redisURL := os.Getenv("PAYD_TEST_REDIS_URL")
		if redisURL == "" {
			t.Fatal("PAYD_TEST_REDIS_URL is not set (source the CI environment: redis://127.0.0.1:6379/0)")
		}
		shared := map[string]string{
			"PAYD_DATABASE_URL": dbURL, "PAYD_REDIS_URL": redisURL,
			"PAYD_SECRETS_KEY": secretsKey(), "PAYD_ADMIN_TOKEN": "adm_" + random(16),
		}
		var a, b *container
		var wg sync.WaitGroup
		for _, c := range []**container{&a, &b} {
			env := settings(t)
			for k, v := range shared {
				env[k] = v
			}
			*c = p.start(t, image, env)
		}
		// Started together, they apply the migrations once between them.
		for _, c := range []*container{a, b} {
			wg.Go(func() {
				if err := c.waitReady(); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		shop, key := a.onboard(t)
		walkPayment(t, a, b, shop, key)
		for _, c := range []*container{a, b} {
			wg.Go(func() {
				if err := c.drain(); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	})
}

// settings are the environment every serving container gets: its own
// ports on the host's loopback (--network host), a drain long enough to be
// seen, and what a production start needs (a secrets key, an operator
// token, the public URL, TLS said to end in front).
func settings(t *testing.T) map[string]string {
	api, admin := freePort(t), freePort(t)
	return map[string]string{
		"PAYD_ADDR":             "127.0.0.1:" + api,
		"PAYD_ADMIN_ADDR":       "127.0.0.1:" + admin,
		"PAYD_PUBLIC_URL":       "http://127.0.0.1:" + api,
		"PAYD_BEHIND_TLS_PROXY": "true",
		"PAYD_SECRETS_KEY":      secretsKey(),
		"PAYD_ADMIN_TOKEN":      "adm_" + random(16),
		"PAYD_DRAIN_DELAY":      drainDelay.String(),
	}
}

// drainDelay is how long a stopping container's /readyz answers 503; the
// stop's grace is it plus payd's shutdownGrace for requests in flight.
const drainDelay = 3 * time.Second

// freshDatabase creates a database of the test's own on the server of
// PAYD_TEST_DATABASE_URL and drops it at the end.
func freshDatabase(t *testing.T) string {
	t.Helper()
	base := os.Getenv("PAYD_TEST_DATABASE_URL")
	if base == "" {
		t.Fatal("PAYD_TEST_DATABASE_URL is not set (source the CI environment: postgres://postgres@127.0.0.1:5432/test?sslmode=disable)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	name := "payd_image_" + random(6)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("dropping %s: %v", name, err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

func secretsKey() string {
	b := make([]byte, 32)
	rand.Read(b)
	return "k1:" + base64.StdEncoding.EncodeToString(b)
}

func random(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func freePort(t *testing.T) string {
	t.Helper()
	port, err := pgserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return strconv.Itoa(port)
}

func envArgs(env map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, "--env", fmt.Sprintf("%s=%s", k, v))
	}
	return out
}
