package admintest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"slices"
	"time"
)

const testCertLifetime = 24 * time.Hour

// check refuses a Security that Redpanda would not start with: a password without a user, or
// client authentication without TLS or a trust store (tls_config.cc, tls_config::validate:
// "Trust store or P12 file is required when client authentication is enabled").
func (sec Security) check() error {
	if sec.Username == "" && sec.Password != "" {
		return errors.New("admintest: password given without a username")
	}
	if len(sec.ClientCAPEM) == 0 {
		return nil
	}
	if !sec.TLS {
		return errors.New("admintest: ClientCAPEM needs TLS: client certificates are part of the TLS handshake")
	}
	if !x509.NewCertPool().AppendCertsFromPEM(sec.ClientCAPEM) {
		return errors.New("admintest: ClientCAPEM holds no PEM certificate")
	}
	return nil
}

// listenerTLS is the TLS configuration of c's listeners, nil when they serve plain HTTP. With
// Security.ClientCAPEM the handshake requires a client certificate that chains to it, as seastar
// does for client_auth::REQUIRE. Callers hold s.mu.
func (s *Server) listenerTLS(c *Cluster) *tls.Config {
	if !c.sec.TLS {
		return nil
	}
	if len(c.sec.ClientCAPEM) == 0 {
		return s.tls
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(c.sec.ClientCAPEM) // checked by Security.check
	cfg := s.tls.Clone()
	cfg.ClientCAs = pool
	cfg.ClientAuth = tls.RequireAndVerifyClientCert
	return cfg
}

// newTestTLS makes a CA and a server certificate signed by it for 127.0.0.1, ::1, localhost
// and host.
func newTestTLS(host net.IP) (*tls.Config, []byte, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "admintest CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(testCertLifetime),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	ips := []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	if !slices.ContainsFunc(ips, host.Equal) {
		ips = append(ips, host)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "admintest broker"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(testCertLifetime),
		DNSNames: []string{"localhost"}, IPAddresses: ips,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, err
	}
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, caPEM, nil
}
