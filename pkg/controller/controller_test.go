package controller

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
)

func TestNewClusterGetsOwnedObjects(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	bc := newBrokerCluster(3)
	bc.Spec.Storage.StorageClassName = ptr.To("fast")
	h.create(bc)

	res, err := h.reconcile()
	if err != nil {
		t.Fatal(err)
	}
	if res.RequeueAfter != 0 {
		t.Errorf("requeue after %v; a scale-up waits on nothing", res.RequeueAfter)
	}
	st := h.stored().Status
	if st.CurrentReplicas != 3 || st.ObservedGeneration != 1 || st.Selector == "" {
		t.Errorf("status %+v, want currentReplicas 3, observedGeneration 1 and a selector", st)
	}
	if ready := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionReady); ready == nil || ready.Status != metav1.ConditionFalse || ready.Reason != ReasonBrokersNotReady {
		t.Errorf("Ready condition %+v before any pod runs", ready)
	}
	owner := h.stored().UID

	sts := h.statefulSet()
	if sts == nil || *sts.Spec.Replicas != 3 {
		t.Fatalf("StatefulSet %+v, want 3 replicas", sts)
	}
	if ref := metav1.GetControllerOf(sts); ref == nil || ref.UID != owner || ref.Kind != "BrokerCluster" {
		t.Errorf("StatefulSet controller reference %+v", ref)
	}
	if sts.Spec.ServiceName != testName || sts.Spec.Template.Spec.Containers[0].Image != "redpanda:v25.1.1" {
		t.Errorf("StatefulSet spec %+v", sts.Spec)
	}
	if !slices.ContainsFunc(sts.Spec.Template.Spec.Containers[0].Ports, func(p corev1.ContainerPort) bool {
		return p.Name == "admin" && p.ContainerPort == 9644
	}) {
		t.Errorf("broker container has no admin port: %+v", sts.Spec.Template.Spec.Containers[0].Ports)
	}
	vct := sts.Spec.VolumeClaimTemplates
	if len(vct) != 1 || !vct[0].Spec.Resources.Requests[corev1.ResourceStorage].Equal(resource.MustParse("10Gi")) || ptr.Deref(vct[0].Spec.StorageClassName, "") != "fast" {
		t.Errorf("volume claim templates %+v", vct)
	}

	svc, err := h.kube.CoreV1().Services(testNamespace).Get(h.ctx, testName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Spec.ClusterIP != corev1.ClusterIPNone || metav1.GetControllerOf(svc).UID != owner {
		t.Errorf("Service %+v is not headless or not owned", svc.Spec)
	}
	pdb, err := h.kube.PolicyV1().PodDisruptionBudgets(testNamespace).Get(h.ctx, testName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *pdb.Spec.MaxUnavailable != intstr.FromInt32(1) || metav1.GetControllerOf(pdb).UID != owner {
		t.Errorf("PDB %+v", pdb.Spec)
	}

	// The pods run; the next reconciles record their broker IDs and report Ready.
	h.settle(3)
	ids := h.nodeIDs()
	for _, p := range h.pods() {
		ordinal, _ := brokerpod.Ordinal(&p, testName)
		if id, ok := brokerpod.NodeID(&p); !ok || int(id) != ids[ordinal] {
			t.Errorf("pod %s: node-id annotation %q, simulator says %d", p.Name, p.Annotations[AnnotationNodeID], ids[ordinal])
		}
	}
	if st := h.stored().Status; st.ReadyReplicas != 3 || !meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionReady) {
		t.Errorf("status %+v, want 3 ready and Ready", st)
	}

	// Steady: another reconcile writes nothing.
	before := len(h.kube.Actions()) + len(h.brokers.Actions())
	if _, err := h.c.sync(h.ctx, testKey); err != nil {
		t.Fatal(err)
	}
	if after := len(h.kube.Actions()) + len(h.brokers.Actions()); after != before {
		t.Errorf("a steady reconcile made %d API calls: %v", after-before, h.kube.Actions()[before:])
	}
}

