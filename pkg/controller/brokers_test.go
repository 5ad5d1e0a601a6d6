package controller

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// End to end through the controller: brokers advertise 127.0.0.1, the next broker to go has no
// recorded ID and its node_config cannot be had. The scale-down waits, Degraded says why, and
// nothing is decommissioned or removed; once the broker answers, it proceeds.
func TestScaleDownWaitsForAnUnidentifiedBroker(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.cluster.SetAdvertiseLoopback(true)
	h.bringUp(3)
	ids := h.nodeIDs()
	pod, err := h.kube.CoreV1().Pods(testNamespace).Get(h.ctx, testName+"-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	delete(pod.Annotations, AnnotationNodeID)
	if _, err := h.kube.CoreV1().Pods(testNamespace).Update(h.ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.syncInformers()
	h.cluster.SetBrokerFault(2, admintest.Fault{Refuse: true})
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })

	for range 3 {
		res, err := h.reconcile()
		if err != nil {
			t.Fatal(err)
		}
		if res.RequeueAfter != pollInterval {
			t.Errorf("requeue after %v, want a poll while waiting", res.RequeueAfter)
		}
	}
	st := h.stored().Status
	cond := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded)
	if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != ReasonBrokerIDUnknown || !strings.Contains(cond.Message, "unknown is not absent") {
		t.Errorf("Degraded %+v, want %s saying why", cond, ReasonBrokerIDUnknown)
	}
	if st.CurrentReplicas != 3 || len(h.pods()) != 3 || len(h.decommissionCalls()) != 0 {
		t.Fatalf("status %+v, %d pods, decommissions %v: an unidentified broker was skipped", st, len(h.pods()), h.decommissionCalls())
	}

	h.cluster.SetBrokerFault(2, admintest.Fault{})
	h.settle(10)
	if calls := h.decommissionCalls(); len(calls) != 1 || calls[0] != ids[2] {
		t.Errorf("decommission calls %v, want [%d]", calls, ids[2])
	}
	if l := h.sim.LeftBeforeDecommission(); len(l) != 0 {
		t.Errorf("left before decommission: %v", l)
	}
}
