package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	drainQueue(h)

	// A pod event (by its instance label) queues the cluster.
	pod := h.pods()[0]
	pod.Labels["touched"] = "yes"
	if _, err := h.kube.CoreV1().Pods(testNamespace).Update(h.ctx, &pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.syncInformers()
	if keys := drainQueue(h); len(keys) != 1 || keys[0] != testKey {
		t.Errorf("after a pod event the queue held %v, want [%s]", keys, testKey)
	}

	// A StatefulSet event (by its controller reference) queues the cluster.
	sts := h.statefulSet()
	sts.Labels["touched"] = "yes"
	if _, err := h.kube.AppsV1().StatefulSets(testNamespace).Update(h.ctx, sts, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.syncInformers()
	if keys := drainQueue(h); len(keys) != 1 || keys[0] != testKey {
		t.Errorf("after a StatefulSet event the queue held %v, want [%s]", keys, testKey)
	}

	// A managed object of no BrokerCluster queues nothing.
	stray := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "stray", Namespace: testNamespace,
		Labels: map[string]string{LabelManagedBy: ManagedByValue}}}
	if _, err := h.kube.CoreV1().Services(testNamespace).Create(h.ctx, stray, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.syncInformers()
	if keys := drainQueue(h); len(keys) != 0 {
		t.Errorf("a Service owned by nothing queued %v", keys)
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
	c, err := NewController(Config{KubeClient: h.kube, BrokerClient: h.brokers, AdminAddressTemplate: h.sim.AddressTemplate()})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(h.ctx, 0); err == nil {
		t.Fatal("Run with no workers should fail")
	}
	c, err = NewController(Config{KubeClient: h.kube, BrokerClient: h.brokers, AdminAddressTemplate: h.sim.AddressTemplate()})
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
