package controller

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
)

const (
	internalCert = testName + "-kafka-internal-tls"
	externalCert = testName + "-kafka-external-tls"
)

// issuerCluster has both Kafka listeners signed by cert-manager issuers: the internal one by a
// ClusterIssuer with client certificates required, the external one (LoadBalancer, with a
// host template) by an Issuer.
func issuerCluster(replicas int32) *v1alpha1.BrokerCluster {
	bc := newBrokerCluster(replicas)
	bc.Spec.Kafka = &v1alpha1.KafkaSpec{
		TLS: &v1alpha1.ListenerTLS{IssuerRef: &v1alpha1.IssuerReference{Name: "internal-ca", Kind: "ClusterIssuer"}, RequireClientAuth: true},
		External: &v1alpha1.ExternalListener{
			Type:         v1alpha1.ExternalLoadBalancer,
			LoadBalancer: &v1alpha1.LoadBalancerListener{HostTemplate: "broker-{ordinal}.kafka.example.com"},
			TLS:          &v1alpha1.ListenerTLS{IssuerRef: &v1alpha1.IssuerReference{Name: "public", Kind: "Issuer"}},
		},
	}
	return bc
}

// certificate is the Certificate name as the fake dynamic client holds it, nil if absent.
func (h *harness) certificate(name string) *unstructured.Unstructured {
	h.t.Helper()
	obj, err := h.dynamic.Resource(objects.CertificateGVR).Namespace(testNamespace).Get(h.ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return obj
}

// issue writes the Secret of Certificate name as cert-manager would: a certificate for its
// dnsNames valid until notAfter.
func (h *harness) issue(name string, notAfter time.Time) {
	h.t.Helper()
	cert := h.certificate(name)
	if cert == nil {
		h.t.Fatalf("no Certificate %s to issue", name)
	}
	dnsNames, _, _ := unstructured.NestedStringSlice(cert.Object, "spec", "dnsNames")
	secretName, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: secretName, Namespace: testNamespace},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: selfSigned(h.t, dnsNames, notAfter), corev1.TLSPrivateKeyKey: []byte("key"), "ca.crt": []byte("ca")},
	}
	gvr := corev1.SchemeGroupVersion.WithResource("secrets")
	if _, err := h.kubeTrack.Get(gvr, testNamespace, secretName); err == nil {
		if err := h.kubeTrack.Update(gvr, secret, testNamespace); err != nil {
			h.t.Fatal(err)
		}
		return
	}
	if err := h.kubeTrack.Add(secret); err != nil {
		h.t.Fatal(err)
	}
}

// issueOnCreate makes the fake dynamic client write each Certificate's Secret as it is created,
// as cert-manager would soon after, valid until notAfter.
func (h *harness) issueOnCreate(notAfter time.Time) {
	h.dynamic.PrependReactor("create", "certificates", func(a k8stesting.Action) (bool, runtime.Object, error) {
		cert := a.(k8stesting.CreateAction).GetObject().(*unstructured.Unstructured)
		dnsNames, _, _ := unstructured.NestedStringSlice(cert.Object, "spec", "dnsNames")
		secretName, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: secretName, Namespace: cert.GetNamespace()},
			Type:       corev1.SecretTypeTLS,
			Data:       map[string][]byte{corev1.TLSCertKey: selfSigned(h.t, dnsNames, notAfter)},
		}
		if err := h.kubeTrack.Add(secret); err != nil {
			h.t.Error(err)
		}
		return false, nil, nil
	})
}

// selfSigned is a PEM certificate for dnsNames that expires at notAfter.
func selfSigned(t *testing.T, dnsNames []string, notAfter time.Time) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: "broker"}, DNSNames: dnsNames,
		NotBefore: notAfter.Add(-90 * 24 * time.Hour), NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// expiry is the certificate expiry gauge of a listener's Secret, -1 when it has no series.
func (h *harness) expiry(listener, secret string) float64 {
	h.t.Helper()
	m := h.seriesWith("broker_operator_certificate_expiry_timestamp_seconds",
		map[string]string{"namespace": testNamespace, "name": testName, "listener": listener, "secret": secret})
	if m == nil {
		return -1
	}
	return m.GetGauge().GetValue()
}

