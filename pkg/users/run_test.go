package users

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/internal/controllertest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// With its workers running, the controller is driven by events alone: a cluster created after
// its user's resource brings the user about, and a change of the password Secret is set on the
// cluster once the resource is touched, as docs/users.md tells.
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

	bu := user("app")
	bu.Spec.ClusterRef.Name = "later"
	h.create(bu)
	h.awaitReason("app", ReasonClusterNotFound)
	h.createCluster("later", v1alpha1.SCRAMSHA256)
	h.awaitReason("app", ReasonSynced)
	if _, ok := h.sim.User("app"); !ok {
		t.Fatal("the user was not created once its cluster came")
	}

	s := h.secret("app-credentials")
	s.Data["password"] = []byte("rotated")
	if _, err := h.kube.CoreV1().Secrets(ns).Update(h.ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.update("app", func(bu *v1alpha1.BrokerUser) { bu.Annotations = map[string]string{"rotate": "1"} })
	controllertest.AwaitReason(t, h.ctx, func(context.Context) ([]metav1.Condition, error) {
		if cred, _ := h.sim.User("app"); cred.Password != "rotated" {
			return nil, nil
		}
		return h.get("app").Status.Conditions, nil
	}, ConditionReady, ReasonSynced)
}

// awaitReason waits until the resource's Ready condition, as stored, has reason.
func (h *harness) awaitReason(name, reason string) {
	h.t.Helper()
	controllertest.AwaitReason(h.t, h.ctx, func(ctx context.Context) ([]metav1.Condition, error) {
		bu, err := h.client.BrokersV1alpha1().BrokerUsers(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return bu.Status.Conditions, nil
	}, ConditionReady, reason)
}
