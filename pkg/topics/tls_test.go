package topics

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// certificate makes a certificate for 127.0.0.1 signed by parent (self-signed when nil).
func certificate(t *testing.T, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, isCA bool) (*x509.Certificate, *ecdsa.PrivateKey, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "kafka"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  isCA,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		BasicConstraintsValid: true,
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// With spec.kafka.tls the operator trusts the listener Secret's ca.crt, and only it.
func TestTLSTrustsTheListenersCA(t *testing.T) {
	ca, caKey, caPEM := certificate(t, nil, nil, true)
	_, serverKey, serverPEM := certificate(t, ca, caKey, false)
	kc, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.TLS(&tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{mustDER(t, serverPEM)}, PrivateKey: serverKey}},
		MinVersion:   tls.VersionTLS12,
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	bc := &v1alpha1.BrokerCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "kafka", Namespace: "team"},
		Spec:       v1alpha1.BrokerClusterSpec{Kafka: &v1alpha1.KafkaSpec{TLS: &v1alpha1.ListenerTLS{SecretName: "kafka-tls"}}},
	}
	describe := func(caCert []byte) error {
		ctx := context.Background()
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "kafka-tls", Namespace: "team"}, Data: map[string][]byte{"ca.crt": caCert}}
		opts, err := securityOptions(ctx, kubefake.NewClientset(secret), bc)
		if err != nil {
			return err
		}
		k, err := NewKafka(append(opts, kgo.SeedBrokers(kc.ListenAddrs()...))...)
		if err != nil {
			return err
		}
		defer k.Close()
		_, err = k.Describe(ctx, "orders")
		return err
	}
	if err := describe(caPEM); err != nil {
		t.Fatalf("the listener's CA was not trusted: %v", err)
	}
	_, _, otherCA := certificate(t, nil, nil, true)
	if err := describe(otherCA); err == nil {
		t.Fatal("a certificate from another CA was trusted")
	}
}

func mustDER(t *testing.T, p []byte) []byte {
	t.Helper()
	b, _ := pem.Decode(p)
	if b == nil {
		t.Fatal("no PEM block")
	}
	return b.Bytes
}
