//go:build e2e

package e2e

import (
	"bytes"
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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/evictionwebhook"
)

// kubectl drain of a node that runs brokers: the eviction webhook turns each eviction into a
// restart through the rollout, so every broker on the node has its leadership moved away
// (maintenance mode) before its pod goes, one broker at a time, and no maintenance flag is left.
func TestKubectlDrainRestartsBrokersThroughTheRollout(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	const name = "drained"
	taint := corev1.Taint{Key: "e2e-drain", Value: ns, Effect: corev1.TaintEffectNoSchedule}
	nodes := []string{ns + "-a", ns + "-b"}
	for _, n := range nodes {
		remove, err := env.cp.AddFakeNode(t.Context(), n, map[string]string{"e2e-drain": ns}, []corev1.Taint{taint})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(remove)
	}
	// Until the brokers are up, only the first node takes them, so that draining it moves them.
	cordon(t, nodes[1], true)

	certDir, caPEM := servingCertificate(t)
	addr := freeAddress(t)
	startOperator(t, ns, "a", "--eviction-webhook-bind-address="+addr, "--eviction-webhook-cert-dir="+certDir)
	registerEvictionWebhook(t, ns, "https://"+addr+evictionwebhook.Path, caPEM)

	bc := env.BrokerCluster(ns, name, 3)
	// Every broker on the node that is drained, as a cluster softened to prefer one broker per
	// node (README, Placement) runs on one node when it must.
	bc.Spec.Affinity = preferOnePerNode(name)
	bc.Spec.NodeSelector = map[string]string{"e2e-drain": ns}
	bc.Spec.Tolerations = append(bc.Spec.Tolerations, corev1.Toleration{Key: taint.Key, Operator: corev1.TolerationOpEqual, Value: ns, Effect: corev1.TaintEffectNoSchedule})
	env.Sim.Cluster(ns, name).SetDrainTime(time.Second)
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Create(t.Context(), bc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.AwaitConverged(t, ns, name, 3)
	ids := env.NodeIDs(t, ns, name, 3)
	cordon(t, nodes[1], false)

	out, err := kubectl(t, 3*time.Minute, "drain", nodes[0], "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=150s")
	if err != nil {
		t.Fatalf("kubectl drain: %v\n%s", err, out)
	}
	if !strings.Contains(out, "will retry") {
		t.Errorf("kubectl drain was never told to wait: the webhook did not answer its evictions\n%s", out)
	}
	pods, err := env.Kube.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName == nodes[0] {
			t.Errorf("pod %s still on the drained node", p.Name)
		}
	}

	// Every broker had its leadership moved away before its pod went, one at a time, and was
	// taken out of maintenance mode once back.
	var order []int
	for _, c := range maintenanceOns(ns, name) {
		order = append(order, c.NodeID)
	}
	if len(order) != 3 {
		t.Errorf("brokers put in maintenance mode: %v, want all three of %v", order, ids)
	}
	if o := maintenanceOverlaps(ns, name); len(o) > 0 {
		t.Errorf("two brokers in maintenance at once: %v", o)
	}
	awaitStatus(t, ns, name, "the restarts to finish", func(bc *v1alpha1.BrokerCluster) bool { return bc.Status.Restart == nil })
	if left := maintenanceLeftOn(ns, name); len(left) > 0 {
		t.Errorf("brokers left in maintenance mode: %v", left)
	}
	if n := successfulEvictions(t, ns); n > 0 {
		t.Errorf("%d broker pods were evicted, not restarted through the rollout", n)
	}
	checkBrokersSafe(t, ns, name)
}

// maintenanceLeftOn are the brokers whose last accepted maintenance call turned it on.
func maintenanceLeftOn(ns, name string) []int {
	on := map[int]bool{}
	for _, c := range env.Sim.Cluster(ns, name).Calls() {
		if c.Status == 200 && c.Path == fmt.Sprintf("/v1/brokers/%d/maintenance", c.NodeID) {
			on[c.NodeID] = c.Method == "PUT"
		}
	}
	var left []int
	for id, isOn := range on {
		if isOn {
			left = append(left, id)
		}
	}
	return left
}

// successfulEvictions counts evictions of ns's pods that the apiserver carried out.
func successfulEvictions(t *testing.T, ns string) int {
	t.Helper()
	reqs, err := env.cp.Evictions()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range reqs {
		if strings.HasPrefix(r.RequestURI, "/api/v1/namespaces/"+ns+"/") && r.Code/100 == 2 {
			n++
		}
	}
	return n
}

func cordon(t *testing.T, node string, on bool) {
	t.Helper()
	patch := fmt.Appendf(nil, `{"spec":{"unschedulable":%t}}`, on)
	if _, err := env.Kube.CoreV1().Nodes().Patch(t.Context(), node, "application/merge-patch+json", patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

func kubectl(t *testing.T, limit time.Duration, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig=" + env.cp.KubeconfigPath}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func freeAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// servingCertificate writes a certificate for 127.0.0.1, signed by a CA made for the test, as
// tls.crt and tls.key, and returns their directory and the CA's PEM.
func servingCertificate(t *testing.T) (dir string, caPEM []byte) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "e2e eviction webhook CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	write := func(file, kind string, der []byte) {
		if err := os.WriteFile(filepath.Join(dir, file), pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("tls.crt", "CERTIFICATE", leafDER)
	write("tls.key", "EC PRIVATE KEY", keyDER)
	return dir, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}

// registerEvictionWebhook points the apiserver's pods/eviction admission for namespace ns at
// url, as the chart's webhook configuration (charts/broker-operator, evictionWebhook) does for
// the operator's Service.
func registerEvictionWebhook(t *testing.T, ns, url string, caPEM []byte) {
	t.Helper()
	cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "broker-operator-evictions-" + ns},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "evictions.broker-operator.dev",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caPEM},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/eviction"}, Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
			}},
			// Fail, not the chart's Ignore: here an unanswered eviction must show as a failure.
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNoneOnDryRun),
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To[int32](10),
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
		}},
	}
	if _, err := env.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(t.Context(), cfg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(context.Background(), cfg.Name, metav1.DeleteOptions{})
	})
}
