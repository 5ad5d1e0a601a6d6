package controller

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// A broker pod the scheduler finds no node for (more brokers than nodes, with one broker per
// node) changes no more once the scheduler has said so; the reconcile looks again when its grace
// ends, and the cluster is then Degraded naming the pod, the scheduler's words and what places it.
func TestAnUnschedulablePodIsLookedAtAgainWhenItsGraceEnds(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	pods := h.kube.CoreV1().Pods(testNamespace)
	name := testName + "-2"
	pod, err := pods.Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const why = "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules."
	pod.Spec.NodeName = ""
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled,
		Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, Message: why, LastTransitionTime: metav1.NewTime(h.clock.Now())}}}
	if _, err := pods.UpdateStatus(h.ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.cluster.Down(2)
	// Its claim is there: it is the node that is missing (claimless.go deletes a pod without one).
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "datadir-" + name, Namespace: testNamespace}}
	if _, err := h.kube.CoreV1().PersistentVolumeClaims(testNamespace).Create(h.ctx, claim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.await("the unschedulable pod in the informer", func() bool {
		obj, ok, _ := h.nc.raw.pods.GetByKey(testNamespace + "/" + name)
		return ok && brokerpod.Unschedulable(obj.(*corev1.Pod))
	})

	res, err := h.reconcile()
	if err != nil {
		t.Fatal(err)
	}
	if res.RequeueAfter <= 0 || res.RequeueAfter > brokerpod.UnschedulableGrace {
		t.Fatalf("requeue after %v, want a look again when the pod's grace ends (at most %v)", res.RequeueAfter, brokerpod.UnschedulableGrace)
	}
	if d := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded); d != nil && d.Status == metav1.ConditionTrue {
		t.Fatalf("Degraded %+v within the grace, want not yet", d)
	}

	h.clock.Step(res.RequeueAfter)
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	d := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded)
	if d == nil || d.Status != metav1.ConditionTrue || d.Reason != step.ReasonBrokerPodCannotStart {
		t.Fatalf("Degraded %+v once the grace ended, want %s; status %+v; events %v", d, step.ReasonBrokerPodCannotStart, h.stored().Status, h.events())
	}
	for _, want := range []string{"pod " + name + " cannot be scheduled", why, "add a node", "spec.affinity"} {
		if !strings.Contains(d.Message, want) {
			t.Errorf("Degraded message %q lacks %q", d.Message, want)
		}
	}
}
