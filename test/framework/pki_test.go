package framework

import (
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

func TestServingCertificateIsTrustedForLoopback(t *testing.T) {
	p, err := writePKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(p.servingCertFile, p.servingKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(p.caCertPEM) {
		t.Fatal("CA PEM does not parse")
	}
	for _, host := range []string{"127.0.0.1", "localhost"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: host}); err != nil {
			t.Errorf("serving certificate not valid for %s: %v", host, err)
		}
	}
}

func TestServiceAccountKeysMatch(t *testing.T) {
	p, err := writePKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	private := readPEM(t, p.saSigningFile)
	key, err := x509.ParsePKCS1PrivateKey(private.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.ParsePKIXPublicKey(readPEM(t, p.saPublicKeyFile).Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !key.PublicKey.Equal(pub.(*rsa.PublicKey)) {
		t.Error("sa.pub is not the public half of sa.key")
	}
}

func readPEM(t *testing.T, path string) *pem.Block {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatalf("%s holds no PEM block", path)
	}
	return block
}

func TestKubeconfigRoundTrips(t *testing.T) {
	path := t.TempDir() + "/kubeconfig"
	if err := writeKubeconfig(path, "https://127.0.0.1:6443", []byte("ca"), "admin", "secret"); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://127.0.0.1:6443" || cfg.BearerToken != "secret" || string(cfg.CAData) != "ca" {
		t.Errorf("loaded host %q token %q CA %q", cfg.Host, cfg.BearerToken, cfg.CAData)
	}
}
