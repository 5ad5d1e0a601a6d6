package admintest_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// With Security.ClientCAPEM a broker refuses, at the TLS handshake, a client without a
// certificate from that CA, as Redpanda does with admin_api_tls require_client_auth: true
// (src/v/config/tls_config.cc): no request is read, so none is logged.
func TestRequiredClientCertificateIsCheckedAtTheHandshake(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	caPEM, certPEM, keyPEM := newClientPKI(t)
	_, otherCertPEM, otherKeyPEM := newClientPKI(t)
	selfSignedCert, selfSignedKey := selfSignedClientCert(t)
	c, err := s.NewCluster("ns", "mtls", admintest.Security{TLS: true, ClientCAPEM: caPEM, Username: "admin", Password: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	ids := joinAll(c, 2)
	call := func(cert, key []byte) error {
		cfg := c.Config(2)
		cfg.Timeout = 5 * time.Second
		cfg.ClientCertPEM, cfg.ClientKeyPEM = cert, key
		cl, err := admin.NewClient(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = cl.Broker(context.Background(), ids[0])
		return err
	}
	for _, tc := range []struct {
		name      string
		cert, key []byte
	}{
		{"no client certificate", nil, nil},
		{"a certificate from another CA", otherCertPEM, otherKeyPEM},
		{"a self-signed certificate", selfSignedCert, selfSignedKey},
	} {
		if err := call(tc.cert, tc.key); !errors.Is(err, admin.ErrTLS) || !strings.Contains(err.Error(), "certificate") {
			t.Errorf("%s: %v, want ErrTLS: the handshake refused for the certificate", tc.name, err)
		}
	}
	if calls := c.Calls(); len(calls) != 0 {
		t.Errorf("refused handshakes reached the API: %v", calls)
	}
	if err := call(certPEM, keyPEM); err != nil {
		t.Fatalf("with the client certificate: %v", err)
	}
	if calls := c.Calls(); len(calls) != 1 || calls[0].Status != 200 || calls[0].User != "admin" {
		t.Errorf("calls %v, want the one call answered", calls)
	}

	// A trust store may hold the client's own self-signed certificate, as a user who makes one
	// with cert-manager's self-signed issuer would configure it.
	self, err := s.NewCluster("ns", "self", admintest.Security{TLS: true, ClientCAPEM: selfSignedCert})
	if err != nil {
		t.Fatal(err)
	}
	joinAll(self, 1)
	cfg := self.Config(1)
	cfg.ClientCertPEM, cfg.ClientKeyPEM = selfSignedCert, selfSignedKey
	cl, err := admin.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Brokers(context.Background()); err != nil {
		t.Errorf("self-signed certificate in the trust store: %v", err)
	}
}

func TestClientCertificatesNeedTLSAndACA(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	caPEM, _, _ := newClientPKI(t)
	for name, sec := range map[string]admintest.Security{
		"without TLS":     {ClientCAPEM: caPEM},
		"with no PEM":     {TLS: true, ClientCAPEM: []byte("not a certificate")},
		"a lone password": {Password: "pw"},
	} {
		if _, err := s.NewCluster("ns", strings.ReplaceAll(name, " ", "-"), sec); err == nil {
			t.Errorf("NewCluster %s succeeded", name)
		}
	}
}

// newClientPKI makes a CA and a client certificate it signed, with the certificate's key.
func newClientPKI(t *testing.T) (caPEM, certPEM, keyPEM []byte) {
	t.Helper()
	caKey := newKey(t)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "client CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER := createCert(t, caTmpl, caTmpl, caKey, caKey)
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key := newKey(t)
	der := createCert(t, clientTemplate(), ca, key, caKey)
	return pemBlock("CERTIFICATE", caDER), pemBlock("CERTIFICATE", der), keyPEMOf(t, key)
}

// selfSignedClientCert makes a client certificate that signs itself.
func selfSignedClientCert(t *testing.T) (certPEM, keyPEM []byte) {
	t.Helper()
	key := newKey(t)
	tmpl := clientTemplate()
	return pemBlock("CERTIFICATE", createCert(t, tmpl, tmpl, key, key)), keyPEMOf(t, key)
}

func clientTemplate() *x509.Certificate {
	return &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "operator"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func createCert(t *testing.T, tmpl, parent *x509.Certificate, key, signer *ecdsa.PrivateKey) []byte {
	t.Helper()
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func keyPEMOf(t *testing.T, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pemBlock("PRIVATE KEY", der)
}

func pemBlock(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}