func TestScaleUp(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 5 })

	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	if st := h.stored().Status; st.CurrentReplicas != 5 {
		t.Errorf("currentReplicas %d, want 5", st.CurrentReplicas)
	}
	if r := *h.statefulSet().Spec.Replicas; r != 5 {
		t.Errorf("StatefulSet replicas %d, want 5", r)
	}
	h.settle(3)
	if n := len(h.nodeIDs()); n != 5 {
		t.Errorf("%d brokers run, want 5", n)
	}
	if calls := h.decommissionCalls(); len(calls) != 0 {
		t.Errorf("decommission calls %v during a scale-up", calls)
	}
}

func TestScaleDownFiveToTwo(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(5)
	ids := h.nodeIDs()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })

	var sawDecommissioning []int32
	for range 20 {
		res, err := h.reconcile()
		if err != nil {
			t.Fatal(err)
		}
		st := h.stored().Status
		if st.DecommissioningBroker != nil && !slices.Contains(sawDecommissioning, *st.DecommissioningBroker) {
			sawDecommissioning = append(sawDecommissioning, *st.DecommissioningBroker)
			if res.RequeueAfter != pollInterval {
				t.Errorf("requeue after %v while draining, want %v", res.RequeueAfter, pollInterval)
			}
		}
		if r := *h.statefulSet().Spec.Replicas; r != st.CurrentReplicas {
			t.Fatalf("StatefulSet replicas %d, currentReplicas %d: the StatefulSet must follow", r, st.CurrentReplicas)
		}
		if st.CurrentReplicas == 2 && st.DecommissioningBroker == nil {
			break
		}
	}

	want := []int{ids[4], ids[3], ids[2]}
	if got := h.decommissionCalls(); !slices.Equal(got, want) {
		t.Errorf("decommissioned %v, want each of %v exactly once, in that order", got, want)
	}
	if !slices.Equal(sawDecommissioning, []int32{int32(ids[4]), int32(ids[3]), int32(ids[2])}) {
		t.Errorf("status.decommissioningBroker went through %v", sawDecommissioning)
	}
	if d := h.sim.DoubleDecommissions(); len(d) > 0 {
		t.Errorf("double decommissions: %v", d)
	}
	if l := h.sim.LeftBeforeDecommission(); len(l) > 0 {
		t.Errorf("brokers left before their decommission finished: %v", l)
	}
	h.settle(3)
	if n := len(h.pods()); n != 2 {
		t.Errorf("%d pods, want 2", n)
	}
	events := strings.Join(h.events(), "\n")
	for _, reason := range []string{"StartDecommission", "FinishDecommission"} {
		if !strings.Contains(events, reason) {
			t.Errorf("no %s event in:\n%s", reason, events)
		}
	}
}

func TestScaleUpDuringDrainRecommissions(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards(), drainTime: time.Hour})
	h.bringUp(3)
	ids := h.nodeIDs()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })

	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	if b := h.stored().Status.DecommissioningBroker; b == nil || int(*b) != ids[2] {
		t.Fatalf("decommissioningBroker %v, want %d", b, ids[2])
	}
	h.simClock.Advance(time.Minute) // draining, far from done
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 3 })
	// Redpanda refuses the first recommission, as it does late in a drain.
	h.cluster.SetFault(admintest.Fault{Status: http.StatusBadRequest, Method: http.MethodPut, Times: 1})
	if _, err := h.reconcile(); err == nil {
		t.Error("a refused recommission succeeded")
	}
	if b := h.stored().Status.DecommissioningBroker; b == nil || int(*b) != ids[2] {
		t.Fatalf("decommissioningBroker %v after a refused recommission, want %d kept", b, ids[2])
	}
	// Accepted: B stays until the admin API shows the broker active again.
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	if b := h.stored().Status.DecommissioningBroker; b == nil || int(*b) != ids[2] {
		t.Fatalf("decommissioningBroker %v right after the recommission, want %d until the broker is listed active", b, ids[2])
	}
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	st := h.stored().Status
	if st.DecommissioningBroker != nil || st.CurrentReplicas != 3 {
		t.Errorf("status %+v, want no decommissioning broker and 3 brokers", st)
	}
	if n := h.callsTo("PUT", "/recommission"); n != 2 {
		t.Errorf("%d recommission calls, want 2 (one refused)", n)
	}
	for _, b := range h.cluster.Brokers() {
		if b.NodeID == ids[2] && b.Status != "active" {
			t.Errorf("broker %d is %s after the recommission", b.NodeID, b.Status)
		}
	}
	h.settle(3)
	if calls := h.decommissionCalls(); len(calls) != 1 {
		t.Errorf("decommission calls %v, want one", calls)
	}
}

