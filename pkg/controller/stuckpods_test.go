package controller

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// failPulls does what the kubelet does with a pod whose image cannot be pulled: its container
// waits in ImagePullBackOff, the pod is not Ready, and its broker does not run.
func (h *harness) failPulls() {
	h.t.Helper()
	for _, p := range h.pods() {
		if p.Spec.Containers[0].Image != h.badImage || !brokerpod.IsReady(&p) {
			continue
		}
		p.Status = corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{
			Name: p.Spec.Containers[0].Name, Image: h.badImage,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "Back-off pulling image"}},
		}}}
		if _, err := h.kube.CoreV1().Pods(testNamespace).UpdateStatus(h.ctx, &p, metav1.UpdateOptions{}); err != nil {
			h.t.Fatal(err)
		}
		h.podDown(&p)
	}
}

// podDown tells the simulator that the broker of pod p, of any pool, is down.
func (h *harness) podDown(p *corev1.Pod) {
	h.t.Helper()
	if ordinal, ok := brokerpod.Ordinal(p, testName); ok {
		h.cluster.Down(ordinal)
		return
	}
	for _, pool := range h.cluster.Pools() {
		if ordinal, ok := brokerpod.Ordinal(p, testName+"-"+pool); ok {
			h.cluster.Pool(pool).Down(ordinal)
			return
		}
	}
	h.t.Fatalf("pod %s is of no pool the simulator serves", p.Name)
}

// An image that cannot be pulled stops the rollout at its first broker, with a condition and one
// Warning event that name the pod and the image; setting the image back heals the cluster with
// no manual step, never two brokers unavailable.
func TestABadImageWaitsNamingThePodAndItsFixHeals(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	good := h.stored().Spec.Image
	h.events()
	h.badImage = "redpanda:v25.2.9" // the next feature release, but a tag no registry has
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = h.badImage })
	var degraded *metav1.Condition
	for range 15 {
		h.reconcileAfterPoll()
		degraded = meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded)
		if degraded != nil && degraded.Reason == step.ReasonBrokerPodCannotStart {
			break
		}
	}
	if degraded == nil || degraded.Status != metav1.ConditionTrue || degraded.Reason != step.ReasonBrokerPodCannotStart ||
		!strings.Contains(degraded.Message, "redpanda-2") || !strings.Contains(degraded.Message, h.badImage) {
		t.Fatalf("Degraded %+v, want %s naming pod redpanda-2 and the image", degraded, step.ReasonBrokerPodCannotStart)
	}
	deletes := len(h.podDeletes())
	for range 3 { // waiting: nothing else is restarted, and the wait is told once
		h.reconcileAfterPoll()
	}
	if n := len(h.podDeletes()); n != deletes || deletes != 1 {
		t.Fatalf("%d pod deletes while the image cannot be pulled, want the first broker's alone", n)
	}
	events := strings.Join(h.events(), "\n")
	if strings.Count(events, "Warning ReleaseMaintenance") != 1 || strings.Count(events, "Warning WaitForStuckPod") > 1 {
		t.Errorf("events:\n%s\nwant the broker taken out of maintenance once, and at most one Warning WaitForStuckPod", events)
	}
	if calls := h.maintenanceCalls(); len(calls) != 2 || !strings.HasPrefix(calls[1], "off ") {
		t.Errorf("maintenance calls %v, want on and then off while the restart cannot finish", calls)
	}

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = good })
	h.rollOut(30, good)
	if o := h.sim.Overlaps(); len(o) > 0 {
		t.Errorf("two brokers unavailable at once: %v", o)
	}
	if !strings.Contains(strings.Join(h.events(), "\n"), "ReplaceStuckPod") {
		t.Error("the stuck pod was not replaced by the operator")
	}
	if d := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded); d == nil || d.Status != metav1.ConditionFalse {
		t.Errorf("Degraded %+v after the fix, want False", d)
	}
}

