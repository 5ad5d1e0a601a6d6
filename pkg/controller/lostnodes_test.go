package controller

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

var (
	volumesGVR = corev1.SchemeGroupVersion.WithResource("persistentvolumes")
	nodesGVR   = corev1.SchemeGroupVersion.WithResource("nodes")
	podsGVR    = corev1.SchemeGroupVersion.WithResource("pods")
)

func volumeName(ordinal int) string { return fmt.Sprintf("local-pv-%d", ordinal) }

// pinVolume plays a local volume provisioner for the broker at ordinal: its claim, bound to a
// local volume pinned to node by its node affinity.
func (h *harness) pinVolume(ordinal int, node string) {
	h.t.Helper()
	h.pinVolumeOf(claimName(ordinal), volumeName(ordinal), node)
}

// pinVolumeOf is pinVolume for the claim named claimName, bound to the volume named volume.
func (h *harness) pinVolumeOf(claimName, volume, node string) {
	h.t.Helper()
	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: claimName, Namespace: testNamespace},
		Spec:       corev1.PersistentVolumeClaimSpec{VolumeName: volume},
		Status:     corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound},
	}
	if existing, err := h.kube.CoreV1().PersistentVolumeClaims(testNamespace).Get(h.ctx, claim.Name, metav1.GetOptions{}); err == nil {
		claim = existing
		claim.Spec.VolumeName = volume
		err = h.kubeTrack.Update(claimsGVR, claim, testNamespace)
		if err != nil {
			h.t.Fatal(err)
		}
	} else if err := h.kubeTrack.Create(claimsGVR, claim, testNamespace); err != nil {
		h.t.Fatal(err)
	}
	stored, err := h.kube.CoreV1().PersistentVolumeClaims(testNamespace).Get(h.ctx, claim.Name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: volume},
		Spec: corev1.PersistentVolumeSpec{
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			ClaimRef:                      &corev1.ObjectReference{Namespace: testNamespace, Name: claim.Name, UID: stored.UID},
			PersistentVolumeSource:        corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/disks/broker"}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
			}}}},
		},
	}
	if err := h.kubeTrack.Create(volumesGVR, pv, ""); err != nil {
		h.t.Fatal(err)
	}
}

// loseNode does what a node's deletion does to the broker at ordinal, whose volume is pinned
// there: the pod garbage collector deletes its pod, and the StatefulSet makes it again, with no
// broker ID recorded; the scheduler cannot place it. The node object is left as the test made
// it (none: gone).
func (h *harness) loseNode(ordinal int) {
	h.t.Helper()
	h.loseNodeOf(fmt.Sprintf("%s-%d", testName, ordinal), func() { h.cluster.Down(ordinal) })
}

// loseNodeOf is loseNode for the pod named name, whose broker down does.
func (h *harness) loseNodeOf(name string, down func()) {
	h.t.Helper()
	old, err := h.kube.CoreV1().Pods(testNamespace).Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	if err := h.kubeTrack.Delete(podsGVR, testNamespace, name); err != nil {
		h.t.Fatal(err)
	}
	annotations := maps.Clone(old.Annotations)
	delete(annotations, brokerpod.AnnotationNodeID)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace, Labels: old.Labels, Annotations: annotations},
		Spec:       old.Spec,
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			Message:            "0/2 nodes are available: 2 node(s) had volume node affinity conflict.",
			LastTransitionTime: metav1.NewTime(h.clock.Now().Add(-time.Minute)),
		}}},
	}
	pod.Spec.NodeName = ""
	if err := h.kubeTrack.Create(podsGVR, pod, testNamespace); err != nil {
		h.t.Fatal(err)
	}
	down()
	h.syncInformers()
}

