package controller

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokers"
)

// A drain that stops moving is reported once, with Redpanda's own numbers, and raising
// spec.replicas recovers it.
func TestStalledDrainIsReportedAndAScaleUpRecoversIt(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards(), drainTime: time.Hour})
	h.bringUp(3)
	ids := h.nodeIDs()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	if _, err := h.reconcile(); err != nil { // starts the decommission
		t.Fatal(err)
	}
	if _, err := h.reconcile(); err != nil { // first look at the drain
		t.Fatal(err)
	}
	h.events()
	progressing := h.stored().ResourceVersion
	h.simClock.Advance(10 * time.Minute) // the drain moves on: a poll that sees progress writes nothing
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	if rv := h.stored().ResourceVersion; rv != progressing {
		t.Errorf("a poll of a progressing drain wrote the status (resourceVersion %s to %s)", progressing, rv)
	}

	// The simulator's drain stands still while the operator's clock moves on.
	for range brokers.DrainStallPolls + 1 {
		h.clock.Step(pollInterval)
		if _, err := h.reconcile(); err != nil {
			t.Fatal(err)
		}
	}
	st := h.stored().Status
	scaling := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionScaling)
	if scaling == nil || !strings.Contains(scaling.Message, "partition replicas left") {
		t.Errorf("Scaling %+v, want the drain's replicas_left in its message", scaling)
	}
	degraded := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded)
	if degraded == nil || degraded.Status != metav1.ConditionTrue || degraded.Reason != ReasonDrainStalled ||
		!strings.Contains(degraded.Message, "partition replicas left") || !strings.Contains(degraded.Message, "raise spec.replicas") {
		t.Errorf("Degraded %+v, want %s with replicas_left and what to do", degraded, ReasonDrainStalled)
	}
	var stalls int
	for _, e := range h.events() {
		if strings.Contains(e, ReasonDrainStalled) {
			stalls++
		}
	}
	if stalls != 1 {
		t.Errorf("%d %s events, want 1", stalls, ReasonDrainStalled)
	}
	if h.callsTo("GET", "/decommission") == 0 {
		t.Error("the decommission status was never asked")
	}

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 3 })
	h.settle(5)
	st = h.stored().Status
	if st.DecommissioningBroker != nil || st.CurrentReplicas != 3 {
		t.Errorf("status %+v after the scale-up, want 3 brokers and no drain", st)
	}
	if c := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded); c.Status != metav1.ConditionFalse {
		t.Errorf("Degraded %+v after the scale-up", c)
	}
	for _, b := range h.cluster.Brokers() {
		if b.NodeID == ids[2] && b.Status != "active" {
			t.Errorf("broker %d is %s after the scale-up, want active", b.NodeID, b.Status)
		}
	}
}
