package brokerenv

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// AwaitConverged waits until the cluster is steady at target brokers: the operator has observed
// the spec, status says target current and ready with no decommission and condition Ready True,
// exactly the Pods 0 to target-1 run a broker, and exactly target active brokers run in them. It
// returns the BrokerCluster as it was then.
func (e *Env) AwaitConverged(t *testing.T, ns, name string, target int32) *v1alpha1.BrokerCluster {
	t.Helper()
	var (
		last string
		bc   *v1alpha1.BrokerCluster
	)
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, ConvergeLimit, true, func(ctx context.Context) (bool, error) {
		var err error
		bc, err = e.Brokers.BrokersV1alpha1().BrokerClusters(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		last = e.convergenceProblem(bc, target)
		return last == "", nil
	})
	if err != nil {
		t.Fatalf("BrokerCluster %s/%s did not settle at %d brokers within %s: %s", ns, name, target, ConvergeLimit, last)
	}
	return bc
}

// convergenceProblem says what keeps bc from being steady at target brokers, or "".
func (e *Env) convergenceProblem(bc *v1alpha1.BrokerCluster, target int32) string {
	st := bc.Status
	if bc.Spec.Replicas != target || st.ObservedGeneration != bc.Generation || st.CurrentReplicas != target ||
		st.ReadyReplicas != target || st.DecommissioningBroker != nil {
		return fmt.Sprintf("spec %d, generation %d observed %d, current %d, ready %d, decommissioning %s",
			bc.Spec.Replicas, bc.Generation, st.ObservedGeneration, st.CurrentReplicas, st.ReadyReplicas, BrokerString(st.DecommissioningBroker))
	}
	if !meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionReady) {
		return fmt.Sprintf("condition Ready is not True: %v", meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionReady))
	}
	running := e.Pods.Running(bc.Namespace, bc.Name)
	if want := ordinals(int(target)); !slices.Equal(running, want) {
		return fmt.Sprintf("pods running brokers %v, want %v", running, want)
	}
	active := 0
	for _, b := range e.Sim.Cluster(bc.Namespace, bc.Name).Brokers() {
		if b.PodRunning && b.Status == admin.MembershipActive {
			active++
		}
	}
	if active != int(target) {
		return fmt.Sprintf("%d active brokers, want %d", active, target)
	}
	return ""
}

// AwaitDraining waits until status names a broker being decommissioned and the simulator has
// it draining, and returns its node ID.
func (e *Env) AwaitDraining(t *testing.T, ns, name string) int32 {
	t.Helper()
	var (
		id   int32
		last string
	)
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, ConvergeLimit, true, func(ctx context.Context) (bool, error) {
		bc, err := e.Brokers.BrokersV1alpha1().BrokerClusters(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		if bc.Status.DecommissioningBroker == nil {
			last = "status names no broker being decommissioned"
			return false, nil
		}
		id = *bc.Status.DecommissioningBroker
		status := e.BrokerStatus(ns, name, int(id))
		last = fmt.Sprintf("broker %d is %q in the simulator", id, status)
		return status == admin.MembershipDraining, nil
	})
	if err != nil {
		t.Fatalf("no broker of %s/%s started draining within %s: %s", ns, name, ConvergeLimit, last)
	}
	return id
}

// BrokerStatus is the simulator's membership status of broker nodeID of a cluster, "" when it
// has no such broker.
func (e *Env) BrokerStatus(ns, name string, nodeID int) admin.MembershipStatus {
	for _, b := range e.Sim.Cluster(ns, name).Brokers() {
		if b.NodeID == nodeID {
			return b.Status
		}
	}
	return ""
}

// NodeIDs maps pod ordinals to the node IDs of the brokers they run now.
func (e *Env) NodeIDs(t *testing.T, ns, name string, count int) []int {
	t.Helper()
	ids := make([]int, count)
	for o := range count {
		id, ok := e.Sim.Cluster(ns, name).NodeID(o)
		if !ok {
			t.Fatalf("pod %s-%d runs no broker", name, o)
		}
		ids[o] = id
	}
	return ids
}

// BrokerString is a status's decommissioningBroker as text: its node ID, or "none".
func BrokerString(id *int32) string {
	if id == nil {
		return "none"
	}
	return strconv.Itoa(int(*id))
}

func ordinals(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
