package main

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
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

// expiryGauge reports when the certificate in service expires, so that a
// renewal that never came is alerted on before clients refuse the
// handshake (docs/alerts.md). It is the certificate served now: a renewed
// pair shows from the first handshake that loads it.
func (c *certFiles) expiryGauge() prometheus.GaugeFunc {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "payd_tls_certificate_expiry_timestamp_seconds",
		Help: "When the TLS certificate payd serves expires, in Unix seconds (only with --tls-cert).",
	}, func() float64 {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.current == nil || c.current.Leaf == nil {
			return 0
		}
		return float64(c.current.Leaf.NotAfter.Unix())
	})
}
