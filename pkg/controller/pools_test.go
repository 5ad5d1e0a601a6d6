package controller

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
)

func bluePool(replicas int32) v1alpha1.BrokerPool {
	p := v1alpha1.BrokerPool{Name: "blue", Replicas: replicas, NodeSelector: map[string]string{"pool": "blue"}}
	p.Storage.Size = resource.MustParse("20Gi")
	return p
}

// members are the simulator's members by pool ("" for the default pool) and status.
func (h *harness) members() map[string]map[admin.MembershipStatus]int {
	out := map[string]map[admin.MembershipStatus]int{}
	for _, b := range h.cluster.Brokers() {
		if out[b.Pool] == nil {
			out[b.Pool] = map[admin.MembershipStatus]int{}
		}
		out[b.Pool][b.Status]++
	}
	return out
}

// seedHosts are the hosts the seeds ConfigMap names.
func (h *harness) seedHosts() []string {
	cm, err := h.kube.CoreV1().ConfigMaps(testNamespace).Get(h.ctx, testName+"-seeds", metav1.GetOptions{})
	if err != nil {
		h.t.Fatalf("seeds ConfigMap: %v", err)
	}
	hosts, _ := objects.SeedsOf(cm)
	return hosts
}

// TestMoveToAPool moves a cluster of three brokers to pool blue in one patch: blue's three
// brokers join first, and only then are the default pool's decommissioned, one at a time,
// each once; the seeds follow the brokers; the default pool ends empty and blue whole.
func TestMoveToAPool(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}})
	h.bringUp(3)
	old := h.nodeIDs()

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.Replicas = 0
		s.Pools = []v1alpha1.BrokerPool{bluePool(3)}
	})
	firstDecommissionSeen := false
	for i := range 60 {
		if _, err := h.reconcile(); err != nil {
			t.Logf("reconcile %d: %v", i, err)
		}
		m := h.members()
		if calls := h.decommissionCalls(); len(calls) > 0 && !firstDecommissionSeen {
			firstDecommissionSeen = true
			if m["blue"][admin.MembershipActive] != 3 {
				t.Fatalf("the first decommission (broker %d) came while blue had %d active brokers, want 3: %v", calls[0], m["blue"][admin.MembershipActive], m)
			}
		}
		if draining := m[""][admin.MembershipDraining] + m["blue"][admin.MembershipDraining]; draining > 1 {
			t.Fatalf("reconcile %d: %d brokers draining at once", i, draining)
		}
		bc := h.stored()
		if bc.Status.CurrentReplicas == 0 && bc.Status.DecommissioningBroker == nil && len(h.poolPods("")) == 0 &&
			meta.IsStatusConditionTrue(bc.Status.Conditions, v1alpha1.ConditionReady) {
			break
		}
	}
	bc := h.stored()
	if bc.Status.CurrentReplicas != 0 || bc.Status.DecommissioningBroker != nil {
		t.Fatalf("not moved: status %+v", bc.Status)
	}
	if !meta.IsStatusConditionTrue(bc.Status.Conditions, v1alpha1.ConditionReady) {
		t.Errorf("not Ready after the move: %v", bc.Status.Conditions)
	}
	calls := h.decommissionCalls()
	slices.Sort(calls)
	want := []int{}
	for _, id := range old {
		want = append(want, id)
	}
	slices.Sort(want)
	if !slices.Equal(calls, want) {
		t.Errorf("decommission calls %v, want each of the old brokers %v once", calls, want)
	}
	if got := len(h.poolPods("blue")); got != 3 {
		t.Errorf("blue runs %d pods, want 3", got)
	}
	if m := h.members(); m["blue"][admin.MembershipActive] != 3 || m[""][admin.MembershipActive] != 0 {
		t.Errorf("members after the move: %v", m)
	}
	wantPools := map[string]int32{v1alpha1.DefaultPoolName: 0, "blue": 3}
	for _, p := range bc.Status.Pools {
		if p.Replicas != wantPools[p.Name] || p.DecommissioningBroker != nil {
			t.Errorf("status.pools entry %+v, want %d brokers", p, wantPools[p.Name])
		}
	}
	if len(bc.Status.Pools) != 2 {
		t.Errorf("status.pools = %+v, want the default pool and blue", bc.Status.Pools)
	}
	for _, host := range h.seedHosts() {
		if !strings.HasPrefix(host, testName+"-blue-") {
			t.Errorf("seed %s after the move: every seed must be a broker of blue", host)
		}
	}
	if p := bc.Status.DisruptionPreview; p == nil || len(p.Disruptions) != 0 {
		t.Errorf("disruption preview %+v after the move, want nothing planned", p)
	}
	if n, events := h.countEvents("Normal BrokerJoined", "pod "+testName+"-blue-"); n != 3 {
		t.Errorf("%d BrokerJoined events for blue's pods, want 3: %v", n, events)
	}
}

