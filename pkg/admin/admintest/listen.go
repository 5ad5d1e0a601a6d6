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
	"fmt"
	"math/big"
	mathrand "math/rand/v2"
	"net"
	"strconv"
	"time"
)

// Ports for cluster blocks are taken below Linux's default ephemeral range (32768-60999), so that
// outgoing connections do not race the simulator for them.
const (
	lowestPort       = 20000
	highestPort      = 32767
	testCertLifetime = 24 * time.Hour
)

// listenCluster reserves Options.PortsPerCluster consecutive loopback ports for c and serves
// one broker on each. Blocks are aligned to their size, so the server's own blocks never
// fragment the range; the search starts at a random block (other programs use ports too) and
// tries every block of the range before it gives up. Callers hold s.mu.
func (s *Server) listenCluster(c *Cluster) error {
	n := s.opts.PortsPerCluster
	if n == 0 || s.closed {
		return nil // a closed server serves nothing new
	}
	blocks := (highestPort - lowestPort + 1) / n
	if blocks == 0 {
		return fmt.Errorf("admintest: PortsPerCluster %d exceeds the %d ports available", n, highestPort-lowestPort+1)
	}
	first := mathrand.IntN(blocks)
	for i := range blocks {
		base := lowestPort + ((first+i)%blocks)*n
		lns, ok := listenBlock(base, n)
		if !ok {
			continue
		}
		c.adminPort = base
		for ordinal, ln := range lns {
			s.servers = append(s.servers, s.serveOn(ln, s.brokerHandler(c.Namespace, c.Name, ordinal), c.sec.TLS))
		}
		return nil
	}
	return fmt.Errorf("admintest: no %d consecutive free loopback ports between %d and %d for cluster %s/%s", n, lowestPort, highestPort, c.Namespace, c.Name)
}

// listenBlock listens on 127.0.0.1 ports base to base+n-1, all or none.
func listenBlock(base, n int) ([]net.Listener, bool) {
	lns := make([]net.Listener, 0, n)
	for port := base; port < base+n; port++ {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			for _, l := range lns {
				_ = l.Close()
			}
			return nil, false
		}
		lns = append(lns, ln)
	}
	return lns, true
}

// AdminPort is the first of the cluster's ports: the broker with ordinal O listens on
// AdminPort+O. Set it as the BrokerCluster's spec.adminAPI.port so that
// Server.BrokerAddressTemplate renders these ports.
func (c *Cluster) AdminPort() int { return c.adminPort }

// brokerURLLocked is the base URL of one broker: its own listener, or its path on the shared
// listener. Callers need not hold s.mu (the fields it reads never change).
func (c *Cluster) brokerURLLocked(ordinal int, prefixed bool) string {
	if prefixed || ordinal >= c.s.opts.PortsPerCluster {
		return c.s.BrokerURL(c.Namespace, c.Name, ordinal)
	}
	scheme := "http"
	if c.sec.TLS {
		scheme = "https"
	}
	return fmt.Sprintf("%s://127.0.0.1:%d", scheme, c.adminPort+ordinal)
}

// newTestTLS makes a CA and a server certificate for 127.0.0.1, ::1 and localhost signed by it.
func newTestTLS() (*tls.Config, []byte, error) {
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
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "admintest broker"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(testCertLifetime),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, err
	}
	if len(der) == 0 {
		return nil, nil, errors.New("admintest: empty certificate")
	}
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, caPEM, nil
}
