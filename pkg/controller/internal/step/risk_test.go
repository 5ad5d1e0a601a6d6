package step

import (
	"strings"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// With Redpanda's pre-restart probe, a restart waits on its own broker's risks, not on the
// whole cluster's health; without it (404) the health gate decides, and says so.
func TestRestartRiskComesFromTheBrokersOwnProbe(t *testing.T) {
	sick := Health{Known: true, Problems: []string{"3 under-replicated partitions"}}
	next := Victim{Ordinal: 2, ID: 102, IDKnown: true, Status: MemberActive}
	rollout := func(risk Risk) Rollout {
		return Rollout{Outdated: 1, AllReady: true, Next: next, NextPod: "redpanda-2", NextPodUID: "u2", Risk: risk}
	}
	tests := []struct {
		name   string
		health Health
		risk   Risk
		want   Kind
		says   string
	}{
		{"acks=1 risk on a healthy cluster", Health{Known: true}, Risk{Asked: true, Acks1DataLoss: []string{"kafka/orders/3"}}, WaitForHealthyCluster, "kafka/orders/3"},
		{"unavailable partitions", Health{Known: true}, Risk{Asked: true, Unavailable: []string{"kafka/a/0"}}, WaitForHealthyCluster, "make unavailable: kafka/a/0"},
		{"acks=all produce stopped", Health{Known: true}, Risk{Asked: true, FullAcksProduceUnavailable: []string{"kafka/a/1"}}, WaitForHealthyCluster, "acks=all"},
		{"under-replicated elsewhere, nothing at risk here", sick, Risk{Asked: true}, StartRestart, ""},
		{"RF=1 offline is reported, not blocking", Health{Known: true}, Risk{Asked: true, RF1Offline: []string{"kafka/scratch/0"}}, StartRestart, "RF=1 partitions go offline while it restarts: kafka/scratch/0"},
		{"RF=1 offline blocks when the spec says so", Health{Known: true}, Risk{Asked: true, RF1Offline: []string{"kafka/scratch/0"}, BlockRF1: true}, WaitForHealthyCluster, "spec.rollout.blockRF1Offline"},
		{"no probe before 25.1: the health gate decides", sick, Risk{Asked: true, NoProbe: true}, WaitForHealthyCluster, "Redpanda before 25.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Decide(Observation{Cluster: "redpanda", Desired: 3, Current: 3, Health: tt.health, Rollout: rollout(tt.risk)})
			if s.Kind != tt.want || !strings.Contains(s.Reason, tt.says) {
				t.Errorf("decide = %s (%s); want %s saying %q", s.Kind, s.Reason, tt.want, tt.says)
			}
		})
	}
	// A restart under way, maintenance on, whose broker's probe now shows a risk: suspended.
	r := &v1alpha1.BrokerRestart{Pod: "redpanda-2", Ordinal: 2, NodeID: 102, Step: v1alpha1.RestartDraining, PodUID: "u2"}
	o := Observation{Cluster: "redpanda", Desired: 3, Current: 3, Health: Health{Known: true}, Rollout: Rollout{Restart: r, Maintenance: MaintenanceDrained,
		PodReady: true, OthersUp: true, Risk: Risk{Asked: true, Acks1DataLoss: []string{"kafka/orders/3"}}}}
	if s := Decide(o); s.Kind != SuspendRestart || !strings.Contains(s.Reason, "kafka/orders/3") {
		t.Errorf("decide = %s (%s); want %s naming the partition", s.Kind, s.Reason, SuspendRestart)
	}
}
