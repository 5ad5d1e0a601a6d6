//go:build e2e

package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller"
)

// A 3-broker cluster holding an RF=3 topic, scaled to 2: nothing is decommissioned and the
// condition names the topic; scaled back to 3 the condition clears; once the topic's factor
// drops, a scale to 2 goes through by itself.
func TestAScaleDownBelowTheReplicationFactorIsHeld(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "preflight"
	ids := createAt(t, ns, name, "v25.1.2")
	sim := env.Sim.Cluster(ns, name)
	sim.SetReplicationFactor(3)

	env.Scale(t, ns, name, 2)
	cond := awaitDegraded(t, ns, name, controller.ReasonScaleDownWouldNotFit, "topic kafka/simulated")
	if !strings.Contains(cond.Message, "replication factor 3") {
		t.Errorf("Degraded message %q does not name the factor", cond.Message)
	}
	awaitEventMessage(t, ns, name, "HoldScaleDown", "Warning", "kafka/simulated")
	bc := awaitStatus(t, ns, name, "the scale-down held in Scaling", func(bc *v1alpha1.BrokerCluster) bool {
		s := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionScaling)
		return s != nil && strings.Contains(s.Message, "from 3 to 2 brokers is held")
	})
	if bc.Status.CurrentReplicas != 3 || bc.Status.DecommissioningBroker != nil {
		t.Errorf("status currentReplicas %d, decommissioningBroker %v while held; want 3 and none", bc.Status.CurrentReplicas, bc.Status.DecommissioningBroker)
	}
	if got := adminCalls(ns, name, "decommission"); len(got) > 0 {
		t.Fatalf("decommission calls %v while held, want none", got)
	}

	env.Scale(t, ns, name, 3)
	awaitStatus(t, ns, name, "the hold cleared by the scale back to 3", func(bc *v1alpha1.BrokerCluster) bool {
		d := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionDegraded)
		return bc.Status.ObservedGeneration == bc.Generation && d != nil && d.Status == metav1.ConditionFalse
	})

	env.Scale(t, ns, name, 2)
	awaitDegraded(t, ns, name, controller.ReasonScaleDownWouldNotFit, "topic kafka/simulated")
	sim.SetReplicationFactor(2)
	env.AwaitConverged(t, ns, name, 2)
	if got := adminCalls(ns, name, "decommission"); !slices.Equal(got, []int{ids[2]}) {
		t.Errorf("decommission calls %v once the factor dropped, want [%d]", got, ids[2])
	}
	checkBrokersSafe(t, ns, name)
}

// The remaining brokers lack the free disk for the leaving broker's data above Redpanda's own
// floor: the scale-down is held; once there is room it goes through.
func TestAScaleDownWithoutRoomOnTheRemainingDisksIsHeld(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "disk"
	const gi = int64(1) << 30
	ids := createAt(t, ns, name, "v25.1.2")
	sim := env.Sim.Cluster(ns, name)
	sim.SetDisk(0, 30*gi, 100*gi)
	sim.SetDisk(1, 30*gi, 100*gi)
	sim.SetDisk(2, 20*gi, 100*gi)

	env.Scale(t, ns, name, 2)
	awaitDegraded(t, ns, name, controller.ReasonScaleDownWouldNotFit, "storage_min_free_bytes")
	awaitEventMessage(t, ns, name, "HoldScaleDown", "Warning", "80.0 GiB")
	if got := adminCalls(ns, name, "decommission"); len(got) > 0 {
		t.Fatalf("decommission calls %v while held, want none", got)
	}
	sim.SetDisk(2, 60*gi, 100*gi)
	env.AwaitConverged(t, ns, name, 2)
	if got := adminCalls(ns, name, "decommission"); !slices.Equal(got, []int{ids[2]}) {
		t.Errorf("decommission calls %v once the data fits, want [%d]", got, ids[2])
	}
	checkBrokersSafe(t, ns, name)
}

// With rack awareness on, a scale-down that would leave the partitions fewer racks than their
// factor needs is held; once the remaining brokers span enough racks it goes through.
func TestAScaleDownThatWouldLoseARackIsHeld(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "racks"
	sim := env.Sim.Cluster(ns, name)
	sim.SetDrainTime(time.Second)
	sim.SetReplicationFactor(2)
	for o, rack := range []string{"a", "a", "b"} {
		sim.SetRack(o, rack)
	}
	bc := env.BrokerCluster(ns, name, 3)
	bc.Spec.RackAwareness = &v1alpha1.RackAwarenessSpec{}
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Create(t.Context(), bc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.AwaitConverged(t, ns, name, 3)
	ids := env.NodeIDs(t, ns, name, 3)

	env.Scale(t, ns, name, 2)
	cond := awaitDegraded(t, ns, name, controller.ReasonScaleDownWouldNotFit, "rack awareness")
	if !strings.Contains(cond.Message, "only 1 of the 2 racks") {
		t.Errorf("Degraded message %q does not say which racks remain", cond.Message)
	}
	awaitEvent(t, ns, name, "HoldScaleDown")
	if got := adminCalls(ns, name, "decommission"); len(got) > 0 {
		t.Fatalf("decommission calls %v while held, want none", got)
	}
	sim.SetRack(1, "b")
	env.AwaitConverged(t, ns, name, 2)
	if got := adminCalls(ns, name, "decommission"); !slices.Equal(got, []int{ids[2]}) {
		t.Errorf("decommission calls %v once both racks remain, want [%d]", got, ids[2])
	}
	checkBrokersSafe(t, ns, name)
}
