package controller

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// A scale-down below the topic's replication factor is held before anything is
// decommissioned, with a condition naming the topic and one Warning event; raising
// spec.replicas back clears it, and once the factor drops a scale-down goes through by itself.
func TestScaleDownBelowTheReplicationFactorIsHeldUntilItFits(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.cluster.SetReplicationFactor(3)
	h.events()

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	for range 5 {
		h.reconcileAfterPoll()
	}
	if calls := h.decommissionCalls(); len(calls) > 0 {
		t.Fatalf("decommission calls %v while the data does not fit, want none", calls)
	}
	st := h.stored().Status
	if st.CurrentReplicas != 3 || st.DecommissioningBroker != nil {
		t.Errorf("status: currentReplicas %d, decommissioningBroker %s; want 3 and none", st.CurrentReplicas, step.OptionalID(st.DecommissioningBroker))
	}
	degraded := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded)
	if degraded == nil || degraded.Status != metav1.ConditionTrue || degraded.Reason != ReasonScaleDownWouldNotFit ||
		!strings.Contains(degraded.Message, "kafka/simulated") || !strings.Contains(degraded.Message, "replication factor 3") {
		t.Fatalf("Degraded %+v, want %s naming kafka/simulated and its factor", degraded, ReasonScaleDownWouldNotFit)
	}
	if scaling := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionScaling); scaling == nil || !strings.Contains(scaling.Message, "from 3 to 2 brokers is held") {
		t.Errorf("Scaling %+v, want the held scale-down from 3 to 2", scaling)
	}
	if warnings := countEvents(h.events(), "Warning HoldScaleDown"); warnings != 1 {
		t.Errorf("%d Warning HoldScaleDown events, want one", warnings)
	}

	// Raising spec.replicas back clears it.
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 3 })
	h.reconcileAfterPoll()
	if meta.IsStatusConditionTrue(h.stored().Status.Conditions, v1alpha1.ConditionDegraded) {
		t.Fatalf("Degraded still true after spec.replicas went back to 3: %+v", meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded))
	}
	if ended := countEvents(h.events(), "Normal HoldScaleDown"); ended != 1 {
		t.Errorf("%d Normal HoldScaleDown events once the hold ended, want one", ended)
	}

	// Held again; the factor drops, and the scale-down goes on by itself.
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	h.reconcileAfterPoll()
	if calls := h.decommissionCalls(); len(calls) > 0 {
		t.Fatalf("decommission calls %v while held again", calls)
	}
	h.cluster.SetReplicationFactor(2)
	h.settle(40)
	if calls := h.decommissionCalls(); len(calls) != 1 {
		t.Errorf("decommission calls %v after the factor dropped, want one", calls)
	}
}

// A topic whose factor rises between the decision and the decommission call is seen by the
// call's fresh check: the decommission is not made, and the scale-down is held.
func TestAFactorRaisedBeforeTheCallHoldsTheDecommission(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.cluster.SetReplicationFactor(2)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	// The decision reads the partitions once; the next read is the fresh check's.
	reads := 0
	h.onAdminCall(func(path string) {
		if path == "/v1/cluster/partitions" {
			if reads++; reads == 2 {
				h.cluster.SetReplicationFactor(3)
			}
		}
	})
	h.reconcileAfterPoll()
	if calls := h.decommissionCalls(); len(calls) > 0 {
		t.Fatalf("decommission calls %v after the factor rose to 3, want none", calls)
	}
	st := h.stored().Status
	if st.DecommissioningBroker != nil || meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded).Reason != ReasonScaleDownWouldNotFit {
		t.Errorf("status %+v, want no broker decommissioning and Degraded %s", st, ReasonScaleDownWouldNotFit)
	}
}

