package controller

import "testing"

func TestAssessHealth(t *testing.T) {
	tests := []struct {
		name    string
		r       healthReport
		healthy bool
		want    string
	}{
		{"healthy", healthReport{IsHealthy: true}, true, "healthy"},
		{"a broker down", healthReport{NodesDown: []int{101}}, false, "brokers down: [101]"},
		{"leaderless and under-replicated", healthReport{LeaderlessCount: 2, UnderReplicatedCount: 5},
			false, "2 leaderless partitions; 5 under-replicated partitions"},
		{"unhealthy with only Redpanda's reasons", healthReport{UnhealthyReasons: []string{"nodes_in_recovery_mode"}},
			false, "cluster not healthy (nodes_in_recovery_mode)"},
		{"is_healthy true does not hide a down broker", healthReport{IsHealthy: true, NodesDown: []int{7}}, false, "brokers down: [7]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := assess(tt.r)
			if h.healthy() != tt.healthy || h.String() != tt.want {
				t.Errorf("assess(%+v) = healthy %v %q, want %v %q", tt.r, h.healthy(), h.String(), tt.healthy, tt.want)
			}
		})
	}
	if (health{}).healthy() {
		t.Error("an unknown health opens the gate")
	}
}

func TestHealthGateOverride(t *testing.T) {
	sick := health{Known: true, Problems: []string{"brokers down: [1]"}}
	if !gateClosed(observation{Health: sick}) {
		t.Error("gate open on an unhealthy cluster")
	}
	if !gateClosed(observation{}) {
		t.Error("gate open with the health unknown")
	}
	if gateClosed(observation{Health: sick, SkipHealthGate: true}) {
		t.Error("spec.unsafeSkipHealthGate did not open the gate")
	}
	if gateClosed(observation{Health: health{Known: true}}) {
		t.Error("gate closed on a healthy cluster")
	}
}