// writes lists the controller's writes to claims, volumes and pods, in order: "patch
// persistentvolumes/local-pv-2", "delete persistentvolumeclaims/datadir-redpanda-2".
func (h *harness) volumeWrites() []string {
	var out []string
	for _, a := range h.kube.Actions() {
		r := a.GetResource().Resource
		if r != "persistentvolumes" && r != "persistentvolumeclaims" && r != "pods" {
			continue
		}
		switch a := a.(type) {
		case k8stesting.DeleteActionImpl:
			out = append(out, "delete "+r+"/"+a.GetName())
		case k8stesting.PatchActionImpl:
			if r != "pods" {
				out = append(out, "patch "+r+"/"+a.GetName()+" "+string(a.GetPatch()))
			}
		}
	}
	return out
}

// notReadyPods counts the cluster's pods that are missing or not Ready.
func (h *harness) notReadyPods(replicas int) int {
	ready := 0
	for _, p := range h.pods() {
		if brokerpod.IsReady(&p) && p.DeletionTimestamp == nil {
			ready++
		}
	}
	return replicas - ready
}

func lostNodeCluster(recovery *v1alpha1.NodeLossRecoverySpec) *v1alpha1.BrokerCluster {
	bc := newBrokerCluster(3)
	bc.Spec.NodeLossRecovery = recovery
	bc.Spec.DecommissionGhostBrokers = recovery != nil
	return bc
}

// A broker whose volume's node is gone is reported, naming the pod, the claim, the volume and
// the node, with one Warning event, and nothing is deleted without spec.nodeLossRecovery. A node
// that exists again, even NotReady, ends it.
func TestABrokerWhoseNodeIsGoneIsReportedAndLeftAlone(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUpCluster(lostNodeCluster(nil))
	old := h.nodeIDs()[2]
	h.pinVolume(2, "node-2")
	h.events()
	h.loseNode(2)
	for range 3 {
		h.reconcileAfterPoll()
	}
	st := h.stored().Status
	want := v1alpha1.BrokerOnLostNode{Pod: "redpanda-2", Ordinal: 2, Claim: claimName(2), Volume: volumeName(2), Node: "node-2"}
	if len(st.BrokersOnLostNodes) != 1 {
		t.Fatalf("status.brokersOnLostNodes = %+v, want pod redpanda-2", st.BrokersOnLostNodes)
	}
	got := st.BrokersOnLostNodes[0]
	if got.Pod != want.Pod || got.Claim != want.Claim || got.Volume != want.Volume || got.Node != want.Node || got.NodeID == nil || int(*got.NodeID) != old {
		t.Errorf("status.brokersOnLostNodes = %+v, want %+v with node ID %d (from the members list: the new pod records none)", got, want, old)
	}
	lost := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionNodeLost)
	if lost == nil || lost.Status != metav1.ConditionTrue || lost.Reason != step.ReasonVolumeNodeGone ||
		!strings.Contains(lost.Message, "redpanda-2") || !strings.Contains(lost.Message, claimName(2)) || !strings.Contains(lost.Message, "node-2") {
		t.Errorf("NodeLost %+v, want True %s naming the pod, the claim and the node", lost, step.ReasonVolumeNodeGone)
	}
	degraded := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded)
	if degraded == nil || degraded.Reason != step.ReasonBrokerPodCannotStart || !strings.Contains(degraded.Message, "node node-2 no longer exists") ||
		!strings.Contains(degraded.Message, "set spec.nodeLossRecovery") {
		t.Errorf("Degraded %+v, want %s saying the node is gone and how to recover", degraded, step.ReasonBrokerPodCannotStart)
	}
	events := strings.Join(h.events(), "\n")
	if strings.Count(events, "Warning NodeLost") != 1 || !strings.Contains(events, "volume claim "+claimName(2)) {
		t.Errorf("events:\n%s\nwant one Warning NodeLost naming the claim", events)
	}
	if w := h.volumeWrites(); len(w) > 0 {
		t.Errorf("writes without spec.nodeLossRecovery: %v", w)
	}

	// The node comes back NotReady: never gone.
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-2"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown}}}}
	if err := h.kubeTrack.Create(nodesGVR, node, ""); err != nil {
		t.Fatal(err)
	}
	h.reconcileAfterPoll()
	st = h.stored().Status
	if lost := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionNodeLost); len(st.BrokersOnLostNodes) > 0 || lost == nil || lost.Status != metav1.ConditionFalse {
		t.Errorf("node back NotReady: brokersOnLostNodes %+v, NodeLost %+v; want none, False", st.BrokersOnLostNodes, lost)
	}
}