// poolPods are the pods of the pool's StatefulSet ("" for the default pool).
func (h *harness) poolPods(pool string) []corev1.Pod {
	set := testName
	if pool != "" {
		set += "-" + pool
	}
	var out []corev1.Pod
	for _, p := range h.pods() {
		rest, ok := strings.CutPrefix(p.Name, set+"-")
		if ok && !strings.Contains(rest, "-") {
			out = append(out, p)
		}
	}
	return out
}

// notReady makes a pod not Ready, its broker down in the simulator, as a pod that cannot
// start would be.
func (h *harness) notReady(pool *admintest.Pool, set string, ordinal int) {
	h.t.Helper()
	name := set + "-" + strconv.Itoa(ordinal)
	pod, err := h.kube.CoreV1().Pods(testNamespace).Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
	if _, err := h.kube.CoreV1().Pods(testNamespace).UpdateStatus(h.ctx, pod, metav1.UpdateOptions{}); err != nil {
		h.t.Fatal(err)
	}
	pool.Down(ordinal)
	h.syncInformers()
}

// A move whose new broker cannot come up decommissions nothing, says which pod it waits for,
// and goes on once the pod is Ready.
func TestMoveWaitsForEveryNewBroker(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}})
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.Replicas = 0
		s.Pools = []v1alpha1.BrokerPool{bluePool(3)}
	})
	blue := h.cluster.Pool("blue")
	if _, err := h.reconcile(); err != nil { // blue scales up; its pods are made
		t.Fatal(err)
	}
	h.notReady(blue, testName+"-blue", 2)
	for range 10 {
		if _, err := h.reconcile(); err != nil {
			t.Logf("reconcile: %v", err)
		}
	}
	if calls := h.decommissionCalls(); len(calls) > 0 {
		t.Fatalf("decommissioned %v while blue's pod 2 was not Ready", calls)
	}
	scaling := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionScaling)
	if scaling == nil || !strings.Contains(scaling.Message, testName+"-blue-2") {
		t.Fatalf("Scaling condition %+v does not name the pod the move waits for", scaling)
	}
	// The pod comes back: the move goes on.
	pod, _ := h.kube.CoreV1().Pods(testNamespace).Get(h.ctx, testName+"-blue-2", metav1.GetOptions{})
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	if _, err := h.kube.CoreV1().Pods(testNamespace).UpdateStatus(h.ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	blue.Join(2)
	h.syncInformers()
	for range 30 {
		if _, err := h.reconcile(); err != nil {
			t.Logf("reconcile: %v", err)
		}
	}
	if bc := h.stored(); bc.Status.CurrentReplicas != 0 || len(h.decommissionCalls()) != 3 {
		t.Errorf("after blue-2 came back: C=%d, decommissions %v; want the move done", bc.Status.CurrentReplicas, h.decommissionCalls())
	}
}

