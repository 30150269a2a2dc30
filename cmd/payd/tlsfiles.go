package main

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// certFiles serves the certificate of a pair of PEM files and reads them
// again when they change, so that a renewed certificate (certbot,
// cert-manager, an operator's copy) is served from the next handshake
// without a restart. The files are looked at at most once per
// certCheckEvery; a pair that does not load (a renewal written half, a
// key that does not match) leaves the certificate in service and is
// tried again, with a warning.
type certFiles struct {
	certPath, keyPath string
	log               *slog.Logger
	now               func() time.Time

	mu      sync.Mutex
	current *tls.Certificate
	stamp   string
	checked time.Time
}

const certCheckEvery = time.Second

// loadCertFiles reads the pair once; a service does not start without it.
func loadCertFiles(certPath, keyPath string, log *slog.Logger) (*certFiles, error) {
	c := &certFiles{certPath: certPath, keyPath: keyPath, log: log, now: time.Now}
	stamp, err := c.fileStamp()
	if err != nil {
		return nil, err
	}
	cert, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		return nil, fmt.Errorf("TLS certificate: %w", err)
	}
	c.current, c.stamp, c.checked = &cert, stamp, c.now()
	return c, nil
}

// fileStamp is what tells a changed file: both files' sizes and times.
func (c *certFiles) fileStamp() (string, error) {
	var stamp string
	for _, p := range []string{c.certPath, c.keyPath} {
		fi, err := os.Stat(p)
		if err != nil {
			return "", fmt.Errorf("TLS certificate: %w", err)
		}
		stamp += fmt.Sprintf("%d.%d;", fi.Size(), fi.ModTime().UnixNano())
	}
	return stamp, nil
}

// GetCertificate is tls.Config's: the pair as it is on disk now.
func (c *certFiles) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now := c.now(); now.Sub(c.checked) >= certCheckEvery {
		c.checked = now
		if stamp, err := c.fileStamp(); err == nil && stamp != c.stamp {
			cert, err := tls.LoadX509KeyPair(c.certPath, c.keyPath)
			if err != nil {
				c.log.Warn("TLS certificate files changed but do not load; serving the previous certificate", "cert", c.certPath, "error", err)
			} else {
				c.current, c.stamp = &cert, stamp
				c.log.Info("TLS certificate reloaded", "cert", c.certPath)
			}
		}
	}
	return c.current, nil
}
