package framework

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// realNodePKI is what the real node adds to the control plane's keys: the apiserver's serving
// certificate also names the node address and the kubernetes Service's ClusterIP (Pods reach the
// apiserver through both), the kubelet serves with a certificate for the node address (so that
// kubectl logs can verify it), and the apiserver has a client certificate for the kubelet.
type realNodePKI struct {
	kubeletCertFile, kubeletKeyFile             string
	kubeletClientCertFile, kubeletClientKeyFile string
}

func writeRealNodePKI(dir string, p *pki) (*realNodePKI, error) {
	r := &realNodePKI{
		kubeletCertFile:       filepath.Join(dir, "kubelet.crt"),
		kubeletKeyFile:        filepath.Join(dir, "kubelet.key"),
		kubeletClientCertFile: filepath.Join(dir, "apiserver-kubelet-client.crt"),
		kubeletClientKeyFile:  filepath.Join(dir, "apiserver-kubelet-client.key"),
	}
	certs := []struct {
		certFile, keyFile string
		template          *x509.Certificate
	}{
		{p.servingCertFile, p.servingKeyFile, &x509.Certificate{
			Subject:     pkix.Name{CommonName: "kube-apiserver"},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP(RealNodeIP), net.ParseIP(kubernetesServiceIP)},
			DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
		}},
		{r.kubeletCertFile, r.kubeletKeyFile, &x509.Certificate{
			Subject:     pkix.Name{CommonName: RealNodeName},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			IPAddresses: []net.IP{net.ParseIP(RealNodeIP)},
			DNSNames:    []string{RealNodeName},
		}},
		// The kubelet authorizes everyone it authenticates; the group only documents intent.
		{r.kubeletClientCertFile, r.kubeletClientKeyFile, &x509.Certificate{
			Subject:     pkix.Name{CommonName: "kube-apiserver-kubelet-client", Organization: []string{"system:masters"}},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		}},
	}
	for i, c := range certs {
		if err := issueCertificate(p, int64(10+i), c.template, c.certFile, c.keyFile); err != nil {
			return nil, fmt.Errorf("issue %s: %w", filepath.Base(c.certFile), err)
		}
	}
	return r, nil
}

// issueCertificate signs template with the control plane's CA and writes the certificate and a
// fresh key.
func issueCertificate(p *pki, serial int64, template *x509.Certificate, certFile, keyFile string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	template.SerialNumber = big.NewInt(serial)
	template.NotBefore = now.Add(-time.Hour)
	template.NotAfter = now.Add(7 * 24 * time.Hour)
	template.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, template, p.caCert, &key.PublicKey, p.caKey)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600)
}
