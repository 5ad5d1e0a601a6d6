//go:build e2e

package e2e

import (
	"context"
	"crypto/x509"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller"
	"github.com/broker-operator/broker-operator/test/brokerenv"
)

// TestCertificatesFromCertManager: listeners with an issuerRef get cert-manager Certificates
// naming every pod and every advertised external host; the cluster comes up once they are
// issued (by a stand-in for cert-manager that signs from a CA the test holds), mounting their
// Secrets; the expiry metric shows each certificate's NotAfter, and a renewal moves it without
// restarting any broker.
func TestCertificatesFromCertManager(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	issuer, err := brokerenv.StartCertIssuer(env.Kube, dynamic.NewForConfigOrDie(env.cp.AdminConfig()), ns, 90*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := issuer.Stop(); err != nil {
			t.Errorf("the stand-in issuer: %v", err)
		}
	})
	op := startOperator(t, ns, "a", "--metrics-bind-address=127.0.0.1:0", "--certificate-check-interval=1s")
	const name = "tls"
	internalCert, externalCert := name+"-kafka-internal-tls", name+"-kafka-external-tls"
	bc := env.BrokerCluster(ns, name, 3)
	bc.Spec.Kafka = &v1alpha1.KafkaSpec{
		TLS: &v1alpha1.ListenerTLS{IssuerRef: &v1alpha1.IssuerReference{Name: "e2e-ca", Kind: "ClusterIssuer"}, RequireClientAuth: true},
		External: &v1alpha1.ExternalListener{
			Type:     v1alpha1.ExternalNodePort,
			NodePort: &v1alpha1.NodePortListener{BasePort: nextNodePortBase(), HostTemplate: "broker-{ordinal}.e2e.example"},
			TLS:      &v1alpha1.ListenerTLS{IssuerRef: &v1alpha1.IssuerReference{Name: "e2e-public"}},
		},
	}
	env.Sim.Cluster(ns, name).SetDrainTime(time.Second)
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Create(t.Context(), bc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := env.AwaitConverged(t, ns, name, 3)
	if !meta.IsStatusConditionTrue(got.Status.Conditions, v1alpha1.ConditionCertificatesReady) {
		t.Errorf("converged without CertificatesReady: %+v", meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionCertificatesReady))
	}

	// The Certificates, as the operator made them.
	certs := dynamic.NewForConfigOrDie(env.cp.AdminConfig()).Resource(brokerenv.CertificateGVR).Namespace(ns)
	for cert, issuerRef := range map[string]map[string]string{
		internalCert: {"name": "e2e-ca", "kind": "ClusterIssuer", "group": "cert-manager.io"},
		externalCert: {"name": "e2e-public", "kind": "Issuer", "group": "cert-manager.io"},
	} {
		obj, err := certs.Get(t.Context(), cert, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("Certificate %s: %v", cert, err)
		}
		ref, _, _ := unstructured.NestedStringMap(obj.Object, "spec", "issuerRef")
		if fmt.Sprint(ref) != fmt.Sprint(issuerRef) {
			t.Errorf("Certificate %s issuerRef %v, want %v", cert, ref, issuerRef)
		}
		if owner := metav1.GetControllerOf(obj); owner == nil || owner.Kind != "BrokerCluster" || owner.Name != name {
			t.Errorf("Certificate %s is controlled by %v, want the BrokerCluster", cert, owner)
		}
	}

	// What was issued for them names every pod and every advertised host.
	internal, external := issuer.Issued(internalCert), issuer.Issued(externalCert)
	if internal == nil || external == nil {
		t.Fatalf("issued: internal %v, external %v", internal != nil, external != nil)
	}
	for ordinal := range 3 {
		pod := fmt.Sprintf("%s-%d.%s.%s.svc.cluster.local", name, ordinal, name, ns)
		for _, c := range []*x509.Certificate{internal, external} {
			if err := c.VerifyHostname(pod); err != nil {
				t.Errorf("%s: %v", c.Subject.CommonName, err)
			}
		}
		if err := external.VerifyHostname(fmt.Sprintf("broker-%d.e2e.example", ordinal)); err != nil {
			t.Errorf("external: %v", err)
		}
	}
	sts, err := env.Kube.AppsV1().StatefulSets(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var mounted []string
	for _, v := range sts.Spec.Template.Spec.Volumes {
		if v.Secret != nil {
			mounted = append(mounted, v.Secret.SecretName)
		}
	}
	if !slices.Contains(mounted, internalCert) || !slices.Contains(mounted, externalCert) {
		t.Errorf("the pods mount %v, want the Certificates' Secrets", mounted)
	}

	awaitExpiry(t, op, ns, name, "kafka-internal", internalCert, internal.NotAfter)
	awaitExpiry(t, op, ns, name, "kafka-external", externalCert, external.NotAfter)

	// A renewal: Redpanda reloads the files, so no broker restarts, and the metric follows.
	revision := sts.Spec.Template.Annotations[controller.AnnotationTemplateHash]
	pods := recordPods(t, ns, name)
	renewed, err := issuer.Renew(t.Context(), internalCert)
	if err != nil {
		t.Fatal(err)
	}
	if renewed.SerialNumber.Cmp(internal.SerialNumber) == 0 || !renewed.NotAfter.After(internal.NotAfter) {
		t.Fatalf("the renewal kept serial %v or NotAfter %v", renewed.SerialNumber, renewed.NotAfter)
	}
	awaitExpiry(t, op, ns, name, "kafka-internal", internalCert, renewed.NotAfter)
	// A few more reconciles (every --certificate-check-interval) with the renewed Secret.
	awaitExpiry(t, op, ns, name, "kafka-external", externalCert, external.NotAfter)
	if sts, err = env.Kube.AppsV1().StatefulSets(ns).Get(t.Context(), name, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := sts.Spec.Template.Annotations[controller.AnnotationTemplateHash]; got != revision {
		t.Errorf("the renewal changed the pod template: %s, was %s", got, revision)
	}
	if deleted := pods.deleted(); len(deleted) != 0 {
		t.Errorf("the renewal restarted pods %v", deleted)
	}
	if away := pods.maxAway(); away != 0 {
		t.Errorf("%d brokers were down at once during the renewal", away)
	}
	if overlaps := maintenanceOverlaps(ns, name); len(overlaps) != 0 {
		t.Errorf("maintenance overlaps: %v", overlaps)
	}
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}

// awaitExpiry scrapes the operator's /metrics until the expiry series of the listener's Secret
// is want.
func awaitExpiry(t *testing.T, op *operator, ns, name, listener, secret string, want time.Time) {
	t.Helper()
	series := regexp.MustCompile(fmt.Sprintf(`(?m)^broker_operator_certificate_expiry_timestamp_seconds\{listener=%q,name=%q,namespace=%q,secret=%q\} (\S+)$`,
		listener, name, ns, secret))
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, convergeLimit, true, func(context.Context) (bool, error) {
		m := series.FindSubmatch(scrapeMetrics(t, op))
		if m == nil {
			last = "no series"
			return false, nil
		}
		last = string(m[1])
		v, err := strconv.ParseFloat(last, 64)
		return err == nil && int64(v) == want.Unix(), nil
	})
	if err != nil {
		t.Fatalf("expiry of %s (%s): %s, want %d (%s)", secret, listener, last, want.Unix(), want)
	}
}
