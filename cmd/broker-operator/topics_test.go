package main

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	brokerfake "github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned/fake"
	"github.com/broker-operator/broker-operator/pkg/topics"
)

// Both the BrokerTopic and the BrokerUser controller run by default; each flag set to false
// turns its controller off.
func TestOptionalControllersAreOnByDefault(t *testing.T) {
	sim := admintest.NewServer(admintest.Options{})
	defer sim.Close()
	defaults, err := parse(t, "--admin-address-template="+sim.BrokerAddressTemplate())
	if err != nil {
		t.Fatal(err)
	}
	on, err := newOperator(defaults, clients{kube: kubefake.NewClientset(), broker: brokerfake.NewClientset()}, "x")
	if err != nil {
		t.Fatal(err)
	}
	if on.topics == nil || on.users == nil {
		t.Fatal("the BrokerTopic or BrokerUser controller is not built by default")
	}
	off, err := parse(t, "--admin-address-template="+sim.BrokerAddressTemplate(), "--enable-topics=false", "--enable-users=false")
	if err != nil {
		t.Fatal(err)
	}
	op, err := newOperator(off, clients{kube: kubefake.NewClientset(), broker: brokerfake.NewClientset()}, "x")
	if err != nil {
		t.Fatal(err)
	}
	if op.topics != nil || op.users != nil {
		t.Fatal("a BrokerTopic or BrokerUser controller is built with its flag false")
	}
}

// The leader reconciles BrokerTopics beside the BrokerClusters.
func TestEnableTopicsRunsTheTopicController(t *testing.T) {
	sim := admintest.NewServer(admintest.Options{})
	defer sim.Close()
	opts := testOptions(sim)
	runUntil(t, opts, "the BrokerTopic's Ready condition to say its cluster is missing", func(ctx context.Context, brokers *brokerfake.Clientset) func() bool {
		bt := &v1alpha1.BrokerTopic{
			ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "orders"},
			Spec:       v1alpha1.BrokerTopicSpec{ClusterRef: v1alpha1.ClusterReference{Name: "missing"}, Partitions: 3},
		}
		if _, err := brokers.BrokersV1alpha1().BrokerTopics("team-a").Create(ctx, bt, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		return func() bool {
			got, err := brokers.BrokersV1alpha1().BrokerTopics("team-a").Get(ctx, "orders", metav1.GetOptions{})
			if err != nil {
				return false
			}
			c := meta.FindStatusCondition(got.Status.Conditions, topics.ConditionReady)
			return c != nil && c.Reason == topics.ReasonClusterNotFound
		}
	})
}

// runUntil runs an operator with opts over fake clients until the condition start returns
// holds, then stops it and checks that it returns. start makes the test's objects.
func runUntil(t *testing.T, opts *options, what string, start func(context.Context, *brokerfake.Clientset) func() bool) {
	t.Helper()
	brokers := brokerfake.NewClientset()
	op, err := newOperator(opts, clients{kube: kubefake.NewClientset(), broker: brokers}, "replica-a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- op.run(ctx) }()
	poll(t, what, start(ctx, brokers))
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run after cancel: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run did not return after cancel")
	}
}