// drainingRestart brings up three brokers, sets a new image, and reconciles until the first
// broker's restart drains its leadership, which takes three poll intervals.
func (h *harness) drainingRestart() *v1alpha1.BrokerRestart {
	h.t.Helper()
	h.bringUp(3)
	h.cluster.SetMaintenanceDrainTime(pollInterval * 3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = "redpanda:v25.2.1" })
	for range 10 {
		h.reconcileAfterPoll()
		if r := h.stored().Status.Restart; r != nil && r.Step == v1alpha1.RestartDraining {
			return r
		}
	}
	h.t.Fatalf("restart %+v, want one draining its leadership", h.stored().Status.Restart)
	return nil
}

// A restart whose pod someone else deletes while its leadership drains (kubectl drain, kubectl
// delete pod) goes on with the pod that replaces it, maintenance mode on until its broker is
// back, and the rollout finishes.
func TestARestartWhosePodIsDeletedBySomeoneElseGoesOn(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	r := h.drainingRestart()
	// The apiserver has the delete before the broker stops: a pod's deletionTimestamp is set
	// before its kubelet stops the container.
	if err := h.kube.CoreV1().Pods(testNamespace).Delete(h.ctx, r.Pod, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.syncInformers()
	h.cluster.Down(int(r.Ordinal))
	h.events()
	h.rollOut(30, "redpanda:v25.2.1")
	events := strings.Join(h.events(), "\n")
	if !strings.Contains(events, "AdoptReplacedPod") || strings.Contains(events, "SuspendRestart") {
		t.Errorf("events %s\nwant the restart to adopt the replaced pod, never suspended", events)
	}
	if o := h.overlappingMaintenance(); len(o) > 0 {
		t.Errorf("maintenance overlaps: %v", o)
	}
}

// The same, when the pod cache has not seen the delete yet while the admin API, read afresh,
// already sees the broker down: the restart's pod is read from the apiserver, so the restart
// adopts the pod that replaces it, and is never suspended on the mix of a stale pod and a fresh
// broker list. Maintenance goes on once and off once.
func TestARestartWhosePodIsDeletedIsAdoptedBeforeThePodCacheSeesIt(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	r := h.drainingRestart()
	indexer := h.nc.podInformer.GetIndexer()
	obj, exists, err := indexer.GetByKey(testNamespace + "/" + r.Pod)
	if err != nil || !exists {
		t.Fatalf("pod %s not in the pod cache: %v", r.Pod, err)
	}
	old := obj.(*corev1.Pod).DeepCopy()
	if err := h.kube.CoreV1().Pods(testNamespace).Delete(h.ctx, r.Pod, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.syncInformers()
	// The cache lags: it still holds the deleted pod.
	if err := indexer.Add(old); err != nil {
		t.Fatal(err)
	}
	h.cluster.Down(int(r.Ordinal))
	h.simClock.Advance(pollInterval)
	if _, err := h.c.sync(h.ctx, testKey); err != nil {
		t.Logf("reconcile: %v", err)
	}
	if got := h.stored().Status.Restart; got == nil || got.Step != v1alpha1.RestartRestarting {
		t.Errorf("restart %+v after a reconcile on a pod cache that lags, want the replaced pod adopted (Restarting)", got)
	}
	h.rollOut(30, "redpanda:v25.2.1")
	events := strings.Join(h.events(), "\n")
	if strings.Contains(events, "SuspendRestart") {
		t.Errorf("events %s\nwant the restart never suspended", events)
	}
	var ofBroker []string
	for _, c := range h.maintenanceCalls() {
		if strings.HasSuffix(c, " "+strconv.Itoa(int(r.NodeID))) {
			ofBroker = append(ofBroker, c)
		}
	}
	if want := []string{"on " + strconv.Itoa(int(r.NodeID)), "off " + strconv.Itoa(int(r.NodeID))}; !slices.Equal(ofBroker, want) {
		t.Errorf("broker %d's maintenance calls %v, want %v", r.NodeID, ofBroker, want)
	}
}