// With spec.nodeLossRecovery, once the node has been gone for the grace period, the volume is
// kept (Retain), the claim and then the pod deleted; the broker comes back with a new ID, the old
// one is decommissioned as a ghost, and never two brokers are unavailable.
func TestNodeLossRecoveryBringsTheBrokerBackUnderANewID(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUpCluster(lostNodeCluster(&v1alpha1.NodeLossRecoverySpec{GracePeriod: &metav1.Duration{Duration: 5 * time.Minute}}))
	old := h.nodeIDs()[2]
	h.pinVolume(2, "node-2")
	h.loseNode(2)
	h.reconcileAfterPoll()
	degraded := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded)
	if w := h.volumeWrites(); len(w) > 0 || degraded == nil || !strings.Contains(degraded.Message, "gone for 5m0s (in 5m0s)") {
		t.Fatalf("within the grace period: writes %v, Degraded %+v; want none, and the time left", w, degraded)
	}
	h.clock.Step(5 * time.Minute)
	h.cluster.SetPodVolume(2, "a new volume") // the StatefulSet's new claim: a fresh broker
	h.reconcileAfterPoll()
	want := []string{
		`patch persistentvolumes/local-pv-2 {"spec":{"persistentVolumeReclaimPolicy":"Retain"}}`,
		"delete persistentvolumeclaims/" + claimName(2),
		"delete pods/redpanda-2",
	}
	if w := h.volumeWrites(); !slices.Equal(w, want) {
		t.Fatalf("writes %v, want %v", w, want)
	}
	if !slices.ContainsFunc(h.events(), func(e string) bool { return strings.HasPrefix(e, "Warning RecoverLostBroker") }) {
		t.Error("no Warning RecoverLostBroker event")
	}
	for range 10 {
		h.reconcileAfterPoll()
		if n := h.notReadyPods(3); n > 1 {
			t.Fatalf("%d brokers unavailable at once", n)
		}
		if slices.Contains(h.decommissionCalls(), old) && len(h.stored().Status.BrokersOnLostNodes) == 0 {
			break
		}
	}
	if ids := h.nodeIDs(); ids[2] == old {
		t.Errorf("ordinal 2 runs broker %d again, want a new ID", old)
	}
	if calls := h.decommissionCalls(); !slices.Equal(calls, []int{old}) {
		t.Errorf("decommission calls %v, want the old ID %d alone", calls, old)
	}
	st := h.stored().Status
	if lost := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionNodeLost); len(st.BrokersOnLostNodes) > 0 || lost == nil || lost.Status != metav1.ConditionFalse {
		t.Errorf("after the recovery: brokersOnLostNodes %+v, NodeLost %+v; want none, False", st.BrokersOnLostNodes, lost)
	}
}

