//go:build e2e

package e2e

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// TestBadTopicsRejected checks that the real apiserver turns bad BrokerTopics away with the
// messages docs/topics.md quotes, on create and on update.
func TestBadTopicsRejected(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	topics := env.Brokers.BrokersV1alpha1().BrokerTopics(ns)
	topic := func(name string) *v1alpha1.BrokerTopic {
		return &v1alpha1.BrokerTopic{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       v1alpha1.BrokerTopicSpec{ClusterRef: v1alpha1.ClusterReference{Name: "kafka"}, Partitions: 3},
		}
	}

	for _, tc := range []struct {
		name   string
		mutate func(*v1alpha1.BrokerTopic)
		want   string
	}{
		{"no partitions", func(bt *v1alpha1.BrokerTopic) { bt.Spec.Partitions = 0 }, "spec.partitions in body should be greater than or equal to 1"},
		{"a space in the topic name", func(bt *v1alpha1.BrokerTopic) { bt.Spec.TopicName = "a b" }, "may hold only the characters"},
		{"the topic name ..", func(bt *v1alpha1.BrokerTopic) { bt.Spec.TopicName = ".." }, "cannot be '.' or '..'"},
		{"a name too long for Kafka", func(bt *v1alpha1.BrokerTopic) { bt.Name = strings.Repeat("a", 250) }, "at most 249 characters"},
		{"replication.factor in config", func(bt *v1alpha1.BrokerTopic) {
			bt.Spec.Config = map[string]string{"replication.factor": "3"}
		}, "duplicates spec.replicationFactor"},
		{"an unknown deletion policy", func(bt *v1alpha1.BrokerTopic) { bt.Spec.DeletionPolicy = "Orphan" }, "spec.deletionPolicy"},
	} {
		bt := topic("bad")
		tc.mutate(bt)
		_, err := topics.Create(t.Context(), bt, metav1.CreateOptions{})
		expectInvalid(t, "create with "+tc.name, err, tc.want)
	}

	good := topic("good")
	good.Spec.ReplicationFactor = ptr.To[int32](3)
	if _, err := topics.Create(t.Context(), good, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create a valid BrokerTopic: %v", err)
	}
	plain := topic("plain")
	if _, err := topics.Create(t.Context(), plain, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create a valid BrokerTopic: %v", err)
	}
	for _, tc := range []struct {
		name   string
		object string
		mutate func(*v1alpha1.BrokerTopic)
		want   string
	}{
		{"fewer partitions", "good", func(bt *v1alpha1.BrokerTopic) { bt.Spec.Partitions = 2 }, "spec.partitions may only grow"},
		{"another cluster", "good", func(bt *v1alpha1.BrokerTopic) { bt.Spec.ClusterRef.Name = "other" }, "spec.clusterRef is immutable"},
		{"another replication factor", "good", func(bt *v1alpha1.BrokerTopic) { bt.Spec.ReplicationFactor = ptr.To[int32](1) }, "spec.replicationFactor is immutable"},
		{"the replication factor unset", "good", func(bt *v1alpha1.BrokerTopic) { bt.Spec.ReplicationFactor = nil }, "spec.replicationFactor is immutable"},
		{"a topic name set later", "plain", func(bt *v1alpha1.BrokerTopic) { bt.Spec.TopicName = "plain" }, "spec.topicName is immutable"},
		{"a replication factor set later", "plain", func(bt *v1alpha1.BrokerTopic) { bt.Spec.ReplicationFactor = ptr.To[int32](3) }, "spec.replicationFactor is immutable"},
	} {
		bt, err := topics.Get(t.Context(), tc.object, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tc.mutate(bt)
		_, err = topics.Update(t.Context(), bt, metav1.UpdateOptions{})
		expectInvalid(t, "update with "+tc.name, err, tc.want)
	}

	bt, err := topics.Get(t.Context(), "good", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bt.Spec.Partitions, bt.Spec.DeletionPolicy = 6, v1alpha1.TopicDelete
	if _, err := topics.Update(t.Context(), bt, metav1.UpdateOptions{}); err != nil {
		t.Errorf("grow the partitions and change the deletion policy: %v", err)
	}
}
