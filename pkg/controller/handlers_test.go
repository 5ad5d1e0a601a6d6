package controller

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// drainQueue empties the queue and returns the keys it held.
func drainQueue(h *harness) []string {
	var keys []string
	for h.c.queue.Len() > 0 {
		key, _ := h.c.queue.Get()
		keys = append(keys, key)
		h.c.queue.Forget(key)
		h.c.queue.Done(key)
	}
	return keys
}

func TestOwnedObjectEventsQueueTheirOwner(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(1)
	pod, sts := h.pods()[0], h.statefulSet()
	stray := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "stray", Namespace: testNamespace,
		Labels: map[string]string{LabelManagedBy: ManagedByValue}}}
	orphan := pod.DeepCopy()
	orphan.Labels[LabelInstance] = "gone"

	// The owner lookup, called as the handlers call it.
	tests := []struct {
		name   string
		obj    interface{}
		lookup func(metav1.Object) (string, bool)
		want   []string
	}{
		{"pod, by its instance label", &pod, instanceOwner, []string{testKey}},
		{"StatefulSet, by its controller reference", sts, controllerOwner, []string{testKey}},
		{"deleted StatefulSet seen late", cache.DeletedFinalStateUnknown{Key: testKey, Obj: sts}, controllerOwner, []string{testKey}},
		{"Service owned by nothing", stray, controllerOwner, nil},
		{"pod of a BrokerCluster that is gone", orphan, instanceOwner, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			drainQueue(h)
			h.c.enqueueOwner(h.nc, tt.obj, tt.lookup)
			if got := drainQueue(h); !slices.Equal(got, tt.want) {
				t.Errorf("queued %v, want %v", got, tt.want)
			}
		})
	}

	// The wiring: a pod event reaches the queue.
	drainQueue(h)
	pod.Labels["touched"] = "yes"
	if _, err := h.kube.CoreV1().Pods(testNamespace).Update(h.ctx, &pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		key, _ := h.c.queue.Get()
		h.c.queue.Done(key)
		got <- key
	}()
	select {
	case key := <-got:
		if key != testKey {
			t.Errorf("queued %q after a pod event", key)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a pod event queued nothing")
	}
}

func TestDecisionLogging(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })

	run := func(verbosity int) string {
		logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(verbosity), ktesting.BufferLogs(true)))
		if _, err := h.c.sync(klog.NewContext(h.ctx, logger), testKey); err != nil {
			t.Fatal(err)
		}
		h.playStatefulSet()
		h.syncInformers()
		return logger.GetSink().(ktesting.Underlier).GetBuffer().String()
	}
	v2 := run(2)
	if strings.Count(v2, "Decision brokercluster=") != 1 || !strings.Contains(v2, `brokercluster="team-a/redpanda"`) ||
		!strings.Contains(v2, "broker=") || !strings.Contains(v2, "reason=") || strings.Contains(v2, "Reconciling") {
		t.Errorf("-v=2 should log one decision line with cluster, broker and reason, and no reconcile line:\n%s", v2)
	}
	v4 := run(4)
	if !strings.Contains(v4, "Reconciling brokercluster=") || !strings.Contains(v4, "brokerClusterResourceVersion=") || !strings.Contains(v4, "statefulSetResourceVersion=") {
		t.Errorf("-v=4 should log each reconcile with the resourceVersions read:\n%s", v4)
	}
}

func TestRunReconcilesAndStops(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	// A second controller on the same clients runs with real workers.
	c, err := NewController(Config{KubeClient: h.kube, BrokerClient: h.brokers, AdminAddressTemplate: h.sim.AddressTemplateFor(h.cluster)})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(h.ctx, 0); err == nil {
		t.Fatal("Run with no workers should fail")
	}
	c, err = NewController(Config{KubeClient: h.kube, BrokerClient: h.brokers, AdminAddressTemplate: h.sim.AddressTemplateFor(h.cluster), Guards: DefaultGuards()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, 2) }()

	h.create(newBrokerCluster(2))
	h.await("the running controller to create the StatefulSet", func() bool {
		_, err := h.nc.raw.statefulSets.StatefulSets(testNamespace).Get(testName)
		return err == nil
	})
	if !c.HasSynced() {
		t.Error("HasSynced is false while running")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run returned %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	if !c.queue.ShuttingDown() {
		t.Error("the queue is still up after Run returned")
	}
}