// A new broker whose pod the scheduler finds no node for holds the move, and the Scaling
// condition says why in the scheduler's words once the pod's grace has passed, not only that
// the pod is not Ready.
func TestMoveSaysWhyANewBrokerCannotComeUp(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}})
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.Replicas = 0
		s.Pools = []v1alpha1.BrokerPool{bluePool(3)}
	})
	if _, err := h.reconcile(); err != nil { // blue scales up; its pods are made
		t.Fatal(err)
	}
	const why = "0/8 nodes are available: 8 node(s) had untolerated taint(s)."
	name := testName + "-blue-1"
	pod, err := h.kube.CoreV1().Pods(testNamespace).Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Spec.NodeName = ""
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled,
		Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, Message: why, LastTransitionTime: metav1.NewTime(h.clock.Now())}}}
	if _, err := h.kube.CoreV1().Pods(testNamespace).UpdateStatus(h.ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.cluster.Pool("blue").Down(1)
	// Its claim is there: it is a node that is missing (claimless.go deletes a pod without one).
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "datadir-" + name, Namespace: testNamespace}}
	if _, err := h.kube.CoreV1().PersistentVolumeClaims(testNamespace).Create(h.ctx, claim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.syncInformers()
	h.clock.Step(brokerpod.UnschedulableGrace)
	for range 5 {
		if _, err := h.reconcile(); err != nil {
			t.Logf("reconcile: %v", err)
		}
	}
	if calls := h.decommissionCalls(); len(calls) > 0 {
		t.Fatalf("decommissioned %v while blue's pod 1 had no node; events %v; status %+v", calls, h.events(), h.stored().Status)
	}
	scaling := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionScaling)
	for _, want := range []string{name, "cannot be scheduled", why} {
		if scaling == nil || !strings.Contains(scaling.Message, want) {
			t.Errorf("Scaling condition %+v lacks %q", scaling, want)
		}
	}
}

// A new broker whose pod is Ready but whose broker is down holds the move as well: joined
// means an active, alive member.
func TestMoveWaitsForANewBrokerThatIsDown(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}})
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.Replicas = 0
		s.Pools = []v1alpha1.BrokerPool{bluePool(3)}
	})
	for range 2 { // blue scales up, then its brokers are asked who they are
		if _, err := h.reconcile(); err != nil {
			t.Fatal(err)
		}
	}
	h.cluster.Pool("blue").Down(1)
	for range 10 {
		if _, err := h.reconcile(); err != nil {
			t.Logf("reconcile: %v", err)
		}
	}
	if calls := h.decommissionCalls(); len(calls) > 0 {
		t.Fatalf("decommissioned %v while blue's broker 1 was down", calls)
	}
	scaling := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionScaling)
	if scaling == nil || !strings.Contains(scaling.Message, testName+"-blue-1") || !strings.Contains(scaling.Message, "not alive") {
		t.Fatalf("Scaling condition %+v does not say blue-1's broker is down", scaling)
	}
}

// A change of mind half-way: the default pool set back to 3 recommissions the broker that
// drains, and blue's brokers leave through decommission.
func TestChangeOfMindDuringAMove(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}, drainTime: time.Hour})
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.Replicas = 0
		s.Pools = []v1alpha1.BrokerPool{bluePool(3)}
	})
	for range 20 {
		if _, err := h.reconcile(); err != nil {
			t.Logf("reconcile: %v", err)
		}
		if h.stored().Status.DecommissioningBroker != nil {
			break
		}
	}
	draining := h.stored().Status.DecommissioningBroker
	if draining == nil {
		t.Fatal("no decommission began")
	}
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.Replicas = 3
		s.Pools = []v1alpha1.BrokerPool{bluePool(0)}
	})
	for range 20 {
		if _, err := h.reconcile(); err != nil {
			t.Logf("reconcile: %v", err)
		}
		h.simClock.Advance(time.Hour) // drains finish
	}
	bc := h.stored()
	if bc.Status.CurrentReplicas != 3 || bc.Status.DecommissioningBroker != nil {
		t.Fatalf("after the change of mind: C=%d B=%v, want 3 and none", bc.Status.CurrentReplicas, bc.Status.DecommissioningBroker)
	}
	if n := h.callsTo("PUT", "/recommission"); n != 1 {
		t.Errorf("%d recommission calls, want 1 for broker %d", n, *draining)
	}
	if m := h.members(); m[""][admin.MembershipActive] != 3 || m["blue"][admin.MembershipActive] != 0 {
		t.Errorf("members after the change of mind: %v", m)
	}
	calls := h.decommissionCalls()
	if len(calls) != 4 {
		t.Errorf("decommission calls %v, want the default pool's first broker and blue's three", calls)
	}
	seen := map[int]bool{}
	for _, id := range calls {
		if seen[id] {
			t.Errorf("broker %d decommissioned twice: %v", id, calls)
		}
		seen[id] = true
	}
	if got := len(h.poolPods("blue")); got != 0 {
		t.Errorf("blue still runs %d pods", got)
	}
}