func TestDeletedClusterIsLeftToGarbageCollection(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	if err := h.brokers.BrokersV1alpha1().BrokerClusters(testNamespace).Delete(h.ctx, testName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.syncInformers()
	kubeBefore, simBefore := len(h.kube.Actions()), len(h.cluster.Calls())

	res, err := h.c.sync(h.ctx, testKey)
	if err != nil || res.RequeueAfter != 0 {
		t.Fatalf("sync of a deleted cluster: %+v, %v", res, err)
	}
	if extra := h.kube.Actions()[kubeBefore:]; len(extra) != 0 {
		t.Errorf("the controller touched owned objects of a deleted cluster: %v", extra)
	}
	if n := len(h.cluster.Calls()) - simBefore; n != 0 {
		t.Errorf("%d admin calls for a deleted cluster", n)
	}
	if h.c.brokers.Knows(testKey) {
		t.Error("the admin client of a deleted cluster is still cached")
	}
}

func TestSpecChangesRollIntoOwnedObjects(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	before := h.statefulSet()

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) {
		s.Image = "redpanda:v25.2.0"
		s.PodAnnotations = map[string]string{"team": "a"}
		s.NodeSelector = map[string]string{"disk": "ssd"}
		s.Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}
		s.AdminAPI.Port = 9645
	})
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	after := h.statefulSet()
	pod := after.Spec.Template
	c := pod.Spec.Containers[0]
	if c.Image != "redpanda:v25.2.0" || pod.Annotations["team"] != "a" || pod.Spec.NodeSelector["disk"] != "ssd" || !c.Resources.Requests.Cpu().Equal(resource.MustParse("2")) {
		t.Errorf("StatefulSet template not updated: %+v", pod)
	}
	if *after.Spec.Replicas != 3 || after.Annotations[AnnotationSpecHash] == before.Annotations[AnnotationSpecHash] {
		t.Errorf("replicas %d, hash %q (was %q)", *after.Spec.Replicas, after.Annotations[AnnotationSpecHash], before.Annotations[AnnotationSpecHash])
	}
	svc, err := h.kube.CoreV1().Services(testNamespace).Get(h.ctx, testName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool { return p.Name == "admin" && p.Port == 9645 }) {
		t.Errorf("Service ports %+v, want admin on 9645", svc.Spec.Ports)
	}
	if h.stored().Status.ObservedGeneration != h.stored().Generation {
		t.Errorf("observedGeneration %d, generation %d", h.stored().Status.ObservedGeneration, h.stored().Generation)
	}

	// Unchanged spec: no further StatefulSet update.
	rv := after.ResourceVersion
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	if h.statefulSet().ResourceVersion != rv {
		t.Error("the StatefulSet was rewritten without a spec change")
	}
}

