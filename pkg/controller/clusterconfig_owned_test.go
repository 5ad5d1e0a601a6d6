package controller

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
)

// settleRollout reconciles, a poll interval apart, until the cluster properties are in effect
// and every broker runs the current pod template.
func (h *harness) settleRollout(max int) {
	h.t.Helper()
	h.settleConfig(max)
	for range max {
		bc := h.stored()
		if bc.Status.Restart == nil && bc.Status.UpdatedReplicas == bc.Spec.Replicas && bc.Status.CurrentReplicas == bc.Spec.Replicas {
			return
		}
		h.reconcileAfterPoll()
	}
	h.t.Fatalf("rollout not done after %d reconciles: status %+v", max, h.stored().Status)
}

func TestClusterPropertiesForSASLAreWrittenWhenARunningClusterGainsIt(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	if n := h.callsTo("PUT", "/v1/cluster_config"); n != 0 {
		t.Fatalf("%d cluster config writes for a cluster without SASL", n)
	}

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.Kafka = &v1alpha1.KafkaSpec{SASL: &v1alpha1.KafkaSASL{Mechanism: v1alpha1.SCRAMSHA256}}
	})
	h.settleRollout(40)

	cfg := h.simConfig()
	if string(cfg["enable_sasl"]) != "true" {
		t.Errorf("simulator config %s, want enable_sasl true", cfg)
	}
	all, err := h.simConfigClient().ClusterConfig(h.ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(all["sasl_mechanisms"]); got != `["SCRAM"]` {
		t.Errorf("sasl_mechanisms %s, want [\"SCRAM\"]", got)
	}
	if n := h.callsTo("PUT", "/v1/cluster_config"); n != 1 {
		t.Errorf("%d writes of the cluster config, want 1", n)
	}
	owned := []string{"enable_sasl", "sasl_mechanisms"}
	if st := h.stored().Status.ClusterConfig; st == nil || !slices.Equal(st.Applied, owned) || !slices.Equal(st.Managed, owned) || st.PendingRestart != nil {
		t.Errorf("status.clusterConfig %+v, want %v applied and managed, nothing pending", st, owned)
	}

	// In effect: later reconciles, and a spec change that leaves SASL on, write nothing.
	for range 3 {
		h.simClock.Advance(pollInterval)
		if _, err := h.reconcile(); err != nil {
			t.Fatal(err)
		}
	}
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.ClusterConfig = map[string]string{segmentProperty: "268435456"} })
	h.settleConfig(5)
	if n := h.callsTo("PUT", "/v1/cluster_config"); n != 2 {
		t.Errorf("%d writes of the cluster config, want 2: SASL's properties are not written again", n)
	}

	// SASL removed: enable_sasl goes back to Redpanda's default.
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Kafka = nil })
	h.settleRollout(40)
	if cfg := h.simConfig(); len(cfg) != 1 || string(cfg[segmentProperty]) != "268435456" {
		t.Errorf("simulator config %s, want only %s: enable_sasl reset", cfg, segmentProperty)
	}
	if st := h.stored().Status.ClusterConfig; st == nil || !slices.Equal(st.Managed, []string{segmentProperty}) {
		t.Errorf("status.clusterConfig %+v, want only %s managed", st, segmentProperty)
	}
}

func TestRackAwarenessIsTurnedOnAndOffOnARunningCluster(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	for i, zone := range []string{"zone-a", "zone-b", "zone-c"} {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: playNodeName(i), Labels: map[string]string{brokerconfig.DefaultRackLabel: zone}}}
		if err := h.kubeTrack.Add(node); err != nil {
			t.Fatal(err)
		}
	}
	h.bringUp(3)

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.RackAwareness = &v1alpha1.RackAwarenessSpec{} })
	h.settleRollout(40)
	if cfg := h.simConfig(); len(cfg) != 1 || string(cfg["enable_rack_awareness"]) != "true" {
		t.Errorf("simulator config %s, want enable_rack_awareness true", cfg)
	}
	if st := h.stored().Status.ClusterConfig; st == nil || !slices.Equal(st.Managed, []string{"enable_rack_awareness"}) {
		t.Errorf("status.clusterConfig %+v, want enable_rack_awareness managed", st)
	}

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.RackAwareness = nil })
	h.settleRollout(40)
	if cfg := h.simConfig(); len(cfg) != 0 {
		t.Errorf("simulator config %s, want enable_rack_awareness back at its default", cfg)
	}
	if st := h.stored().Status.ClusterConfig; st == nil || st.Managed != nil {
		t.Errorf("status.clusterConfig %+v, want nothing managed", st)
	}
	if n := h.callsTo("PUT", "/v1/cluster_config"); n != 2 {
		t.Errorf("%d writes of the cluster config, want 2: on, then off", n)
	}
}
