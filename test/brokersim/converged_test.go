package brokersim

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

func steadyCluster(replicas int32) *v1alpha1.BrokerCluster {
	bc := &v1alpha1.BrokerCluster{}
	bc.Generation = 4
	bc.Spec.Replicas = replicas
	bc.Status = v1alpha1.BrokerClusterStatus{ObservedGeneration: 4, CurrentReplicas: replicas, ReadyReplicas: replicas, UpdatedReplicas: replicas}
	return bc
}

func activeBrokers(ordinals ...int) []admintest.BrokerState {
	var out []admintest.BrokerState
	for _, o := range ordinals {
		out = append(out, admintest.BrokerState{NodeID: 100 + o, Ordinal: o, Status: admin.MembershipActive, PodRunning: true})
	}
	return out
}

func TestConverged(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(bc *v1alpha1.BrokerCluster)
		running []int
		brokers []admintest.BrokerState
		why     string // "" when converged
	}{
		{name: "steady", running: []int{0, 1, 2}, brokers: activeBrokers(0, 1, 2)},
		{name: "spec not observed", change: func(bc *v1alpha1.BrokerCluster) { bc.Generation = 5 },
			running: []int{0, 1, 2}, brokers: activeBrokers(0, 1, 2), why: "generation 5 observed 4"},
		{name: "draining", change: func(bc *v1alpha1.BrokerCluster) { bc.Status.DecommissioningBroker = ptr.To[int32](102) },
			running: []int{0, 1, 2}, brokers: activeBrokers(0, 1, 2), why: "decommissioning 102"},
		{name: "one pod not ready", change: func(bc *v1alpha1.BrokerCluster) { bc.Status.ReadyReplicas = 2 },
			running: []int{0, 1, 2}, brokers: activeBrokers(0, 1, 2), why: "ready 2"},
		{name: "rollout under way", change: func(bc *v1alpha1.BrokerCluster) { bc.Status.UpdatedReplicas = 1 },
			running: []int{0, 1, 2}, brokers: activeBrokers(0, 1, 2), why: "1 of 3 updated"},
		{name: "a broker pod too many", running: []int{0, 1, 2, 3}, brokers: activeBrokers(0, 1, 2), why: "broker pods [0 1 2 3]"},
		{name: "a gap in the ordinals", running: []int{0, 1, 3}, brokers: activeBrokers(0, 1, 3), why: "want ordinals 0 to 2"},
		{name: "a broker left the cluster", running: []int{0, 1, 2}, brokers: activeBrokers(0, 1), why: "2 active brokers, want 3"},
		{name: "a broker still draining", running: []int{0, 1, 2},
			brokers: append(activeBrokers(0, 1), admintest.BrokerState{NodeID: 102, Ordinal: 2, Status: admin.MembershipDraining, PodRunning: true}),
			why:     "2 active brokers, want 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bc := steadyCluster(3)
			if tc.change != nil {
				tc.change(bc)
			}
			ok, why := converged(bc, 3, tc.running, tc.brokers)
			if ok != (tc.why == "") || !strings.Contains(why, tc.why) {
				t.Errorf("converged = %t, %q; want %t with %q", ok, why, tc.why == "", tc.why)
			}
		})
	}
}