// Moving from one named pool to another by removing the old one from the list: green's
// brokers join, blue's leave one at a time, and once blue has none its StatefulSet and Service
// are deleted, a PoolRemoved event says so, and status.pools no longer lists it.
func TestMoveBetweenNamedPoolsRemovesTheOldOne(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue", "green"}})
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas, s.Pools = 0, []v1alpha1.BrokerPool{bluePool(3)} })
	for range 30 {
		if _, err := h.reconcile(); err != nil {
			t.Logf("reconcile: %v", err)
		}
	}
	blueIDs := map[int]bool{}
	for _, b := range h.cluster.Brokers() {
		if b.Pool == "blue" && b.Status == admin.MembershipActive {
			blueIDs[b.NodeID] = true
		}
	}
	if len(blueIDs) != 3 {
		t.Fatalf("blue has %d active brokers before the second move, want 3", len(blueIDs))
	}
	green := bluePool(3)
	green.Name = "green"
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Pools = []v1alpha1.BrokerPool{green} })
	for range 40 {
		if _, err := h.reconcile(); err != nil {
			t.Logf("reconcile: %v", err)
		}
	}
	bc := h.stored()
	if bc.Status.PoolsSummary != "default 0/0, green 3/3" {
		t.Errorf("pools after the second move: %q, want blue gone and green whole", bc.Status.PoolsSummary)
	}
	if _, err := h.kube.AppsV1().StatefulSets(testNamespace).Get(h.ctx, testName+"-blue", metav1.GetOptions{}); err == nil {
		t.Error("blue's StatefulSet is still there")
	}
	if _, err := h.kube.CoreV1().Services(testNamespace).Get(h.ctx, testName+"-blue", metav1.GetOptions{}); err == nil {
		t.Error("blue's Service is still there")
	}
	if n, _ := h.countEvents("Normal PoolRemoved", "pool blue"); n != 1 {
		t.Errorf("%d PoolRemoved events for blue, want 1: %v", n, h.events())
	}
	decommissioned := map[int]int{}
	for _, id := range h.decommissionCalls() {
		decommissioned[id]++
	}
	for id := range blueIDs {
		if decommissioned[id] != 1 {
			t.Errorf("blue's broker %d decommissioned %d times, want once", id, decommissioned[id])
		}
	}
	if m := h.members(); m["green"][admin.MembershipActive] != 3 {
		t.Errorf("members after the second move: %v", m)
	}
}

