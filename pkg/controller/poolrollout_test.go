package controller

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	corev1 "k8s.io/api/core/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// bringUpWithBlue makes a cluster of two brokers in the default pool and two in pool blue, and
// reconciles until it is Ready.
func (h *harness) bringUpWithBlue() {
	h.t.Helper()
	bc := newBrokerCluster(2)
	bc.Spec.Pools = []v1alpha1.BrokerPool{bluePool(2)}
	h.create(bc)
	for range 15 {
		if _, err := h.reconcile(); err != nil {
			h.t.Logf("bring up: %v", err)
		}
	}
	st := h.stored().Status
	if st.PoolsSummary != "default 2/2, blue 2/2" || !meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionReady) {
		h.t.Fatalf("bring up: status %+v, want both pools' brokers Ready", st)
	}
}

// rollOutPools reconciles until no broker is being restarted and every pod of both pools was
// made from its pool's current template, checking after each reconcile that at most one pod is
// away at a time.
func (h *harness) rollOutPools(max int) {
	h.t.Helper()
	for range max {
		h.reconcileAfterPoll()
		if o := h.sim.Overlaps(); len(o) > 0 {
			h.t.Fatalf("two brokers unavailable at once: %v", o)
		}
		bc := h.stored()
		restarting := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionRestarting)
		if bc.Status.Restart == nil && restarting != nil && restarting.Status == metav1.ConditionFalse && len(h.pods()) == 4 {
			return
		}
	}
	h.t.Fatalf("rollout not done after %d reconciles: status %+v", max, h.stored().Status)
}

// restartedPods names the pods whose UID changed since before.
func (h *harness) restartedPods(before map[string]types.UID) []string {
	var out []string
	for name, uid := range h.podUIDs() {
		if before[name] != uid {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// maintenanceOns are the brokers put into maintenance, in order.
func (h *harness) maintenanceOns() []string {
	var out []string
	for _, c := range h.maintenanceCalls() {
		if strings.HasPrefix(c, "on ") {
			out = append(out, c)
		}
	}
	return out
}

// A change to one pool's fields restarts only that pool's brokers, one at a time; the other
// pool's pods stay as they were.
func TestAPoolsChangeRestartsOnlyItsBrokers(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}, guards: DefaultGuards()})
	h.bringUpWithBlue()
	before := h.podUIDs()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.Pools[0].Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}
	})
	h.rollOutPools(40)
	want := []string{testName + "-blue-0", testName + "-blue-1"}
	if got := h.restartedPods(before); !slices.Equal(got, want) {
		t.Errorf("restarted %v, want blue's pods alone %v", got, want)
	}
	if o := h.overlappingMaintenance(); len(o) > 0 {
		t.Errorf("two brokers in maintenance at once: %v", o)
	}
	if n := len(h.maintenanceOns()); n != 2 {
		t.Errorf("maintenance on %d times (%v), want once for each of blue's brokers", n, h.maintenanceCalls())
	}
	if n, events := h.countEvents("Normal StartRestart", "pod "+testName+"-blue-"); n != 2 {
		t.Errorf("%d StartRestart events for blue's pods, want 2: %v", n, events)
	}
}

// A change of the whole cluster (its image) restarts every pool's brokers, one at a time across
// the pools, and the controller leader, a broker of the default pool, last of all.
func TestAClusterWideChangeRestartsEveryPoolLeaderLast(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}, guards: DefaultGuards()})
	h.bringUpWithBlue()
	h.cluster.SetControllerLeader(0)
	leader, _ := h.cluster.NodeID(0)
	before := h.podUIDs()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = "redpanda:v25.2.1" })
	h.rollOutPools(80)
	if got := h.restartedPods(before); len(got) != 4 {
		t.Errorf("restarted %v, want every pod of both pools", got)
	}
	for _, p := range h.pods() {
		if p.Spec.Containers[0].Image != "redpanda:v25.2.1" {
			t.Errorf("pod %s runs %s after the rollout", p.Name, p.Spec.Containers[0].Image)
		}
	}
	if o := h.overlappingMaintenance(); len(o) > 0 {
		t.Errorf("two brokers in maintenance at once: %v", o)
	}
	ons := h.maintenanceOns()
	if len(ons) != 4 || ons[len(ons)-1] != fmt.Sprintf("on %d", leader) {
		t.Errorf("maintenance on %v, want each broker once and the controller leader %d last", ons, leader)
	}
}

