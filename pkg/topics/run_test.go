package topics

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/internal/controllertest"
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
	controllertest.AwaitReason(h.t, h.ctx, func(ctx context.Context) ([]metav1.Condition, error) {
		bt, err := h.client.BrokersV1alpha1().BrokerTopics(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return bt.Status.Conditions, nil
	}, ConditionReady, reason)
}
