package controller

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
)

// The harness's clock starts at 2026-01-01 00:00 UTC; this window opens every day at 01:00 for
// an hour.
var dailyAtOne = []v1alpha1.MaintenanceWindow{{Start: "01:00", Duration: metav1.Duration{Duration: time.Hour}}}

func (h *harness) nextWindow() string {
	if w := h.stored().Status.NextMaintenanceWindow; w != nil {
		return w.UTC().Format(time.RFC3339)
	}
	return ""
}

// A rollout asked for outside every window waits for the next one, with nothing called and the
// opening in status; inside the window it restarts brokers; when the window closes, the broker
// under way finishes and the next waits for the next window.
func TestARolloutWaitsForItsWindowAndStopsWhenItCloses(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.MaintenanceWindows = dailyAtOne })
	h.events()

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = "redpanda:v25.2.1" })
	for range 3 {
		h.reconcileAfterPoll()
	}
	if c := h.maintenanceCalls(); len(c) > 0 || len(h.podDeletes()) > 0 {
		t.Fatalf("outside the window: maintenance %v, deletes %v", c, h.podDeletes())
	}
	if got := h.nextWindow(); got != "2026-01-01T01:00:00Z" {
		t.Fatalf("status.nextMaintenanceWindow = %q, want the window at 01:00", got)
	}
	n, events := h.countEvents("Normal WaitForMaintenanceWindow", "2026-01-01T01:00:00Z")
	if n != 1 {
		t.Fatalf("%d WaitForMaintenanceWindow events naming the opening, want 1: %v", n, events)
	}

	// The window opens: the first broker restarts. Once its pod is being replaced, the window
	// closes.
	h.clock.SetTime(time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC))
	for range 20 {
		h.reconcileAfterPoll()
		if r := h.stored().Status.Restart; r != nil && r.Step == v1alpha1.RestartRestarting {
			break
		}
	}
	first := h.stored().Status.Restart
	if first == nil || first.Step != v1alpha1.RestartRestarting {
		t.Fatalf("no restart under way inside the window: %+v", h.stored().Status)
	}
	if h.nextWindow() != "" {
		t.Errorf("status.nextMaintenanceWindow = %q inside the window, want it cleared", h.nextWindow())
	}
	h.clock.SetTime(time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC))
	for range 20 {
		h.reconcileAfterPoll()
	}
	want := []string{fmt.Sprintf("on %d", first.NodeID), fmt.Sprintf("off %d", first.NodeID)}
	if got := h.maintenanceCalls(); !slices.Equal(got, want) {
		t.Fatalf("after the window closed, maintenance calls %v, want only broker %d's restart finished: %v", got, first.NodeID, want)
	}
	if st := h.stored().Status; st.Restart != nil || st.UpdatedReplicas != 1 {
		t.Fatalf("after the window closed: restart %+v, %d updated; want the one broker under way finished", st.Restart, st.UpdatedReplicas)
	}
	if got := h.nextWindow(); got != "2026-01-02T01:00:00Z" {
		t.Fatalf("status.nextMaintenanceWindow = %q, want the next day's window", got)
	}

	// The next window finishes the rollout.
	h.clock.SetTime(time.Date(2026, 1, 2, 1, 0, 0, 0, time.UTC))
	h.rollOut(40, "redpanda:v25.2.1")
	if o := h.overlappingMaintenance(); len(o) > 0 {
		t.Fatalf("two brokers in maintenance at once: %v", o)
	}
}

// A scale-down outside every window decommissions nothing and says why; inside one it goes on.
func TestAScaleDownWaitsForItsWindow(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.MaintenanceWindows = dailyAtOne })
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	for range 3 {
		h.reconcileAfterPoll()
	}
	if calls := h.decommissionCalls(); len(calls) > 0 {
		t.Fatalf("decommissioned %v outside the window", calls)
	}
	st := h.stored().Status
	scaling := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionScaling)
	if st.DecommissioningBroker != nil || scaling == nil || !strings.Contains(scaling.Message, "no maintenance window is open") {
		t.Fatalf("status %+v, Scaling %+v: want nothing decommissioning and the wait said", st, scaling)
	}

	h.clock.SetTime(time.Date(2026, 1, 1, 1, 30, 0, 0, time.UTC))
	h.settle(20)
	if calls := h.decommissionCalls(); len(calls) != 1 {
		t.Fatalf("decommission calls %v inside the window, want one", calls)
	}
}

// A restart asked for on the pod by a drain is not held by the windows: whoever asked chose
// the time. The rest of the rollout still waits.
func TestARestartAskedForOnThePodIsNotHeldByTheWindows(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.MaintenanceWindows = dailyAtOne })
	ids := h.nodeIDs()
	pod := testName + "-1"
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:"eviction of pod %s (its node is cordoned)"}}}`, objects.AnnotationRestartRequested, pod)
	if _, err := h.kube.CoreV1().Pods(testNamespace).Patch(h.ctx, pod, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	h.await("the annotated pod", func() bool {
		obj, ok, err := h.nc.raw.pods.GetByKey(testNamespace + "/" + pod)
		return err == nil && ok && obj.(*corev1.Pod).Annotations[objects.AnnotationRestartRequested] != ""
	})
	for range 20 {
		h.reconcileAfterPoll()
		if h.stored().Status.Restart == nil && slices.Contains(h.maintenanceCalls(), fmt.Sprintf("off %d", ids[1])) {
			break
		}
	}
	want := []string{fmt.Sprintf("on %d", ids[1]), fmt.Sprintf("off %d", ids[1])}
	if got := h.maintenanceCalls(); !slices.Equal(got, want) {
		t.Fatalf("maintenance calls %v outside the window, want the requested restart of broker %d only: %v", got, ids[1], want)
	}
}