// A rollout asked for during a move waits for the move: the move's brokers join and the old
// ones leave first, each once, and then the pods that remain restart, each once.
func TestARolloutDuringAMoveWaitsForIt(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}, guards: DefaultGuards()})
	h.bringUpWithBlue()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.Replicas = 1
		s.Pools[0].Replicas = 3
		s.Image = "redpanda:v25.2.1"
	})
	moved := false
	for i := range 80 {
		h.reconcileAfterPoll()
		bc := h.stored()
		if !moved {
			if bc.Status.Restart != nil {
				t.Fatalf("reconcile %d: a restart (%+v) began during the move (%s)", i, bc.Status.Restart, bc.Status.PoolsSummary)
			}
			moved = bc.Status.PoolsSummary == "default 1/1, blue 3/3" && bc.Status.DecommissioningBroker == nil
			continue
		}
		if bc.Status.Restart == nil && meta.IsStatusConditionFalse(bc.Status.Conditions, v1alpha1.ConditionRestarting) {
			break
		}
	}
	if !moved {
		t.Fatalf("the move did not finish: %s", h.stored().Status.PoolsSummary)
	}
	if calls := h.decommissionCalls(); len(calls) != 1 {
		t.Errorf("decommissions %v, want the default pool's one broker over", calls)
	}
	for _, p := range h.pods() {
		if p.Spec.Containers[0].Image != "redpanda:v25.2.1" {
			t.Errorf("pod %s runs %s after the move and the rollout", p.Name, p.Spec.Containers[0].Image)
		}
	}
	// default-0, blue-0 and blue-1 restart; blue-2, made by the move, has the new image.
	ons := h.maintenanceOns()
	if o := h.overlappingMaintenance(); len(o) > 0 || len(ons) != 3 {
		t.Errorf("maintenance on %v (overlaps %v): want once for each of the three brokers the move did not make", ons, o)
	}
}

// A restart asked for on a pool's pod (a node drain through the eviction webhook, or a person)
// restarts that broker alone.
func TestARestartAskedForOnAPoolsPod(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}, guards: DefaultGuards()})
	h.bringUpWithBlue()
	before := h.podUIDs()
	h.requestPodRestart(testName+"-blue-1", "eviction of pod "+testName+"-blue-1 (its node is cordoned)")
	h.rollOutPools(30)
	if got, want := h.restartedPods(before), []string{testName + "-blue-1"}; !slices.Equal(got, want) {
		t.Errorf("restarted %v, want %v alone", got, want)
	}
}

// A move outside every maintenance window grows the new pool at once, as adding brokers takes
// nothing away, and decommissions nothing until the window opens; a restart of the pool's
// brokers waits for the window likewise.
func TestAMoveWaitsForItsWindow(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}, guards: DefaultGuards()})
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.MaintenanceWindows = dailyAtOne })
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.Replicas = 0
		s.Pools = []v1alpha1.BrokerPool{bluePool(3)}
	})
	for range 15 {
		h.reconcileAfterPoll()
	}
	if calls := h.decommissionCalls(); len(calls) > 0 {
		t.Fatalf("outside the window: decommissions %v", calls)
	}
	if m := h.members(); m["blue"][admin.MembershipActive] != 3 {
		t.Fatalf("outside the window blue has %v, want its three brokers up: growing takes nothing away", m["blue"])
	}
	if got := h.nextWindow(); got != "2026-01-01T01:00:00Z" {
		t.Errorf("status.nextMaintenanceWindow = %q, want the window at 01:00", got)
	}
	h.clock.SetTime(time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC))
	for range 40 {
		h.reconcileAfterPoll()
		if st := h.stored().Status; st.PoolsSummary == "default 0/0, blue 3/3" && st.DecommissioningBroker == nil {
			break
		}
	}
	if st := h.stored().Status; st.PoolsSummary != "default 0/0, blue 3/3" || len(h.decommissionCalls()) != 3 {
		t.Errorf("inside the window: %s, decommissions %v; want the move done, each old broker once", st.PoolsSummary, h.decommissionCalls())
	}
}

