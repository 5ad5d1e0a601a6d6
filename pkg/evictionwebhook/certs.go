package evictionwebhook

import (
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// ServingTLS returns the webhook server's TLS configuration, with the certificate and key read
// from dir/tls.crt and dir/tls.key (the keys of a kubernetes.io/tls Secret mounted there). They
// are read again when either file changes, so that a renewed certificate (cert-manager's, say)
// is served without a restart.
func ServingTLS(dir string) (*tls.Config, error) {
	c := &reloadingCert{certFile: filepath.Join(dir, "tls.crt"), keyFile: filepath.Join(dir, "tls.key")}
	if _, err := c.get(); err != nil {
		return nil, err
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return c.get() }}, nil
}

// reloadingCert holds the last certificate read and the files' modification times it was
// read at.
type reloadingCert struct {
	certFile, keyFile string

	mu                sync.Mutex
	cert              *tls.Certificate
	certTime, keyTime time.Time
}

func (c *reloadingCert) get() (*tls.Certificate, error) {
	certInfo, err := os.Stat(c.certFile)
	if err != nil {
		return nil, fmt.Errorf("eviction webhook certificate: %w", err)
	}
	keyInfo, err := os.Stat(c.keyFile)
	if err != nil {
		return nil, fmt.Errorf("eviction webhook key: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cert != nil && certInfo.ModTime().Equal(c.certTime) && keyInfo.ModTime().Equal(c.keyTime) {
		return c.cert, nil
	}
	cert, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		if c.cert != nil {
			return c.cert, nil // half-written files during a renewal: keep serving the last pair
		}
		return nil, fmt.Errorf("eviction webhook certificate and key in %s: %w", filepath.Dir(c.certFile), err)
	}
	c.cert, c.certTime, c.keyTime = &cert, certInfo.ModTime(), keyInfo.ModTime()
	return c.cert, nil
}
