package controller

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
)

// roleARN is the annotation EKS reads a pod's IAM role from, the reason for create: true.
const roleARN = "eks.amazonaws.com/role-arn"

func (h *harness) serviceAccount(name string) *corev1.ServiceAccount {
	h.t.Helper()
	sa, err := h.kube.CoreV1().ServiceAccounts(testNamespace).Get(h.ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return sa
}

// With create, the operator makes the broker pods' ServiceAccount, owned by the cluster, with
// the spec's annotations; the pods run as it; an annotation changed, added or removed in the
// spec reaches it, and one changed by hand is put back.
func TestServiceAccountIsMadeOwnedAndKeptAsTheSpecSays(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	bc := newBrokerCluster(3)
	bc.Spec.ServiceAccount = &v1alpha1.BrokerServiceAccount{Create: true, Annotations: map[string]string{roleARN: "arn:aws:iam::1:role/a"}}
	h.bringUpCluster(bc)

	sa := h.serviceAccount(testName)
	if sa == nil {
		t.Fatal("no ServiceAccount named after the cluster")
	}
	if ref := metav1.GetControllerOf(sa); ref == nil || ref.Kind != "BrokerCluster" || ref.Name != testName || ref.UID != h.stored().UID {
		t.Errorf("owner %+v, want the BrokerCluster", ref)
	}
	if sa.Annotations[roleARN] != "arn:aws:iam::1:role/a" || sa.Labels[objects.LabelManagedBy] != objects.ManagedByValue {
		t.Errorf("ServiceAccount %+v", sa.ObjectMeta)
	}
	if got := h.statefulSet().Spec.Template.Spec.ServiceAccountName; got != testName {
		t.Errorf("pods run as %q, want %q", got, testName)
	}

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.ServiceAccount.Annotations = map[string]string{roleARN: "arn:aws:iam::1:role/b", "team": "brokers"}
	})
	h.settle(5)
	want := map[string]string{roleARN: "arn:aws:iam::1:role/b", "team": "brokers"}
	if got := h.serviceAccount(testName).Annotations; !subsetOf(want, got) {
		t.Errorf("annotations %v, want %v", got, want)
	}

	edited := h.serviceAccount(testName)
	edited.Annotations[roleARN] = "arn:aws:iam::9:role/someone-else"
	delete(edited.Annotations, "team")
	if _, err := h.kube.CoreV1().ServiceAccounts(testNamespace).Update(h.ctx, edited, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.syncKubeInformers() // the watch event that brings the reconcile
	h.settle(5)
	if got := h.serviceAccount(testName).Annotations; !subsetOf(want, got) {
		t.Errorf("an edit by hand stayed: %v, want %v", got, want)
	}

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { delete(s.ServiceAccount.Annotations, "team") })
	h.settle(5)
	if got := h.serviceAccount(testName).Annotations; got["team"] != "" {
		t.Errorf("an annotation removed from the spec stayed: %v", got)
	}
}

// A service account the spec names is only named in the pods: the operator makes none, and a
// cluster with no spec.serviceAccount runs its pods as the namespace's default.
func TestNamedServiceAccountIsOnlyNamed(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	bc := newBrokerCluster(3)
	bc.Spec.ServiceAccount = &v1alpha1.BrokerServiceAccount{Name: "brokers"}
	h.bringUpCluster(bc)
	if h.serviceAccount("brokers") != nil || h.serviceAccount(testName) != nil {
		t.Error("the operator made a service account the spec only names")
	}
	if got := h.statefulSet().Spec.Template.Spec.ServiceAccountName; got != "brokers" {
		t.Errorf("pods run as %q, want brokers", got)
	}
}

// A ServiceAccount of the same name that the cluster does not own is left alone, and said so.
func TestServiceAccountOfSomeoneElseIsLeftAlone(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	theirs := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: testName, Namespace: testNamespace,
		Labels: map[string]string{objects.LabelManagedBy: objects.ManagedByValue}, Annotations: map[string]string{roleARN: "theirs"}}}
	if _, err := h.kube.CoreV1().ServiceAccounts(testNamespace).Create(h.ctx, theirs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bc := newBrokerCluster(1)
	bc.Spec.ServiceAccount = &v1alpha1.BrokerServiceAccount{Create: true, Annotations: map[string]string{roleARN: "ours"}}
	h.create(bc)
	for range 3 {
		if _, err := h.reconcile(); err == nil {
			t.Fatal("a reconcile succeeded over a ServiceAccount the cluster does not own")
		}
	}
	if got := h.serviceAccount(testName).Annotations[roleARN]; got != "theirs" {
		t.Errorf("their ServiceAccount was changed: %s", got)
	}
}

func subsetOf(want, got map[string]string) bool {
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}
