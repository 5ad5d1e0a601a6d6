package framework

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki holds the files the apiserver and its clients share: a CA and a serving certificate for
// 127.0.0.1, and the RSA key pair that signs and verifies ServiceAccount tokens.
type pki struct {
	caCertPEM       []byte
	caFile          string
	servingCertFile string
	servingKeyFile  string
	saPublicKeyFile string
	saSigningFile   string

	// The CA's own key and certificate sign further certificates (see realnode_pki.go).
	caKey  *ecdsa.PrivateKey
	caCert *x509.Certificate
}

func writePKI(dir string) (*pki, error) {
	p := &pki{
		caFile:          filepath.Join(dir, "ca.crt"),
		servingCertFile: filepath.Join(dir, "apiserver.crt"),
		servingKeyFile:  filepath.Join(dir, "apiserver.key"),
		saPublicKeyFile: filepath.Join(dir, "sa.pub"),
		saSigningFile:   filepath.Join(dir, "sa.key"),
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTemplate := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "broker-operator-local-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create CA certificate: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	p.caCertPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	p.caKey, p.caCert = caKey, caCert

	servingKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	servingTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(7 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
	}
	servingDER, err := x509.CreateCertificate(rand.Reader, servingTemplate, caCert, &servingKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create serving certificate: %w", err)
	}
	servingKeyDER, err := x509.MarshalPKCS8PrivateKey(servingKey)
	if err != nil {
		return nil, err
	}

	// The apiserver wants an RSA key for ServiceAccount tokens (RS256).
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	saPublicDER, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}

	files := []struct {
		path  string
		block *pem.Block
	}{
		{p.caFile, &pem.Block{Type: "CERTIFICATE", Bytes: caDER}},
		{p.servingCertFile, &pem.Block{Type: "CERTIFICATE", Bytes: servingDER}},
		{p.servingKeyFile, &pem.Block{Type: "PRIVATE KEY", Bytes: servingKeyDER}},
		{p.saPublicKeyFile, &pem.Block{Type: "PUBLIC KEY", Bytes: saPublicDER}},
		{p.saSigningFile, &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(saKey)}},
	}
	for _, f := range files {
		if err := os.WriteFile(f.path, pem.EncodeToMemory(f.block), 0o600); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// randomToken returns a fresh bearer token for the static tokens file.
func randomToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
