package admin

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestNewClientRejectsBadConfig(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no URLs", Config{}, "no URLs"},
		{"bad scheme", Config{URLs: []string{"ftp://x"}}, "scheme must be http or https"},
		{"no host", Config{URLs: []string{"http://"}}, "no host"},
		{"unparsable", Config{URLs: []string{"http://[::1"}}, "URL 0"},
		{"query", Config{URLs: []string{"http://x/?a=b"}}, "query"},
		{"user info", Config{URLs: []string{"http://u:p@x"}}, "user info"},
		{"negative timeout", Config{URLs: []string{"http://x"}, Timeout: -1}, "negative timeout"},
		{"negative body cap", Config{URLs: []string{"http://x"}, MaxBodyBytes: -1}, "negative MaxBodyBytes"},
		{"password alone", Config{URLs: []string{"http://x"}, Password: "p"}, "password given without a username"},
		{"cert without key", Config{URLs: []string{"https://x"}, ClientCertPEM: []byte("x")}, "together"},
		{"garbage CA", Config{URLs: []string{"https://x"}, CACertPEM: []byte("not pem")}, "no PEM certificate"},
		{"garbage client pair", Config{URLs: []string{"https://x"}, ClientCertPEM: []byte("a"), ClientKeyPEM: []byte("b")}, "client certificate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewClient(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestSetSecretDataReadsTheStandardKeys(t *testing.T) {
	cfg := Config{Username: "keep-me", CACertPEM: []byte("old")}
	cfg.SetSecretData(map[string][]byte{
		"password": []byte("pw"), "ca.crt": []byte("ca"), "tls.crt": []byte("crt"), "tls.key": []byte("key"),
	})
	if cfg.Username != "keep-me" || cfg.Password != "pw" || string(cfg.CACertPEM) != "ca" ||
		string(cfg.ClientCertPEM) != "crt" || string(cfg.ClientKeyPEM) != "key" {
		t.Errorf("config after SetSecretData = %+v", cfg)
	}
	cfg.SetSecretData(map[string][]byte{"username": []byte("admin")})
	if cfg.Username != "admin" {
		t.Errorf("username = %q", cfg.Username)
	}
}

// testPKI is a CA with a server certificate for 127.0.0.1 and a client certificate.
type testPKI struct {
	caPEM                       []byte
	serverCert                  tls.Certificate
	clientCertPEM, clientKeyPEM []byte
	pool                        *x509.CertPool
}

func newTestPKI(t *testing.T) testPKI {
	t.Helper()
	caKey := mustKey(t)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	issue := func(serial int64, usage x509.ExtKeyUsage, ip net.IP) ([]byte, []byte) {
		key := mustKey(t)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "leaf"},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		}
		if ip != nil {
			tmpl.IPAddresses = []net.IP{ip}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, _ := x509.MarshalECPrivateKey(key)
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	}
	srvCert, srvKey := issue(2, x509.ExtKeyUsageServerAuth, net.ParseIP("127.0.0.1"))
	pair, err := tls.X509KeyPair(srvCert, srvKey)
	if err != nil {
		t.Fatal(err)
	}
	cliCert, cliKey := issue(3, x509.ExtKeyUsageClientAuth, nil)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return testPKI{
		caPEM:      pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		serverCert: pair, clientCertPEM: cliCert, clientKeyPEM: cliKey, pool: pool,
	}
}

func mustKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestMutualTLSWithSecretData(t *testing.T) {
	pki := newTestPKI(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`[]`))
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes below are expected
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pki.serverCert}, ClientCAs: pki.pool, ClientAuth: tls.RequireAndVerifyClientCert}
	srv.StartTLS()
	t.Cleanup(srv.Close)

	withCert := Config{URLs: []string{srv.URL}, Timeout: 5 * time.Second}
	withCert.SetSecretData(map[string][]byte{"ca.crt": pki.caPEM, "tls.crt": pki.clientCertPEM, "tls.key": pki.clientKeyPEM})
	if _, err := mustClient(t, withCert).Brokers(context.Background()); err != nil {
		t.Fatalf("with CA and client certificate: %v", err)
	}

	caOnly := Config{URLs: []string{srv.URL}, CACertPEM: pki.caPEM, Timeout: 5 * time.Second}
	// A refused certificate is a setting to fix, not an outage: ErrTLS, not ErrUnavailable.
	if _, err := mustClient(t, caOnly).Brokers(context.Background()); !errors.Is(err, ErrTLS) || errors.Is(err, ErrUnavailable) {
		t.Errorf("without client certificate: err = %v, want ErrTLS", err)
	}
	configClient, err := NewClusterConfigClient(caOnly)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := configClient.ClusterConfigStatus(context.Background()); !errors.Is(err, ErrTLS) || errors.Is(err, ErrUnavailable) {
		t.Errorf("cluster config call without client certificate: err = %v, want ErrTLS", err)
	}

	systemRoots := Config{URLs: []string{srv.URL}, ClientCertPEM: pki.clientCertPEM, ClientKeyPEM: pki.clientKeyPEM, Timeout: 5 * time.Second}
	_, err = mustClient(t, systemRoots).Brokers(context.Background())
	if !errors.Is(err, ErrTLS) || errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the CA: err = %v, want ErrTLS for a certificate verification failure", err)
	}
}
