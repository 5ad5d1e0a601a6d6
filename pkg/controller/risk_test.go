package controller

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// A broker whose own pre-restart probe reports an acks=1 risk waits, with a condition naming
// the partition, while the other brokers roll; once the risk is gone it restarts too.
func TestABrokerWhoseRestartRisksDataWaitsAndTheOthersRoll(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards(), version: "v25.1.2"})
	h.bringUp(3)
	ids := h.nodeIDs()
	h.cluster.SetRestartRisks(2, admin.RestartRisks{Acks1DataLoss: []string{"kafka/orders/3"}})
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = "redpanda:v25.2.1" })
	var st v1alpha1.BrokerClusterStatus
	for range 30 {
		h.reconcileAfterPoll()
		st = h.stored().Status
		if st.UpdatedReplicas == 2 && st.Restart == nil {
			break
		}
	}
	for _, p := range h.pods() {
		updated := p.Spec.Containers[0].Image == "redpanda:v25.2.1"
		if updated == (p.Name == testName+"-2") {
			t.Errorf("pod %s on %s: the broker at risk must wait and the others roll", p.Name, p.Spec.Containers[0].Image)
		}
	}
	if slices.Contains(h.maintenanceCalls(), fmt.Sprintf("on %d", ids[2])) {
		t.Errorf("the broker at risk went into maintenance: %v", h.maintenanceCalls())
	}
	h.reconcileAfterPoll()
	degraded := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded)
	if degraded == nil || degraded.Reason != ReasonClusterUnhealthy || !strings.Contains(degraded.Message, "kafka/orders/3") {
		t.Fatalf("Degraded %+v, want %s naming kafka/orders/3", degraded, ReasonClusterUnhealthy)
	}

	h.cluster.SetRestartRisks(2, admin.RestartRisks{})
	h.rollOut(30, "redpanda:v25.2.1")
	if o := h.overlappingMaintenance(); len(o) > 0 {
		t.Errorf("maintenance overlaps: %v", o)
	}
}
