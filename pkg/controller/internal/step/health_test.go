package step

import "testing"

func TestAssessHealth(t *testing.T) {
	tests := []struct {
		name    string
		r       HealthReport
		healthy bool
		want    string
	}{
		{"healthy", HealthReport{IsHealthy: true}, true, "healthy"},
		{"a broker down", HealthReport{NodesDown: []int{101}}, false, "brokers down: [101]"},
		{"leaderless and under-replicated", HealthReport{LeaderlessCount: 2, UnderReplicatedCount: 5},
			false, "2 leaderless partitions; 5 under-replicated partitions"},
		{"unhealthy with only Redpanda's reasons", HealthReport{UnhealthyReasons: []string{"nodes_in_recovery_mode"}},
			false, "cluster not healthy (nodes_in_recovery_mode)"},
		{"is_healthy true does not hide a down broker", HealthReport{IsHealthy: true, NodesDown: []int{7}}, false, "brokers down: [7]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := Assess(tt.r)
			if h.Healthy() != tt.healthy || h.String() != tt.want {
				t.Errorf("assess(%+v) = healthy %v %q, want %v %q", tt.r, h.Healthy(), h.String(), tt.healthy, tt.want)
			}
		})
	}
	if (Health{}).Healthy() {
		t.Error("an unknown health opens the gate")
	}
}

func TestHealthGateOverride(t *testing.T) {
	sick := Health{Known: true, Problems: []string{"brokers down: [1]"}}
	if !gateClosed(Observation{Health: sick}) {
		t.Error("gate open on an unhealthy cluster")
	}
	if !gateClosed(Observation{}) {
		t.Error("gate open with the health unknown")
	}
	if gateClosed(Observation{Health: sick, SkipHealthGate: true}) {
		t.Error("spec.unsafeSkipHealthGate did not open the gate")
	}
	if gateClosed(Observation{Health: Health{Known: true}}) {
		t.Error("gate closed on a healthy cluster")
	}
}
