package main

import (
	"crypto/tls"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"
)

// TestCertFiles: the pair is looked at again only once certCheckEvery has
// passed; a changed pair that does not load leaves the certificate in
// service, and the next good one replaces it. The clock is the test's, so
// every look happens when the test says.
func TestCertFiles(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := writeSelfSignedSerial(t, dir, 1)
	c, err := loadCertFiles(certFile, keyFile, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	c.now = func() time.Time { return now }
	c.checked = now
	serial := func() int64 {
		t.Helper()
		cert, err := c.GetCertificate(&tls.ClientHelloInfo{})
		if err != nil {
			t.Fatal(err)
		}
		leaf := cert.Leaf
		if leaf == nil {
			t.Fatal("the certificate has no parsed leaf")
		}
		return leaf.SerialNumber.Int64()
	}
	if n := serial(); n != 1 {
		t.Fatalf("serial %d, want 1", n)
	}
	writeSelfSignedSerial(t, dir, 2)
	if n := serial(); n != 1 {
		t.Fatalf("serial %d before certCheckEvery passed, want 1 still", n)
	}
	if err := os.WriteFile(certFile, []byte("renewal in progress"), 0o600); err != nil {
		t.Fatal(err)
	}
	now = now.Add(certCheckEvery)
	if n := serial(); n != 1 {
		t.Fatalf("serial %d after a broken renewal, want 1", n)
	}
	writeSelfSignedSerial(t, dir, 3)
	now = now.Add(certCheckEvery)
	if n := serial(); n != 3 {
		t.Fatalf("serial %d after the renewal was mended, want 3", n)
	}
}