// The recovery's facts are read right before the deletes: a node that is back, another broker
// down, or a second lost broker stops it.
func TestNodeLossRecoveryHoldsOnFreshFacts(t *testing.T) {
	recovery := &v1alpha1.NodeLossRecoverySpec{GracePeriod: &metav1.Duration{}}
	t.Run("the node is back at the fresh read", func(t *testing.T) {
		h := newHarness(t, harnessOptions{guards: DefaultGuards()})
		h.bringUpCluster(lostNodeCluster(recovery))
		h.pinVolume(2, "node-2")
		h.loseNode(2)
		gets := 0
		h.kube.PrependReactor("get", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
			if gets++; gets == 2 { // the decision's read saw it gone; it is back for the fact's
				_ = h.kubeTrack.Create(nodesGVR, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-2"}}, "")
			}
			return false, nil, nil
		})
		h.reconcileAfterPoll()
		degraded := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded)
		if w := h.volumeWrites(); len(w) > 0 || degraded == nil || !strings.Contains(degraded.Message, "node node-2 exists again") {
			t.Fatalf("writes %v, Degraded %+v; want none, naming the node that is back", w, degraded)
		}
	})
	t.Run("another broker is down at the fresh read", func(t *testing.T) {
		h := newHarness(t, harnessOptions{guards: DefaultGuards()})
		h.bringUpCluster(lostNodeCluster(recovery))
		h.pinVolume(2, "node-2")
		h.loseNode(2)
		h.cluster.Down(0) // its pod still looks Ready
		h.reconcileAfterPoll()
		degraded := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded)
		if w := h.volumeWrites(); len(w) > 0 || degraded == nil || degraded.Reason != step.ReasonClusterUnhealthy || !strings.Contains(degraded.Message, "every other broker up") {
			t.Fatalf("writes %v, Degraded %+v; want none, %s naming the fact", w, degraded, step.ReasonClusterUnhealthy)
		}
	})
	t.Run("two brokers lost", func(t *testing.T) {
		h := newHarness(t, harnessOptions{guards: DefaultGuards()})
		h.bringUpCluster(lostNodeCluster(recovery))
		h.pinVolume(1, "node-1")
		h.pinVolume(2, "node-2")
		h.loseNode(1)
		h.loseNode(2)
		h.reconcileAfterPoll()
		degraded := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded)
		if w := h.volumeWrites(); len(w) > 0 || degraded == nil || !strings.Contains(degraded.Message, "2 brokers are on nodes that are gone") {
			t.Fatalf("writes %v, Degraded %+v; want none, saying two are lost", w, degraded)
		}
		if n := len(h.stored().Status.BrokersOnLostNodes); n != 2 {
			t.Errorf("%d brokers on lost nodes recorded, want 2", n)
		}
	})
}

// The recovery's irreversible deletes hold their facts at the instant they are made, whatever
// changes between the operator's calls: before any admin call and any status write, an
// adversary may take another broker down or bring it back, or make the node exist again or go
// again. At the claim's delete and the pod's, the node must be absent and every other member
// alive and not draining, judged from the apiserver's and the simulator's own state. Once the
// adversary stops (after ten reconciles, every broker back and the node gone), the recovery
// ends with the broker back under a new ID.
func TestNodeLossRecoveryHoldsItsFactsUnderAnAdversary(t *testing.T) {
	judged := 0
	for seed := range uint64(30) {
		h := newHarness(t, harnessOptions{guards: DefaultGuards()})
		h.bringUpCluster(lostNodeCluster(&v1alpha1.NodeLossRecoverySpec{GracePeriod: &metav1.Duration{}}))
		old := h.nodeIDs()[2]
		h.pinVolume(2, "node-2")
		h.loseNode(2)
		h.cluster.SetPodVolume(2, "a new volume")
		rng := rand.New(rand.NewPCG(seed, 0x10de))
		var mu sync.Mutex
		active, budget := false, 1+rng.IntN(6)
		var trace []string
		act := func(where string) {
			mu.Lock()
			defer mu.Unlock()
			if !active || budget <= 0 || rng.IntN(2) != 0 {
				return
			}
			budget--
			switch o := rng.IntN(2); rng.IntN(3) {
			case 0:
				h.cluster.Down(o)
				trace = append(trace, fmt.Sprintf("%s: ordinal %d down", where, o))
			case 1:
				h.cluster.Join(o)
				trace = append(trace, fmt.Sprintf("%s: ordinal %d up", where, o))
			default:
				if err := h.kubeTrack.Create(nodesGVR, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-2"}}, ""); err != nil {
					_ = h.kubeTrack.Delete(nodesGVR, "", "node-2")
					trace = append(trace, where+": node-2 gone again")
				} else {
					trace = append(trace, where+": node-2 back")
				}
			}
		}
		judge := func(what string) {
			mu.Lock()
			defer mu.Unlock()
			judged++
			if _, err := h.kubeTrack.Get(nodesGVR, "", "node-2"); err == nil {
				t.Errorf("seed %d: %s while node-2 exists\n%s", seed, what, strings.Join(trace, "\n"))
			}
			for _, b := range h.cluster.Brokers() {
				if b.NodeID != old && b.Status != "removed" && (!b.PodRunning || b.Status != "active") {
					t.Errorf("seed %d: %s while broker %d is %s, running %v\n%s", seed, what, b.NodeID, b.Status, b.PodRunning, strings.Join(trace, "\n"))
				}
			}
		}
		sim := h.sim.Transport()
		h.c.brokers.SetTransport(roundTripFunc(func(req *http.Request) (*http.Response, error) {
			act("before " + req.Method + " " + req.URL.Path)
			return sim.RoundTrip(req)
		}))
		h.brokers.PrependReactor("patch", "brokerclusters", func(k8stesting.Action) (bool, runtime.Object, error) {
			act("before a status write")
			return false, nil, nil
		})
		for _, resource := range []string{"persistentvolumeclaims", "pods"} {
			h.kube.PrependReactor("delete", resource, func(a k8stesting.Action) (bool, runtime.Object, error) {
				judge("delete " + resource + "/" + a.(k8stesting.DeleteAction).GetName())
				return false, nil, nil
			})
		}
		for i := range 30 {
			mu.Lock()
			active = i < 10
			mu.Unlock()
			h.reconcileAfterPoll()
			mu.Lock()
			active = false
			if i == 9 { // every broker back and the node gone, once
				budget = 0
				h.cluster.Join(0)
				h.cluster.Join(1)
				_ = h.kubeTrack.Delete(nodesGVR, "", "node-2")
			}
			mu.Unlock()
			if id, ok := h.cluster.NodeID(2); ok && id != old && slices.Contains(h.decommissionCalls(), old) {
				break
			}
		}
		if id, ok := h.cluster.NodeID(2); !ok || id == old {
			t.Errorf("seed %d: ordinal 2 not back under a new ID (%d, %v)\n%s\nstatus %+v\nbrokers %+v\nevents %v", seed, id, ok, strings.Join(trace, "\n"), h.stored().Status, h.cluster.Brokers(), h.events())
		}
	}
	if judged == 0 {
		t.Error("no delete was judged")
	}
}