func (h *harness) certificatesCondition() *metav1.Condition {
	return meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionCertificatesReady)
}

// A listener with an issuerRef gets a Certificate for the pods' and the advertised hosts'
// names from the issuer it names; the cluster waits, making nothing else, until cert-manager
// has written the Secret, then comes up mounting it.
func TestIssuerRefMakesACertificateAndTheClusterWaitsForItsSecret(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.create(issuerCluster(3))
	for range 3 {
		res, err := h.reconcile()
		if err != nil {
			t.Fatal(err)
		}
		if res.RequeueAfter != pollInterval {
			t.Fatalf("a wait for a certificate requeues after %v, want the poll interval %v", res.RequeueAfter, pollInterval)
		}
	}
	if h.statefulSet() != nil || len(h.externalServices()) != 0 {
		t.Fatal("objects were made before the certificates' Secrets exist")
	}
	cond := h.certificatesCondition()
	if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != ReasonCertificateNotIssued || !strings.Contains(cond.Message, internalCert) {
		t.Fatalf("CertificatesReady = %+v, want False %s naming %s", cond, ReasonCertificateNotIssued, internalCert)
	}
	if n, all := h.countEvents("Normal "+ReasonCertificateNotIssued, internalCert); n != 1 {
		t.Fatalf("%d events for the wait, want 1: %q", n, all)
	}

	internal := h.certificate(internalCert)
	wantNames := []string{
		"redpanda.team-a.svc.cluster.local", "*.redpanda.team-a.svc.cluster.local",
		"redpanda.team-a.svc", "*.redpanda.team-a.svc", "redpanda.team-a", "*.redpanda.team-a",
	}
	checkCertificate(t, internal, wantNames, "internal-ca", "ClusterIssuer", "client auth")
	if !objects.OwnedBy(internal, h.stored()) {
		t.Errorf("Certificate %s is not controlled by the BrokerCluster", internalCert)
	}
	external := h.certificate(externalCert)
	checkCertificate(t, external, append(slices.Clone(wantNames), "broker-0.kafka.example.com", "broker-1.kafka.example.com", "broker-2.kafka.example.com"), "public", "Issuer", "")

	notAfter := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	h.issue(internalCert, notAfter)
	h.issue(externalCert, notAfter.Add(time.Hour))
	h.settle(10)
	if cond := h.certificatesCondition(); cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != ReasonCertificatesIssued {
		t.Fatalf("CertificatesReady = %+v once issued", cond)
	}
	volumes := map[string]string{}
	for _, v := range h.statefulSet().Spec.Template.Spec.Volumes {
		if v.Secret != nil {
			volumes[v.Name] = v.Secret.SecretName
		}
	}
	if volumes["kafka-tls-internal"] != internalCert || volumes["kafka-tls-external"] != externalCert {
		t.Errorf("the pods mount %v, want the Certificates' Secrets", volumes)
	}
	if got := h.expiry("kafka-internal", internalCert); got != float64(notAfter.Unix()) {
		t.Errorf("internal expiry %v, want %d", got, notAfter.Unix())
	}
	if got := h.expiry("kafka-external", externalCert); got != float64(notAfter.Add(time.Hour).Unix()) {
		t.Errorf("external expiry %v, want %d", got, notAfter.Add(time.Hour).Unix())
	}
	res, err := h.reconcile()
	if err != nil || res.RequeueAfter != DefaultCertificateCheckInterval {
		t.Fatalf("a steady cluster with TLS listeners requeues after %v (%v), want %v", res.RequeueAfter, err, DefaultCertificateCheckInterval)
	}
}

func checkCertificate(t *testing.T, cert *unstructured.Unstructured, dnsNames []string, issuer, kind, extraUsage string) {
	t.Helper()
	if cert == nil {
		t.Fatal("no Certificate")
	}
	got, _, _ := unstructured.NestedStringSlice(cert.Object, "spec", "dnsNames")
	if !slices.Equal(got, dnsNames) {
		t.Errorf("%s dnsNames\n%q, want\n%q", cert.GetName(), got, dnsNames)
	}
	if s, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName"); s != cert.GetName() {
		t.Errorf("%s secretName %q, want its own name", cert.GetName(), s)
	}
	ref, _, _ := unstructured.NestedStringMap(cert.Object, "spec", "issuerRef")
	if ref["name"] != issuer || ref["kind"] != kind || ref["group"] != "cert-manager.io" {
		t.Errorf("%s issuerRef %v, want %s %s of cert-manager.io", cert.GetName(), ref, kind, issuer)
	}
	usages, _, _ := unstructured.NestedStringSlice(cert.Object, "spec", "usages")
	want := []string{"digital signature", "key encipherment", "server auth"}
	if extraUsage != "" {
		want = append(want, extraUsage)
	}
	if !slices.Equal(usages, want) {
		t.Errorf("%s usages %q, want %q", cert.GetName(), usages, want)
	}
}