// A cluster made with its brokers in a pool from the start: the pool's pods found it, each
// listing all of them as seeds (Redpanda's founding brokers list identical seeds, each its own
// name among them), and no default StatefulSet is made.
func TestClusterBornInAPool(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}})
	bc := newBrokerCluster(0)
	bc.Spec.Pools = []v1alpha1.BrokerPool{bluePool(3)}
	h.create(bc)
	for range 10 {
		if _, err := h.reconcile(); err != nil {
			t.Logf("reconcile: %v", err)
		}
	}
	st := h.stored().Status
	if st.PoolsSummary != "default 0/0, blue 3/3" || !meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionReady) {
		t.Fatalf("status %+v, want blue's three brokers Ready", st)
	}
	want := []string{}
	for o := range 3 {
		want = append(want, admin.StableHostName(testName+"-blue", testNamespace, o, admin.DefaultClusterDomain))
	}
	if got := h.seedHosts(); !slices.Equal(got, want) {
		t.Errorf("seeds %v, want blue's founding pods %v", got, want)
	}
	if _, err := h.kube.AppsV1().StatefulSets(testNamespace).Get(h.ctx, testName, metav1.GetOptions{}); err == nil {
		t.Error("a default StatefulSet was made for a default pool of no broker")
	}
}

// Cluster properties are the whole cluster's: set in the same patch as a move, they are applied
// through a pool that has brokers, and the move goes on as it would, each old broker once.
func TestClusterConfigDuringAMove(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}})
	h.bringUp(3)
	old := h.nodeIDs()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.Replicas, s.Pools = 0, []v1alpha1.BrokerPool{bluePool(3)}
		s.ClusterConfig = map[string]string{segmentProperty: "268435456"}
	})
	for range 40 {
		h.reconcileAfterPoll()
	}
	bc := h.stored()
	if bc.Status.PoolsSummary != "default 0/0, blue 3/3" {
		t.Fatalf("after the move: %q", bc.Status.PoolsSummary)
	}
	if c := h.configCondition(); c.Status != metav1.ConditionTrue {
		t.Errorf("ConfigApplied %+v, want True", c)
	}
	cc, err := admin.NewClusterConfigClient(h.cluster.Pool("blue").Config(3))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := cc.ClusterConfig(h.ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(cfg[segmentProperty]); got != "268435456" {
		t.Errorf("%s on the brokers: %s, want 268435456 (config %v, events %v)", segmentProperty, got, cfg, h.events())
	}
	calls := h.decommissionCalls()
	slices.Sort(calls)
	want := []int{old[0], old[1], old[2]}
	slices.Sort(want)
	if !slices.Equal(calls, want) {
		t.Errorf("decommission calls %v, want each old broker %v once", calls, want)
	}
}

// A paused cluster starts no move: nothing of blue is made and nothing decommissioned, and its
// preview names the default pool's pods the move will remove, highest ordinal first; resumed,
// the move happens.
func TestPausedClusterStartsNoMove(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}})
	h.bringUp(3)
	h.setPaused(true)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas, s.Pools = 0, []v1alpha1.BrokerPool{bluePool(3)} })
	for range 5 {
		if _, err := h.reconcile(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.kube.AppsV1().StatefulSets(testNamespace).Get(h.ctx, testName+"-blue", metav1.GetOptions{}); err == nil {
		t.Error("a paused cluster made blue's StatefulSet")
	}
	if calls := h.decommissionCalls(); len(calls) > 0 {
		t.Errorf("a paused cluster decommissioned %v", calls)
	}
	var planned []string
	if p := h.stored().Status.DisruptionPreview; p != nil {
		for _, d := range p.Disruptions {
			planned = append(planned, fmt.Sprintf("%s %s: %s", d.Action, d.Pod, d.Reason))
		}
	}
	want := []string{}
	for _, o := range []int{2, 1, 0} {
		want = append(want, fmt.Sprintf("Decommission %s-%d: pool default: scaling down from 3 to 0 brokers", testName, o))
	}
	if !slices.Equal(planned, want) {
		t.Errorf("paused preview %q, want %q", planned, want)
	}
	h.setPaused(false)
	for range 40 {
		h.reconcileAfterPoll()
	}
	if got := h.stored().Status.PoolsSummary; got != "default 0/0, blue 3/3" {
		t.Errorf("after resuming: %q, want the move done", got)
	}
}
