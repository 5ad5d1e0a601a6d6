package brokerenv

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// CertificateGVR is cert-manager's Certificate, as certmanager-crds.yaml serves it.
var CertificateGVR = schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates"}

// CertIssuer stands in for cert-manager's controller in one namespace: it issues every
// Certificate there from a CA it holds, writing the Secret the Certificate names (tls.crt,
// tls.key, ca.crt, as cert-manager writes a kubernetes.io/tls Secret) for its dnsNames and
// ipAddresses, again whenever they change, and once more on Renew. It ignores the issuerRef:
// the test holds the only CA.
type CertIssuer struct {
	kube      kubernetes.Interface
	namespace string
	lifetime  time.Duration
	ca        *x509.Certificate
	caKey     *ecdsa.PrivateKey
	caPEM     []byte
	stop      context.CancelFunc

	mu     sync.Mutex
	issued map[string]*x509.Certificate // by Certificate name
	specs  map[string]certSpec          // by Certificate name, as last seen
	errs   []error
}

// certSpec is what of a Certificate's spec the issuer reads.
type certSpec struct {
	secretName    string
	dnsNames, ips []string
}

// StartCertIssuer makes a CA and starts issuing the Certificates of namespace, each valid for
// lifetime, until Stop.
func StartCertIssuer(kube kubernetes.Interface, dyn dynamic.Interface, namespace string, lifetime time.Duration) (*CertIssuer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "test CA " + namespace},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(10 * 365 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	i := &CertIssuer{kube: kube, namespace: namespace, lifetime: lifetime, ca: ca, caKey: key,
		caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), stop: cancel,
		issued: map[string]*x509.Certificate{}, specs: map[string]certSpec{}}
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, namespace, nil)
	informer := factory.ForResource(CertificateGVR).Informer()
	handle := func(obj any) {
		if u, ok := obj.(*unstructured.Unstructured); ok {
			i.record(i.issueChanged(ctx, u))
		}
	}
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: handle, UpdateFunc: func(_, cur any) { handle(cur) }}); err != nil {
		cancel()
		return nil, err
	}
	factory.Start(ctx.Done())
	return i, nil
}

// Stop stops issuing; it returns the first error an issue met, if any.
func (i *CertIssuer) Stop() error {
	i.stop()
	i.mu.Lock()
	defer i.mu.Unlock()
	if len(i.errs) > 0 {
		return i.errs[0]
	}
	return nil
}

// CA is the PEM of the CA that signs every certificate.
func (i *CertIssuer) CA() []byte { return i.caPEM }

// Issued is the certificate last issued for Certificate name, nil if none was.
func (i *CertIssuer) Issued(name string) *x509.Certificate {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.issued[name]
}

// Renew issues Certificate name again, as cert-manager does before expiry: a new key, a new
// serial, and a NotAfter later than the last one's. It returns the new certificate.
func (i *CertIssuer) Renew(ctx context.Context, name string) (*x509.Certificate, error) {
	i.mu.Lock()
	spec, ok := i.specs[name]
	i.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no certificate was issued for %s/%s", i.namespace, name)
	}
	return i.issue(ctx, name, spec)
}

// issueChanged issues a Certificate first seen or whose names or Secret changed.
func (i *CertIssuer) issueChanged(ctx context.Context, u *unstructured.Unstructured) error {
	spec := certSpec{}
	spec.secretName, _, _ = unstructured.NestedString(u.Object, "spec", "secretName")
	spec.dnsNames, _, _ = unstructured.NestedStringSlice(u.Object, "spec", "dnsNames")
	spec.ips, _, _ = unstructured.NestedStringSlice(u.Object, "spec", "ipAddresses")
	i.mu.Lock()
	last, seen := i.specs[u.GetName()]
	i.mu.Unlock()
	if seen && last.secretName == spec.secretName && slices.Equal(last.dnsNames, spec.dnsNames) && slices.Equal(last.ips, spec.ips) {
		return nil
	}
	_, err := i.issue(ctx, u.GetName(), spec)
	return err
}

// issue signs a certificate for spec and writes its Secret.
func (i *CertIssuer) issue(ctx context.Context, name string, spec certSpec) (*x509.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	i.mu.Lock()
	notAfter := time.Now().Add(i.lifetime).Truncate(time.Second)
	if prev := i.issued[name]; prev != nil && !notAfter.After(prev.NotAfter) {
		notAfter = prev.NotAfter.Add(time.Second)
	}
	i.mu.Unlock()
	tmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: name}, DNSNames: spec.dnsNames,
		NotBefore: time.Now().Add(-time.Minute), NotAfter: notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	for _, ip := range spec.ips {
		tmpl.IPAddresses = append(tmpl.IPAddresses, net.ParseIP(ip))
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, i.ca, &key.PublicKey, i.caKey)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: spec.secretName, Namespace: i.namespace},
		Type:       corev1.SecretTypeTLS,
		Data: map[string][]byte{
			corev1.TLSCertKey:       pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			corev1.TLSPrivateKeyKey: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
			"ca.crt":                i.caPEM,
		},
	}
	secrets := i.kube.CoreV1().Secrets(i.namespace)
	if _, err := secrets.Create(ctx, secret, metav1.CreateOptions{}); apierrors.IsAlreadyExists(err) {
		_, err = secrets.Update(ctx, secret, metav1.UpdateOptions{})
		if err != nil {
			return nil, fmt.Errorf("update Secret %s: %w", spec.secretName, err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("create Secret %s: %w", spec.secretName, err)
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	i.issued[name], i.specs[name] = cert, spec
	return cert, nil
}

func (i *CertIssuer) record(err error) {
	if err == nil || strings.Contains(err.Error(), "context canceled") {
		return
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	i.errs = append(i.errs, err)
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126))
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return n
}
