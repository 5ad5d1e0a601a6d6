package topics

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// With its workers running, the controller is driven by events alone: a cluster created after
// its topic's resource brings the topic about, and a resource that goes hands the topic on to
// the next one that names it, which then asks for adoption rather than conflict.
func TestEventsDriveTheQueue(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan error, 1)
	go func() { done <- h.c.Run(ctx, 1) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})

	first := topic("orders", 3, 10)
	first.Spec.ClusterRef.Name = "later"
	h.create(first)
	h.awaitReason("orders", ReasonClusterNotFound)
	h.createCluster("later")
	h.awaitReason("orders", ReasonSynced)

	second := topic("orders-again", 3, 1)
	second.Spec.ClusterRef.Name = "later"
	second.Spec.TopicName = "orders"
	h.create(second)
	h.awaitReason("orders-again", ReasonResourceConflict)
	h.delete("orders") // Retain: no finalizer, gone at once
	h.awaitReason("orders-again", ReasonAdoptionRequired)
}

// awaitReason waits until the resource's Ready condition, as stored, has reason.
func (h *harness) awaitReason(name, reason string) {
	h.t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(h.ctx, time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		bt, err := h.client.BrokersV1alpha1().BrokerTopics(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		if c := meta.FindStatusCondition(bt.Status.Conditions, ConditionReady); c != nil {
			last = c.Reason
		}
		return last == reason, nil
	})
	if err != nil {
		h.t.Fatalf("%s: Ready reason %q, want %q: %v", name, last, reason, err)
	}
}
