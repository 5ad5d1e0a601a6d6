package controller

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// A scale-up waits while a volume claim of an ordinal it wants is condemned (here, handed to
// the pod of the broker that left, as the StatefulSet's retention policy does), and goes ahead
// once garbage collection has removed it: a pod made meanwhile would mount a claim about to be
// deleted and stay Pending.
func TestScaleUpWaitsForACondemnedClaim(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(2)
	claims := h.kube.CoreV1().PersistentVolumeClaims(testNamespace)
	condemned := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{
		Name: "datadir-" + testName + "-2", Namespace: testNamespace,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: testName + "-2", UID: "gone"}},
	}}
	if _, err := claims.Create(h.ctx, condemned, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kept := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "datadir-" + testName + "-3", Namespace: testNamespace}}
	if _, err := claims.Create(h.ctx, kept, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 4 })

	for range 3 {
		if _, err := h.reconcile(); err != nil {
			t.Fatal(err)
		}
	}
	if st := h.stored().Status; st.CurrentReplicas != 2 {
		t.Fatalf("currentReplicas = %d while a condemned claim is there, want 2", st.CurrentReplicas)
	}
	if got := h.counter("broker_operator_decisions_total", "kind", string(step.WaitForRemovedPod)); got == 0 {
		t.Error("no WaitForRemovedPod decision")
	}

	if err := claims.Delete(h.ctx, condemned.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.settle(5)
	if st := h.stored().Status; st.CurrentReplicas != 4 {
		t.Fatalf("currentReplicas = %d after the claim went, want 4 (a retained claim does not block)", st.CurrentReplicas)
	}
}
