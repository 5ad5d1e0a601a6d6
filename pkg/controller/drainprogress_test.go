package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
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
	for range drainStallPolls + 1 {
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

func TestStalledDrainDescribesAllocationFailures(t *testing.T) {
	r := &drainReport{status: admin.DecommissionStatus{ReplicasLeft: 9, AllocationFailures: []string{"kafka/a/0", "kafka/a/1", "kafka/b/0", "kafka/b/1", "kafka/b/2", "kafka/c/0"}}, stalled: true}
	msg := r.describe(7)
	for _, want := range []string{"broker 7", "9 partition replicas left", "6 cannot be placed", "kafka/a/0", "kafka/b/2, ...", "no progress"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
}

// The admin calls of one reconcile share a deadline: brokers that hang one after another
// cannot hold it for the sum of their timeouts.
func TestAdminCallsShareTheReconcileDeadline(t *testing.T) {
	sim := admintest.NewServer(admintest.Options{})
	defer sim.Close()
	cluster := sim.Cluster(testNamespace, testName)
	for o := range 3 {
		cluster.Join(o)
	}
	cluster.SetFault(admintest.Fault{Hang: true})
	cfg := cluster.Config(3)
	cfg.Timeout = 200 * time.Millisecond
	client, err := admin.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := withAdminDeadline(context.Background(), time.Now().Add(300*time.Millisecond))
	_, err = boundByDeadline(ctx, client).Brokers(context.Background())
	if err == nil {
		t.Fatal("a hanging cluster answered")
	}
	if !waitsOnAdmin(err) {
		t.Errorf("%v: want the cluster to wait on the admin API (Degraded), not a plain retry", err)
	}
	if n := len(cluster.Calls()); n >= 3 {
		t.Errorf("%d brokers asked; the deadline (300ms, 200ms per broker) must stop before the third", n)
	}
}
