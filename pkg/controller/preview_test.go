package controller

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
)

// previewed lists a disruption preview as "Decommission redpanda-3", "Restart redpanda-0", ...
func previewed(p *v1alpha1.DisruptionPreview) []string {
	var out []string
	if p == nil {
		return nil
	}
	for _, d := range p.Disruptions {
		out = append(out, fmt.Sprintf("%s %s", d.Action, d.Pod))
	}
	return out
}

// requestRestart annotates the pod at ordinal as a person asking for its restart would.
func (h *harness) requestRestart(ordinal int, by string) {
	h.t.Helper()
	h.requestPodRestart(fmt.Sprintf("%s-%d", testName, ordinal), by)
}

// requestPodRestart annotates the pod named so, of any pool, as requestRestart does.
func (h *harness) requestPodRestart(name, by string) {
	h.t.Helper()
	pods := h.kube.CoreV1().Pods(testNamespace)
	p, err := pods.Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	p.Annotations[brokerpod.AnnotationRestartRequested] = by
	if _, err := pods.Update(h.ctx, p, metav1.UpdateOptions{}); err != nil {
		h.t.Fatal(err)
	}
	h.syncInformers()
}

// A change made while paused is previewed in status, and nothing else is done: the preview names
// the scale-down's broker, then the restarts (the one asked for first), each with its reason,
// and says the controller leader is not known yet. Resumed, the first status write, made before
// the decommission call, has the controller leader's pod last; the brokers are then removed and
// restarted in exactly that order, each restart's event naming the reason the preview gave, and
// the preview empties.
func TestAPausedClusterPreviewsItsChange(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(4)
	ids := h.nodeIDs()
	h.cluster.SetControllerLeader(2)
	h.setPaused(true)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 3; s.Image = "redpanda:v25.1.2" })
	h.requestRestart(0, "a person")
	callsBefore := len(h.cluster.Calls())
	for range 3 {
		h.reconcileAfterPoll()
	}
	if calls := h.cluster.Calls()[callsBefore:]; len(calls) > 0 {
		t.Errorf("a paused cluster's brokers were called: %+v", calls)
	}
	bc := h.stored()
	p := bc.Status.DisruptionPreview
	if got, want := previewed(p), []string{"Decommission redpanda-3", "Restart redpanda-0", "Restart redpanda-2", "Restart redpanda-1"}; !slices.Equal(got, want) {
		t.Fatalf("paused preview %v, want %v", got, want)
	}
	if p.ObservedGeneration != bc.Generation || bc.Status.ObservedGeneration == bc.Generation {
		t.Errorf("preview of generation %d, status of %d; want the preview of the spec (%d), status left as it was", p.ObservedGeneration, bc.Status.ObservedGeneration, bc.Generation)
	}
	image := "image redpanda:v25.1.1 to redpanda:v25.1.2"
	for _, d := range p.Disruptions {
		want := image
		switch {
		case d.Action == v1alpha1.DisruptionDecommission:
			want = "scaling down from 4 to 3 brokers"
		case d.Ordinal == 0:
			want = image + "; a restart asked for on its pod (broker-operator.dev/restart-requested: a person)"
		}
		if d.Reason != want || d.BrokerID == nil || int(*d.BrokerID) != ids[int(d.Ordinal)] || d.UnderWay {
			t.Errorf("paused preview of %s: %+v, want reason %q and broker %d", d.Pod, d, want, ids[int(d.Ordinal)])
		}
	}
	if p.ControllerLeader != nil || len(p.Notes) != 2 || !strings.Contains(p.Notes[0], "pre-flight") || !strings.Contains(p.Notes[1], "controller leader is not known") {
		t.Errorf("paused: controllerLeader %v, notes %q; want none, a note that the scale-down's pre-flight is still to come and one that the leader is not known",
			p.ControllerLeader, p.Notes)
	}

	h.setPaused(false)
	h.events()
	h.reconcileAfterPoll()
	first := h.stored().Status.DisruptionPreview
	planned := []string{"Decommission redpanda-3", "Restart redpanda-0", "Restart redpanda-1", "Restart redpanda-2"}
	if got := previewed(first); !slices.Equal(got, planned) || !first.Disruptions[0].UnderWay {
		t.Fatalf("resumed preview %v, want %v, the decommission under way", got, planned)
	}
	if first.ControllerLeader == nil || int(*first.ControllerLeader) != ids[2] || len(first.Notes) != 0 {
		t.Errorf("resumed: controllerLeader %v, notes %q; want %d and none", first.ControllerLeader, first.Notes, ids[2])
	}
	if got := h.decommissionCalls(); !slices.Equal(got, []int{ids[3]}) {
		t.Errorf("decommission calls %v after the first write, want [%d]", got, ids[3])
	}
	h.rollOut(80, "redpanda:v25.1.2")

	// What the operator did, from the simulator's call log: decommissions, then maintenance on
	// for each restart.
	podOf := map[int]string{}
	for ordinal, id := range ids {
		podOf[id] = fmt.Sprintf("%s-%d", testName, ordinal)
	}
	var done []string
	for _, id := range h.decommissionCalls() {
		done = append(done, "Decommission "+podOf[id])
	}
	for _, c := range h.maintenanceCalls() {
		var id int
		if _, err := fmt.Sscanf(c, "on %d", &id); err == nil {
			done = append(done, "Restart "+podOf[id])
		}
	}
	if !slices.Equal(done, planned) {
		t.Errorf("the operator did %v, the preview said %v", done, planned)
	}
	events := h.events()
	for _, d := range first.Disruptions[1:] {
		if !slices.ContainsFunc(events, func(e string) bool {
			return strings.HasPrefix(e, "Normal StartRestart") && strings.Contains(e, "(pod "+d.Pod+")") && strings.Contains(e, d.Reason)
		}) {
			t.Errorf("no StartRestart event of %s naming %q:\n%s", d.Pod, d.Reason, strings.Join(events, "\n"))
		}
	}
	if p := h.stored().Status.DisruptionPreview; p == nil || p.Disruptions != nil || p.ControllerLeader != nil || p.Notes != nil {
		t.Errorf("preview after the rollout: %+v, want it empty", p)
	}
}
