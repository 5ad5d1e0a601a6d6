package brokers

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
)

func TestFindGhosts(t *testing.T) {
	addr := func(ordinal int) string {
		return admin.StableHostName(testName, testNamespace, ordinal, admin.DefaultClusterDomain)
	}
	pod := func(ordinal int, id string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: testName + "-" + string(rune('0'+ordinal)), Annotations: map[string]string{}}}
		if id != "" {
			p.Annotations[brokerpod.AnnotationNodeID] = id
		}
		return p
	}
	bc := newBrokerCluster(3)
	bc.Status.CurrentReplicas = 3
	brokers := []admin.Broker{
		{NodeID: 100, MembershipStatus: admin.MembershipActive, IsAlive: true, InternalRPCAddress: addr(0)},
		{NodeID: 101, MembershipStatus: admin.MembershipActive, IsAlive: false, InternalRPCAddress: addr(1)}, // its pod is down: not a ghost
		{NodeID: 102, MembershipStatus: admin.MembershipActive, IsAlive: true, InternalRPCAddress: addr(2)},
		{NodeID: 90, MembershipStatus: admin.MembershipActive, IsAlive: false, InternalRPCAddress: addr(2)},   // ordinal 2 runs 102 now: ghost
		{NodeID: 95, MembershipStatus: admin.MembershipActive, IsAlive: false, InternalRPCAddress: addr(7)},   // no pod at all: ghost
		{NodeID: 96, MembershipStatus: admin.MembershipDraining, IsAlive: false, InternalRPCAddress: addr(8)}, // draining: being dealt with
		{NodeID: 97, MembershipStatus: admin.MembershipActive, IsAlive: true, InternalRPCAddress: addr(9)},    // alive: not a ghost
	}
	pods := map[int]*corev1.Pod{0: pod(0, "100"), 1: pod(1, "101"), 2: pod(2, "102")}
	v := NewView(testName, brokers)
	if got, want := FindGhosts(bc, v, pods), []int32{90, 95}; !slices.Equal(got, want) {
		t.Fatalf("ghosts %v, want %v", got, want)
	}

	// A pod deleted for a restart, or by hand, is brought back by the StatefulSet: its broker
	// is no ghost while it is away.
	delete(pods, 1)
	if got := FindGhosts(bc, v, pods); slices.Contains(got, 101) {
		t.Fatalf("ghosts %v include the broker of a missing pod below currentReplicas", got)
	}
	// Nor are the brokers the operator is restarting or decommissioning.
	bc.Status.Restart = &v1alpha1.BrokerRestart{NodeID: 95}
	bc.Status.DecommissioningBroker = ptr.To[int32](90)
	if got := FindGhosts(bc, v, pods); len(got) != 0 {
		t.Fatalf("ghosts %v include brokers the operator is working on", got)
	}
}