// With rack awareness on, a scale-down that would leave fewer racks than the factor needs is
// held; once the remaining brokers span enough racks it goes on.
func TestAScaleDownThatWouldLoseARackIsHeld(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	bc := newBrokerCluster(3)
	bc.Spec.RackAwareness = &v1alpha1.RackAwarenessSpec{}
	h.bringUpCluster(bc)
	h.cluster.SetReplicationFactor(2)
	for o, rack := range []string{"a", "a", "b"} {
		h.cluster.SetRack(o, rack)
	}
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	h.awaitHold("rack awareness", "only 1 of the 2 racks")
	h.cluster.SetRack(1, "b")
	h.settle(40)
	if calls := h.decommissionCalls(); len(calls) != 1 {
		t.Errorf("decommission calls %v once the remaining brokers span both racks, want one", calls)
	}
}

// A scale-down whose remaining brokers lack the free disk for the leaving broker's data, above
// Redpanda's own floor, is held; once there is room it goes on.
func TestAScaleDownWithoutRoomOnTheRemainingDisksIsHeld(t *testing.T) {
	const gi = int64(1) << 30
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.cluster.SetDisk(0, 30*gi, 100*gi)
	h.cluster.SetDisk(1, 30*gi, 100*gi)
	h.cluster.SetDisk(2, 20*gi, 100*gi)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	// 80 GiB to move; each remaining broker takes 30 less its 5 GiB floor.
	h.awaitHold("hold 80.0 GiB", "can take only 50.0 GiB", "storage_min_free_bytes")
	h.cluster.SetDisk(2, 60*gi, 100*gi)
	h.settle(40)
	if calls := h.decommissionCalls(); len(calls) != 1 {
		t.Errorf("decommission calls %v once the data fits, want one", calls)
	}
}

// Brokers without GET /v1/cluster/partitions (Redpanda before 23.3) answer 404: the
// scale-down goes on unchecked, and its event says so.
func TestAScaleDownOnBrokersWithoutThePartitionsRouteGoesOnUnchecked(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	sim := h.sim.Transport()
	h.c.brokers.SetTransport(roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if req.URL.Path == "/v1/cluster/partitions" {
			return &http.Response{StatusCode: http.StatusNotFound, Header: http.Header{"Content-Type": {"application/json"}},
				Body: io.NopCloser(strings.NewReader(`{"message":"Not found","code":404}`)), Request: req}, nil
		}
		return sim.RoundTrip(req)
	}))
	h.events()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	h.settle(40)
	if calls := h.decommissionCalls(); len(calls) != 1 {
		t.Errorf("decommission calls %v, want one", calls)
	}
	if !slices.ContainsFunc(h.events(), func(e string) bool {
		return strings.HasPrefix(e, "Normal StartDecommission") && strings.Contains(e, "is not checked")
	}) {
		t.Error("no StartDecommission event saying the pre-flight was not checked")
	}
}

// awaitHold reconciles a few times and checks that the scale-down is held, nothing
// decommissioned, with a Degraded message that says each of texts.
func (h *harness) awaitHold(texts ...string) {
	h.t.Helper()
	for range 5 {
		h.reconcileAfterPoll()
	}
	if calls := h.decommissionCalls(); len(calls) > 0 {
		h.t.Fatalf("decommission calls %v while held, want none", calls)
	}
	d := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded)
	if d == nil || d.Reason != ReasonScaleDownWouldNotFit {
		h.t.Fatalf("Degraded %+v, want %s", d, ReasonScaleDownWouldNotFit)
	}
	for _, text := range texts {
		if !strings.Contains(d.Message, text) {
			h.t.Errorf("Degraded message %q does not say %q", d.Message, text)
		}
	}
}

// onAdminCall calls f with the path of every admin call before the simulator answers it.
func (h *harness) onAdminCall(f func(path string)) {
	sim := h.sim.Transport()
	h.c.brokers.SetTransport(roundTripFunc(func(req *http.Request) (*http.Response, error) {
		f(req.URL.Path)
		return sim.RoundTrip(req)
	}))
}
