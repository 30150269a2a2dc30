//go:build linux

package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// container is a payd started from the image, on the host's network.
type container struct {
	p          *podman
	name       string
	api, admin string // base URLs of its listeners
	token      string // the operator token
}

// start runs the image detached with env and more podman run arguments.
// Its logs are printed when the test fails.
func (p *podman) start(t *testing.T, image string, env map[string]string, args ...string) *container {
	t.Helper()
	c := &container{p: p, name: "payd-" + random(4),
		api: "http://" + env["PAYD_ADDR"], admin: "http://" + env["PAYD_ADMIN_ADDR"], token: env["PAYD_ADMIN_TOKEN"]}
	run := append([]string{"run", "--detach", "--name", c.name, "--network", "host", "--pull", "never"}, envArgs(env)...)
	p.must(t, append(append(run, args...), image)...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("logs of %s:\n%s", c.name, p.logs(c.name))
		}
	})
	return c
}

// waitReady waits until /readyz answers 200, for at most two minutes,
// and stops at once if the container has exited.
func (c *container) waitReady() error {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if status, _, err := get(c.api + "/readyz"); err == nil && status == http.StatusOK {
			return nil
		}
		if running, err := c.p.run(context.Background(), "inspect", "--format", "{{.State.Running}}", c.name); err != nil || running != "true" {
			return fmt.Errorf("%s is not running (%q, %v)", c.name, running, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s: /readyz did not answer 200 within two minutes", c.name)
}

// drain stops the container as a runtime does (STOPSIGNAL, then SIGKILL
// after the grace of drainDelay plus payd's shutdownGrace for requests in
// flight)
// and checks that /readyz answered 503 while it drained and that it
// exited 0, before the grace ran out.
func (c *container) drain() error {
	grace := int((drainDelay + shutdownGrace).Seconds())
	stopped := make(chan error, 1)
	go func() {
		_, err := c.p.run(context.Background(), "stop", "--time", fmt.Sprint(grace), c.name)
		stopped <- err
	}()
	sawDraining := false
	for !sawDraining {
		select {
		case err := <-stopped:
			if err != nil {
				return err
			}
			return fmt.Errorf("%s stopped without /readyz ever answering 503 while it drained", c.name)
		case <-time.After(50 * time.Millisecond):
		}
		status, body, err := get(c.api + "/readyz")
		sawDraining = err == nil && status == http.StatusServiceUnavailable && strings.Contains(body, "draining")
	}
	if err := <-stopped; err != nil {
		return err
	}
	code, err := c.p.run(context.Background(), "inspect", "--format", "{{.State.ExitCode}}", c.name)
	if err != nil {
		return err
	}
	if code != "0" {
		return fmt.Errorf("%s exited %s after SIGTERM, want 0 (137: killed when the grace of %d s ran out)", c.name, code, grace)
	}
	return nil
}

// volume is the name of the container's volume.
func (c *container) volume(t *testing.T) string {
	return c.p.must(t, "inspect", "--format", "{{range .Mounts}}{{.Name}}{{end}}", c.name)
}

// onboard creates a merchant, a ru shop and a test key through the
// operator API, as an operator does, and returns the shop and the key.
func (c *container) onboard(t *testing.T) (shop, key string) {
	t.Helper()
	var m, s struct{ ID string }
	c.operator(t, "/admin/v1/merchants", `{"name":"Image Test","legal_name":"Image Test LLC"}`, &m)
	c.operator(t, "/admin/v1/shops", `{"merchant_id":"`+m.ID+`","region":"ru","name":"Image Shop","default_currency":"RUB",`+
		`"settings":{"display_name":"Image Shop","statement_name":"IMAGE SHOP"}}`, &s)
	var k struct{ Secret string }
	c.operator(t, "/admin/v1/shops/"+s.ID+"/keys", `{"mode":"test"}`, &k)
	if s.ID == "" || k.Secret == "" {
		t.Fatalf("onboarding gave shop %q and a key of %d bytes", s.ID, len(k.Secret))
	}
	return s.ID, k.Secret
}

func (c *container) operator(t *testing.T, path, body string, into any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.admin+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "image-"+random(8))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, raw)
	}
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(into); err != nil {
		t.Fatalf("POST %s: %v in %s", path, err, raw)
	}
}

func get(url string) (int, string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", err
	}
	return resp.StatusCode, string(body), nil
}
