package evictionwebhook

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writePair writes a self-signed certificate named cn and its key into dir, with the files'
// modification time set to at.
func writePair(t *testing.T, dir, cn string, at time.Time) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	for file, block := range map[string]*pem.Block{"tls.crt": {Type: "CERTIFICATE", Bytes: der}, "tls.key": {Type: "EC PRIVATE KEY", Bytes: keyDER}} {
		path := filepath.Join(dir, file)
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
}

func servedName(t *testing.T, tc *tls.Config) string {
	t.Helper()
	cert, err := tc.GetCertificate(&tls.ClientHelloInfo{})
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return leaf.Subject.CommonName
}

// A renewed certificate is served without a restart; a half-written renewal keeps the last pair.
func TestARenewedCertificateIsServed(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	writePair(t, dir, "first", start)
	tc, err := ServingTLS(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := servedName(t, tc); got != "first" {
		t.Fatalf("serves %q, want first", got)
	}
	writePair(t, dir, "renewed", start.Add(time.Hour))
	if got := servedName(t, tc); got != "renewed" {
		t.Errorf("after renewal serves %q, want renewed", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.key"), []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := servedName(t, tc); got != "renewed" {
		t.Errorf("with a half-written key serves %q, want the last good pair", got)
	}
}

func TestMissingCertificateIsAClearError(t *testing.T) {
	if _, err := ServingTLS(t.TempDir()); err == nil {
		t.Fatal("no error for a directory without tls.crt")
	}
}