// A renewed certificate restarts nothing: the template names the Secret, not its content, and
// Redpanda reloads the files. The expiry metric follows the renewal; a scale-up adds the new
// broker's advertised host to the external Certificate; a deleted cluster loses its series.
func TestRenewalRestartsNoBrokerAndTheMetricFollowsIt(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.create(issuerCluster(3))
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	first := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	h.issue(internalCert, first)
	h.issue(externalCert, first)
	h.settle(10)
	revision := h.statefulSet().Spec.Template.Annotations[objects.AnnotationTemplateHash]

	renewed := first.Add(60 * 24 * time.Hour)
	h.issue(internalCert, renewed)
	for range 3 {
		if _, err := h.reconcile(); err != nil {
			t.Fatal(err)
		}
	}
	if got := h.expiry("kafka-internal", internalCert); got != float64(renewed.Unix()) {
		t.Errorf("expiry after renewal %v, want %d", got, renewed.Unix())
	}
	if deletes := h.podDeletes(); len(deletes) != 0 {
		t.Errorf("a renewal deleted pods %v", deletes)
	}
	if got := h.statefulSet().Spec.Template.Annotations[objects.AnnotationTemplateHash]; got != revision {
		t.Errorf("a renewal changed the pod template: %s, was %s", got, revision)
	}

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 4 })
	h.settle(10)
	names, _, _ := unstructured.NestedStringSlice(h.certificate(externalCert).Object, "spec", "dnsNames")
	if !slices.Contains(names, "broker-3.kafka.example.com") {
		t.Errorf("after a scale-up the external Certificate names %q, without broker-3's host", names)
	}

	if err := h.brokers.BrokersV1alpha1().BrokerClusters(testNamespace).Delete(h.ctx, testName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.syncInformers()
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	if got := h.expiry("kafka-internal", internalCert); got != -1 {
		t.Errorf("a deleted cluster keeps its expiry series (%v)", got)
	}
}

// Without cert-manager's API the cluster waits with a condition that says so and one Warning
// event, and the reconcile does not fail: nothing to retry until cert-manager is installed.
func TestMissingCertManagerIsAConditionNotAnError(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.dynamic.PrependReactor("create", "certificates", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(objects.CertificateGVR.GroupResource(), "")
	})
	h.create(issuerCluster(3))
	for range 3 {
		res, err := h.reconcile()
		if err != nil || res.RequeueAfter != pollInterval {
			t.Fatalf("reconcile without cert-manager: %v, requeue %v", err, res.RequeueAfter)
		}
	}
	cond := h.certificatesCondition()
	if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != ReasonCertManagerNotInstalled || !strings.Contains(cond.Message, "certificates.cert-manager.io") {
		t.Fatalf("CertificatesReady = %+v, want False %s", cond, ReasonCertManagerNotInstalled)
	}
	if n, all := h.countEvents("Warning "+ReasonCertManagerNotInstalled, internalCert); n != 1 {
		t.Fatalf("%d Warning events, want 1: %q", n, all)
	}
	if h.statefulSet() != nil {
		t.Fatal("a StatefulSet was made whose pods could not mount their certificate")
	}

	// Naming Secrets instead ends the wait and removes the condition.
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.Kafka.TLS = &v1alpha1.ListenerTLS{SecretName: "kafka-internal"}
		s.Kafka.External.TLS = &v1alpha1.ListenerTLS{SecretName: "kafka-external"}
	})
	h.settle(10)
	if cond := h.certificatesCondition(); cond != nil {
		t.Errorf("CertificatesReady %+v stays without an issuerRef", cond)
	}
}
