package controller

import (
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// decommissionOutside decommissions a broker behind the operator's back, as another tool would.
func decommissionOutside(t *testing.T, h *harness, id int) {
	t.Helper()
	client, err := admin.NewClient(h.cluster.Config(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Decommission(h.ctx, id); err != nil {
		t.Fatal(err)
	}
}

func TestAdminCheckSkipsABrokerThatHasLeft(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	victim := h.nodeIDs()[2]
	decommissionOutside(t, h, victim)
	h.cluster.FinishDrains()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })

	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	st := h.stored().Status
	if st.CurrentReplicas != 2 || st.DecommissioningBroker != nil {
		t.Errorf("status %+v, want 2 brokers and nothing decommissioning", st)
	}
	if calls := h.decommissionCalls(); len(calls) != 1 {
		t.Errorf("decommission calls %v: the operator decommissioned a broker that had left", calls)
	}
	if d := h.sim.DoubleDecommissions(); len(d) != 0 {
		t.Errorf("double decommissions %v", d)
	}
	if n := h.counter("broker_operator_guard_fired_total", "guard", guardAdminCheck); n != 1 {
		t.Errorf("admin_check guard fired %v times, want 1", n)
	}
	if l := h.sim.LeftBeforeDecommission(); len(l) != 0 {
		t.Errorf("left before decommission: %v", l)
	}
}

func TestAdminCheckAdoptsADrainInProgress(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards(), drainTime: time.Hour})
	h.bringUp(3)
	victim := h.nodeIDs()[2]
	decommissionOutside(t, h, victim)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })

	res, err := h.reconcile()
	if err != nil {
		t.Fatal(err)
	}
	if b := h.stored().Status.DecommissioningBroker; b == nil || int(*b) != victim {
		t.Fatalf("decommissioningBroker %v, want %d adopted", b, victim)
	}
	if res.RequeueAfter != pollInterval {
		t.Errorf("requeue after %v, want %v", res.RequeueAfter, pollInterval)
	}
	if calls := h.decommissionCalls(); len(calls) != 1 {
		t.Errorf("decommission calls %v: a draining broker was decommissioned again", calls)
	}
	if n := h.counter("broker_operator_guard_fired_total", "guard", guardAdminCheck); n != 1 {
		t.Errorf("admin_check guard fired %v times, want 1 (the second decommission it avoided)", n)
	}

	h.simClock.Advance(2 * time.Hour)
	h.settle(5)
	if d := h.sim.DoubleDecommissions(); len(d) != 0 {
		t.Errorf("double decommissions %v", d)
	}
	if l := h.sim.LeftBeforeDecommission(); len(l) != 0 {
		t.Errorf("left before decommission: %v", l)
	}
}
