package controller

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// maintenanceStarts lists when each broker went into maintenance, on the simulator's clock.
func (h *harness) maintenanceStarts() []time.Time {
	var out []time.Time
	for _, c := range h.cluster.Calls() {
		if c.Method == "PUT" && c.Status == 200 && c.NodeID >= 0 && c.Path == "/v1/brokers/"+strconv.Itoa(c.NodeID)+"/maintenance" {
			out = append(out, c.At)
		}
	}
	return out
}

// A restarted broker that replays its log for a while holds back the next restart until its own
// post_restart_probe says it has reclaimed its load; brokers older than 25.1, with no probe,
// restart at the pace they always did.
func TestTheNextRestartWaitsForTheLastBrokersRecovery(t *testing.T) {
	const recovery = 10 * pollInterval
	for _, tc := range []struct {
		version string
		waits   bool
	}{{"v25.1.2", true}, {"v24.3.9", false}} {
		t.Run(tc.version, func(t *testing.T) {
			h := newHarness(t, harnessOptions{guards: DefaultGuards(), version: tc.version})
			h.bringUp(3)
			h.cluster.SetRecoveryTime(recovery)
			h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = "redpanda:v25.2.1" })
			h.rollOut(80, "redpanda:v25.2.1")
			starts := h.maintenanceStarts()
			if len(starts) != 3 {
				t.Fatalf("%d brokers went into maintenance, want 3", len(starts))
			}
			for i := 1; i < len(starts); i++ {
				if gap := starts[i].Sub(starts[i-1]); (gap >= recovery) != tc.waits {
					t.Errorf("restart %d began %s after the one before; the recovery takes %s, waits for it: %t", i, gap, recovery, tc.waits)
				}
			}
			if n := h.counter("broker_operator_decisions_total", "kind", string(step.WaitForRecovery)); (n > 0) != tc.waits {
				t.Errorf("%v WaitForRecovery decisions, want some: %t", n, tc.waits)
			}
		})
	}
}

// The controller leader restarts last: restarting it early costs a controller election for
// every broker restarted after it.
func TestTheControllerLeaderRestartsLast(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	ids := h.nodeIDs()
	h.cluster.SetControllerLeader(2)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = "redpanda:v25.2.1" })
	h.rollOut(40, "redpanda:v25.2.1")
	var order []string
	for _, c := range h.maintenanceCalls() {
		if strings.HasPrefix(c, "on ") {
			order = append(order, c)
		}
	}
	want := []string{fmt.Sprintf("on %d", ids[1]), fmt.Sprintf("on %d", ids[0]), fmt.Sprintf("on %d", ids[2])}
	if !slices.Equal(order, want) {
		t.Errorf("restarted %v, want %v: highest ordinal first, the controller leader (ordinal 2) last", order, want)
	}
}