func TestAdminAPIDownDegradesAndBacksOff(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	h.cluster.SetFault(admintest.Fault{Refuse: true})
	stsBefore := h.statefulSet().ResourceVersion
	statusBefore := h.stored().Status

	for h.c.queue.Len() > 0 { // drop what informer events queued; the test queues its own
		key, _ := h.c.queue.Get()
		h.c.queue.Forget(key)
		h.c.queue.Done(key)
	}
	h.c.queue.Add(testKey)
	if !h.c.processNextWorkItem(h.ctx, 0) {
		t.Fatal("queue shut down")
	}
	if n := h.c.queue.NumRequeues(testKey); n != 1 {
		t.Errorf("NumRequeues = %d, want 1 (backoff after an error)", n)
	}
	if got := h.counter("broker_operator_reconciles_total", "result", resultError); got != 1 {
		t.Errorf("reconciles_total{result=error} = %v", got)
	}

	st := h.stored().Status
	degraded := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded)
	if degraded == nil || degraded.Status != metav1.ConditionTrue || degraded.Reason != ReasonAdminAPIUnavailable {
		t.Errorf("Degraded condition %+v", degraded)
	}
	if st.CurrentReplicas != statusBefore.CurrentReplicas || st.DecommissioningBroker != nil || st.ObservedGeneration != statusBefore.ObservedGeneration {
		t.Errorf("status changed beyond Degraded: %+v", st)
	}
	if h.statefulSet().ResourceVersion != stsBefore {
		t.Error("the StatefulSet changed while the admin API was down")
	}
	if calls := h.decommissionCalls(); len(calls) != 0 {
		t.Errorf("decommission calls %v", calls)
	}
	if events := strings.Join(h.events(), "\n"); !strings.Contains(events, "Warning WaitForAdminAPI") {
		t.Errorf("no warning event in:\n%s", events)
	}

	// Back up: the scale-down goes ahead and Degraded clears.
	h.cluster.SetFault(admintest.Fault{})
	h.settle(10)
	if d := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded); d.Status != metav1.ConditionFalse {
		t.Errorf("Degraded %+v after recovery", d)
	}
}

// An admin API that fails fast many times in a row (a broker answering 503 while its health
// report is missing) is still looked at again within MaxRetryDelay of each failure: nothing
// watches the brokers, so the retry is how the operator learns that they answer again.
// client-go's default backoff would have reached minutes by the tenth failure.
func TestManyFastAdminFailuresAreRetriedWithinTheCap(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	h.cluster.SetFault(admintest.Fault{Refuse: true})
	for h.c.queue.Len() > 0 {
		key, _ := h.c.queue.Get()
		h.c.queue.Forget(key)
		h.c.queue.Done(key)
	}
	h.c.queue.Add(testKey)
	const failures = 20
	for i := range failures {
		if i > 0 {
			h.clock.Step(DefaultMaxRetryDelay)
		}
		got := make(chan string, 1)
		go func() { key, _ := h.c.queue.Get(); got <- key }()
		select {
		case key := <-got:
			h.c.queue.Done(key)
			h.c.queue.Add(key) // hand it back to processNextWorkItem, which takes it at once
		case <-time.After(20 * time.Second): // a hang guard, not a synchronisation
			t.Fatalf("failure %d: the key was not retried within %v", i, DefaultMaxRetryDelay)
		}
		if !h.c.processNextWorkItem(h.ctx, 0) {
			t.Fatal("queue shut down")
		}
	}
	if n := h.c.queue.NumRequeues(testKey); n != failures {
		t.Errorf("NumRequeues = %d, want %d: every retry failed", n, failures)
	}
	if calls := h.decommissionCalls(); len(calls) != 0 {
		t.Errorf("decommission calls %v while the admin API refused", calls)
	}
}

// After the context ends, a worker takes no more keys to reconcile, even though the queue,
// draining, still hands them out: their reconciles could not write, and their reads could miss
// a write whose answer the cancelled request never delivered.
func TestNoReconcileAfterTheContextEnds(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	ctx, cancel := context.WithCancel(h.ctx)
	var reads int
	next := h.c.cfg.ReadHook
	h.c.cfg.ReadHook = func(resource, ns, name, rv string) {
		reads++
		next(resource, ns, name, rv)
	}
	h.c.queue.Add(testKey)
	cancel()
	if h.c.processNextWorkItem(ctx, 0) {
		t.Error("a worker went on after its context ended")
	}
	if reads != 0 {
		t.Errorf("%d reads after the context ended, want none", reads)
	}
}
