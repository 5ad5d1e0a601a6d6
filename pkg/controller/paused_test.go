package controller

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// setPaused sets or removes the pause annotation.
func (h *harness) setPaused(on bool) {
	h.t.Helper()
	bc := h.stored()
	if bc.Annotations == nil {
		bc.Annotations = map[string]string{}
	}
	if on {
		bc.Annotations[AnnotationPaused] = "true"
	} else {
		delete(bc.Annotations, AnnotationPaused)
	}
	if _, err := h.brokers.BrokersV1alpha1().BrokerClusters(testNamespace).Update(h.ctx, bc, metav1.UpdateOptions{}); err != nil {
		h.t.Fatal(err)
	}
	h.syncInformers()
}

// A paused cluster asks nothing of its brokers and writes nothing but its status: the Paused
// condition, once, with one event, and the preview of the change made while paused; resumed, it
// takes the scale-down asked for while it was paused.
func TestAPausedClusterDoesNothingUntilResumed(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.setPaused(true)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2; s.Image = "redpanda:v25.1.9" })
	callsBefore := len(h.cluster.Calls())
	kubeBefore, brokersBefore := len(h.kube.Actions()), len(h.brokers.Actions())
	for range 3 {
		h.reconcileAfterPoll()
	}
	if calls := h.cluster.Calls()[callsBefore:]; len(calls) > 0 {
		t.Errorf("a paused cluster's brokers were called: %+v", calls)
	}
	var writes []string
	for _, a := range append(h.kube.Actions()[kubeBefore:], h.brokers.Actions()[brokersBefore:]...) {
		if v := a.GetVerb(); v != "get" && v != "list" && v != "watch" {
			writes = append(writes, v+" "+a.GetResource().Resource+"/"+a.GetSubresource())
		}
	}
	if !slices.Equal(writes, []string{"patch brokerclusters/status"}) {
		t.Errorf("writes while paused: %v, want one status patch: the Paused condition and the preview", writes)
	}
	if p := h.stored().Status.DisruptionPreview; p == nil || p.ObservedGeneration != h.stored().Generation || len(p.Disruptions) != 3 {
		t.Errorf("preview while paused: %+v, want the scale-down and two restarts of the changed spec", p)
	}
	st := h.stored().Status
	if c := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionPaused); c == nil || c.Status != metav1.ConditionTrue || c.Reason != ReasonPaused {
		t.Errorf("Paused condition %+v", c)
	}
	if st.CurrentReplicas != 3 || st.ObservedGeneration == h.stored().Generation {
		t.Errorf("status moved while paused: current %d, observedGeneration %d", st.CurrentReplicas, st.ObservedGeneration)
	}
	if n := countEvents(h.events(), "Normal "+ReasonPaused); n != 1 {
		t.Errorf("%d Paused events, want 1", n)
	}

	h.setPaused(false)
	h.settle(40)
	if got := h.decommissionCalls(); len(got) != 1 {
		t.Errorf("decommission calls after resuming: %v, want one", got)
	}
	if c := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionPaused); c == nil || c.Status != metav1.ConditionFalse || c.Reason != ReasonResumed {
		t.Errorf("Paused condition after resuming: %+v", c)
	}
	if n := countEvents(h.events(), "Normal "+ReasonResumed); n != 1 {
		t.Errorf("%d Resumed events, want 1", n)
	}
}

func countEvents(events []string, prefix string) int {
	n := 0
	for _, e := range events {
		if strings.HasPrefix(e, prefix+" ") {
			n++
		}
	}
	return n
}