// A pool's broker whose volume's node is gone is found and, with spec.nodeLossRecovery, brought
// back as a cluster's own is: its claim and pod deleted once the grace has passed, every other
// broker, of any pool, up; the other pools' pods untouched.
func TestNodeLossRecoveryOfAPoolsBroker(t *testing.T) {
	h := newHarness(t, harnessOptions{pools: []string{"blue"}, guards: DefaultGuards()})
	bc := lostNodeCluster(&v1alpha1.NodeLossRecoverySpec{GracePeriod: &metav1.Duration{Duration: 5 * time.Minute}})
	bc.Spec.Replicas = 2
	bc.Spec.Pools = []v1alpha1.BrokerPool{bluePool(2)}
	h.create(bc)
	for range 15 {
		if _, err := h.reconcile(); err != nil {
			t.Logf("bring up: %v", err)
		}
	}
	blue := h.cluster.Pool("blue")
	set, claim := testName+"-blue", "datadir-"+testName+"-blue-1"
	h.pinVolumeOf(claim, "local-pv-blue-1", "node-blue-1")
	h.loseNodeOf(set+"-1", func() { blue.Down(1) })
	h.reconcileAfterPoll()
	st := h.stored().Status
	if w := h.volumeWrites(); len(w) > 0 || len(st.BrokersOnLostNodes) != 1 || st.BrokersOnLostNodes[0].Pod != set+"-1" {
		t.Fatalf("within the grace period: writes %v, brokersOnLostNodes %+v; want none, and blue's pod 1 named", w, st.BrokersOnLostNodes)
	}
	h.clock.Step(5 * time.Minute)
	blue.SetPodVolume(1, "a new volume")
	h.reconcileAfterPoll()
	want := []string{
		`patch persistentvolumes/local-pv-blue-1 {"spec":{"persistentVolumeReclaimPolicy":"Retain"}}`,
		"delete persistentvolumeclaims/" + claim,
		"delete pods/" + set + "-1",
	}
	if w := h.volumeWrites(); !slices.Equal(w, want) {
		t.Fatalf("writes %v, want %v", w, want)
	}
}
