package admin

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// Defaults applied by NewClient to zero Config fields. DefaultTimeout outwaits Redpanda's own
// node_management_operation_timeout_ms (5 s, src/v/config/configuration.cc) plus forwarding to
// the controller leader; see the package doc.
const (
	DefaultTimeout      = 10 * time.Second
	DefaultMaxBodyBytes = 8 << 20
)

// Keys read by Config.SetSecretData: those of kubernetes.io/basic-auth and kubernetes.io/tls
// Secrets, plus ca.crt as cert-manager writes it.
const (
	SecretKeyUsername = "username"
	SecretKeyPassword = "password"
	SecretKeyCACert   = "ca.crt"
	SecretKeyTLSCert  = "tls.crt"
	SecretKeyTLSKey   = "tls.key"
)

// Config says how to reach one broker cluster's admin API.
type Config struct {
	// URLs are the base URLs of the brokers' admin APIs (scheme, host, port and an optional path
	// prefix). Requests go to the first that answers; see the package doc for when the next is tried.
	URLs []string
	// Timeout bounds each request to one broker. Zero means DefaultTimeout.
	Timeout time.Duration
	// Username and Password enable HTTP basic auth when Username is not empty.
	Username, Password string
	// CACertPEM, when set, replaces the system roots for verifying the brokers' certificates.
	CACertPEM []byte
	// ClientCertPEM and ClientKeyPEM, set together, present a client certificate (mTLS).
	ClientCertPEM, ClientKeyPEM []byte
	// ServerName overrides the host name checked against the brokers' certificates.
	ServerName string
	// MaxBodyBytes caps how much of a response body is read. Zero means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Transport, when set, is used as is (TLS fields are then ignored). Share one between clients
	// to share connections; by default plain-HTTP clients share a package transport and TLS
	// clients get their own.
	Transport http.RoundTripper
}

// SetSecretData fills credentials from a Secret's data (keys SecretKey*). Absent keys leave the
// corresponding fields unchanged.
func (c *Config) SetSecretData(data map[string][]byte) {
	if v, ok := data[SecretKeyUsername]; ok {
		c.Username = string(v)
	}
	if v, ok := data[SecretKeyPassword]; ok {
		c.Password = string(v)
	}
	if v, ok := data[SecretKeyCACert]; ok {
		c.CACertPEM = v
	}
	if v, ok := data[SecretKeyTLSCert]; ok {
		c.ClientCertPEM = v
	}
	if v, ok := data[SecretKeyTLSKey]; ok {
		c.ClientKeyPEM = v
	}
}

// validate checks the configuration and returns the parsed base URLs.
func (c *Config) validate() ([]*url.URL, error) {
	if len(c.URLs) == 0 {
		return nil, errors.New("admin: config has no URLs")
	}
	if c.Timeout < 0 {
		return nil, fmt.Errorf("admin: negative timeout %v", c.Timeout)
	}
	if c.MaxBodyBytes < 0 {
		return nil, fmt.Errorf("admin: negative MaxBodyBytes %d", c.MaxBodyBytes)
	}
	if c.Username == "" && c.Password != "" {
		return nil, errors.New("admin: password given without a username")
	}
	if (len(c.ClientCertPEM) == 0) != (len(c.ClientKeyPEM) == 0) {
		return nil, errors.New("admin: client certificate and key must be given together")
	}
	bases := make([]*url.URL, 0, len(c.URLs))
	for i, raw := range c.URLs {
		u, err := url.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("admin: URL %d %q: %w", i, raw, err)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return nil, fmt.Errorf("admin: URL %d %q: scheme must be http or https", i, raw)
		}
		if u.Host == "" {
			return nil, fmt.Errorf("admin: URL %d %q: no host", i, raw)
		}
		if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return nil, fmt.Errorf("admin: URL %d %q: must not carry a query, fragment or user info", i, raw)
		}
		bases = append(bases, u)
	}
	return bases, nil
}

// hasTLSMaterial reports whether the config asks for a customised TLS setup.
func (c *Config) hasTLSMaterial() bool {
	return len(c.CACertPEM) > 0 || len(c.ClientCertPEM) > 0 || c.ServerName != ""
}

// tlsConfig builds the TLS settings from the PEM data.
func (c *Config) tlsConfig() (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: c.ServerName}
	if len(c.CACertPEM) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(c.CACertPEM) {
			return nil, errors.New("admin: CA certificate: no PEM certificate found")
		}
		tc.RootCAs = pool
	}
	if len(c.ClientCertPEM) > 0 {
		pair, err := tls.X509KeyPair(c.ClientCertPEM, c.ClientKeyPEM)
		if err != nil {
			return nil, fmt.Errorf("admin: client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	return tc, nil
}