// The preview of a cluster with pools names every pool's pods in the order the operator takes
// them: the move's decommission first, then the restarts, which wait for it, pool by pool,
// none of a pod the move removes.
func TestThePreviewOfAMoveAndARolloutNamesEveryPool(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}, guards: DefaultGuards()})
	h.bringUpWithBlue()
	h.setPaused(true)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.Replicas = 1
		s.Image = "redpanda:v25.2.1"
	})
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	var planned []string
	if p := h.stored().Status.DisruptionPreview; p != nil {
		for _, d := range p.Disruptions {
			planned = append(planned, fmt.Sprintf("%s %s", d.Action, d.Pod))
		}
	}
	want := []string{"Decommission " + testName + "-1", "Restart " + testName + "-0", "Restart " + testName + "-blue-1", "Restart " + testName + "-blue-0"}
	if !slices.Equal(planned, want) {
		t.Errorf("preview %q, want %q", planned, want)
	}
	if len(h.maintenanceCalls()) > 0 || len(h.decommissionCalls()) > 0 {
		t.Errorf("a paused cluster called maintenance %v, decommission %v", h.maintenanceCalls(), h.decommissionCalls())
	}
}

// The upgrade path counts every pool's brokers: with the default pool's brokers still on
// v24.3, an image of v25.2 is held before any broker of blue restarts, though blue's own brokers,
// on v25.1, could go there. The default pool runs the controller leader, so blue would go first.
func TestTheUpgradePathCountsEveryPool(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}, guards: DefaultGuards()})
	h.bringUpWithBlue()
	h.cluster.SetControllerLeader(0)
	for _, p := range h.poolPods("") {
		p.Spec.Containers[0].Image = "redpanda:v24.3.5"
		if _, err := h.kube.CoreV1().Pods(testNamespace).Update(h.ctx, &p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	h.syncInformers()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = "redpanda:v25.2.1" })
	for range 10 {
		h.reconcileAfterPoll()
	}
	if calls := h.maintenanceCalls(); len(calls) > 0 || len(h.podDeletes()) > 0 {
		t.Errorf("maintenance %v, deletes %v: a broker restarted onto v25.2 while the default pool's run v24.3", calls, h.podDeletes())
	}
	if n, events := h.countEvents("Warning HoldVersionChange", "runs v24.3.5"); n == 0 {
		t.Errorf("no HoldVersionChange event naming a broker on v24.3.5: %v", events)
	}
}

// A bad image is healed per pool: the rollout stops at blue's first broker, whose new pod cannot
// pull it, with Degraded naming the pod; the image set back, that pod is replaced and no other
// broker of any pool was restarted meanwhile.
func TestABadImageInAPoolIsHealed(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}, guards: DefaultGuards()})
	h.bringUpWithBlue()
	h.cluster.SetControllerLeader(0) // the default pool's: blue goes first
	good := h.stored().Spec.Image
	h.badImage = "redpanda:v25.2.9"
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = h.badImage })
	var degraded *metav1.Condition
	for range 15 {
		h.reconcileAfterPoll()
		degraded = meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded)
		if degraded != nil && degraded.Reason == step.ReasonBrokerPodCannotStart {
			break
		}
	}
	if degraded == nil || degraded.Reason != step.ReasonBrokerPodCannotStart || !strings.Contains(degraded.Message, testName+"-blue-1") {
		t.Fatalf("Degraded %+v, want %s naming pod %s-blue-1", degraded, step.ReasonBrokerPodCannotStart, testName)
	}
	if got := h.podDeletes(); len(got) != 1 {
		t.Fatalf("pods deleted %v while the image cannot be pulled, want blue's first alone", got)
	}
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = good })
	h.rollOutPools(30)
	for _, p := range h.pods() {
		if p.Spec.Containers[0].Image != good {
			t.Errorf("pod %s runs %s after the fix", p.Name, p.Spec.Containers[0].Image)
		}
	}
	if !strings.Contains(strings.Join(h.events(), "\n"), "ReplaceStuckPod") {
		t.Error("the stuck pod was not replaced by the operator")
	}
	if got := h.podDeletes(); len(got) != 2 || got[1] != testName+"-blue-1" {
		t.Errorf("pods deleted %v, want blue's first, then its stuck replacement", got)
	}
}
