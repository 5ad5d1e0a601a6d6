package main

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	brokerfake "github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned/fake"
	"github.com/broker-operator/broker-operator/pkg/users"
)

// The leader reconciles BrokerUsers beside the BrokerClusters.
func TestEnableUsersRunsTheUserController(t *testing.T) {
	sim := admintest.NewServer(admintest.Options{})
	defer sim.Close()
	opts := testOptions(sim)
	runUntil(t, opts, "the BrokerUser's Ready condition to say its cluster is missing", func(ctx context.Context, brokers *brokerfake.Clientset) func() bool {
		bu := &v1alpha1.BrokerUser{
			ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "app"},
			Spec:       v1alpha1.BrokerUserSpec{ClusterRef: v1alpha1.ClusterReference{Name: "missing"}},
		}
		if _, err := brokers.BrokersV1alpha1().BrokerUsers("team-a").Create(ctx, bu, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		return func() bool {
			got, err := brokers.BrokersV1alpha1().BrokerUsers("team-a").Get(ctx, "app", metav1.GetOptions{})
			if err != nil {
				return false
			}
			c := meta.FindStatusCondition(got.Status.Conditions, users.ConditionReady)
			return c != nil && c.Reason == users.ReasonClusterNotFound
		}
	})
}
