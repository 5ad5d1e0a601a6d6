//go:build e2e

package e2e

import (
	"context"
	"maps"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/topics"
)

// awaitTopicReady waits until the BrokerTopic has observed its spec and its Ready condition has
// status and reason, and returns it.
func awaitTopicReady(t *testing.T, ns, name string, status metav1.ConditionStatus, reason string) *v1alpha1.BrokerTopic {
	t.Helper()
	var bt *v1alpha1.BrokerTopic
	awaitCondition(t, "BrokerTopic "+name, topics.ConditionReady, status, reason, func(ctx context.Context) (metav1.Object, []metav1.Condition, int64, error) {
		got, err := env.Brokers.BrokersV1alpha1().BrokerTopics(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, nil, 0, err
		}
		bt = got
		return got, got.Status.Conditions, got.Status.ObservedGeneration, nil
	})
	return bt
}

// TestTopicLifecycle runs a BrokerTopic through what a platform team does with one, against
// a real apiserver and the operator process, with kfake as the cluster's Kafka: create, grow,
// change its config beside a key set with rpk, adopt a topic that existed, and delete under
// deletionPolicy Retain and Delete. Each step is checked where a user would look: the topic in
// Kafka, the resource's status and its events.
func TestTopicLifecycle(t *testing.T) {
	t.Parallel()
	kafka := startKafka(t, false)
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a", kafka.flag)
	env.CreateCluster(t, ns, "kafka", 1, 0)
	bts := env.Brokers.BrokersV1alpha1().BrokerTopics(ns)

	// Create.
	orders := &v1alpha1.BrokerTopic{
		ObjectMeta: metav1.ObjectMeta{Name: "orders"},
		Spec: v1alpha1.BrokerTopicSpec{ClusterRef: v1alpha1.ClusterReference{Name: "kafka"}, Partitions: 3,
			Config:         map[string]string{"cleanup.policy": "compact", "retention.ms": "604800000"},
			DeletionPolicy: v1alpha1.TopicDelete},
	}
	if _, err := bts.Create(t.Context(), orders, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bt := awaitTopicReady(t, ns, "orders", metav1.ConditionTrue, topics.ReasonSynced)
	if bt.Status.Origin != v1alpha1.TopicCreated || bt.Status.Partitions != 3 || bt.Status.TopicID == "" {
		t.Errorf("status after create: origin %q, partitions %d, topicID %q; want Created, 3, an ID", bt.Status.Origin, bt.Status.Partitions, bt.Status.TopicID)
	}
	want := map[string]string{"cleanup.policy": "compact", "retention.ms": "604800000"}
	kafka.awaitTopic(t, "orders", "3 partitions and the spec's config", func(v topicView) bool {
		return v.exists && v.partitions == 3 && maps.Equal(v.config, want)
	})
	awaitEventAbout(t, ns, "BrokerTopic", "orders", topics.EventTopicCreated)

	// Grow.
	retryUpdate(t, "grow orders", func(ctx context.Context) error {
		bt, err := bts.Get(ctx, "orders", metav1.GetOptions{})
		if err != nil {
			return err
		}
		bt.Spec.Partitions = 6
		_, err = bts.Update(ctx, bt, metav1.UpdateOptions{})
		return err
	})
	kafka.awaitTopic(t, "orders", "6 partitions", func(v topicView) bool { return v.partitions == 6 })
	if bt := awaitTopicReady(t, ns, "orders", metav1.ConditionTrue, topics.ReasonSynced); bt.Status.Partitions != 6 {
		t.Errorf("status.partitions %d after the growth, want 6", bt.Status.Partitions)
	}
	awaitEventAbout(t, ns, "BrokerTopic", "orders", topics.EventPartitionsIncreased)

	// A key set with rpk, which the spec does not name, and then a config change: the spec's
	// keys are set, the key that left the spec is reset, the rpk key stays.
	alterConfig(t, kafka, "orders", "max.message.bytes", "2000000")
	retryUpdate(t, "change orders' config", func(ctx context.Context) error {
		bt, err := bts.Get(ctx, "orders", metav1.GetOptions{})
		if err != nil {
			return err
		}
		bt.Spec.Config = map[string]string{"retention.ms": "86400000"}
		_, err = bts.Update(ctx, bt, metav1.UpdateOptions{})
		return err
	})
	want = map[string]string{"retention.ms": "86400000", "max.message.bytes": "2000000"}
	kafka.awaitTopic(t, "orders", "retention.ms changed, cleanup.policy reset, max.message.bytes kept", func(v topicView) bool {
		return maps.Equal(v.config, want)
	})
	if bt := awaitTopicReady(t, ns, "orders", metav1.ConditionTrue, topics.ReasonSynced); !equalSet(bt.Status.ManagedConfig, []string{"retention.ms"}) {
		t.Errorf("status.managedConfig %v, want [retention.ms]", bt.Status.ManagedConfig)
	}
	awaitEventAbout(t, ns, "BrokerTopic", "orders", topics.EventConfigUpdated)

	// Adopt: a topic made with rpk is left alone until the annotation.
	if _, err := kafka.rpk.CreateTopic(t.Context(), 2, -1, nil, "legacy"); err != nil {
		t.Fatal(err)
	}
	legacy := &v1alpha1.BrokerTopic{
		ObjectMeta: metav1.ObjectMeta{Name: "legacy"},
		Spec:       v1alpha1.BrokerTopicSpec{ClusterRef: v1alpha1.ClusterReference{Name: "kafka"}, Partitions: 4, Config: map[string]string{"retention.ms": "3600000"}},
	}
	if _, err := bts.Create(t.Context(), legacy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if bt := awaitTopicReady(t, ns, "legacy", metav1.ConditionFalse, topics.ReasonAdoptionRequired); bt.Status.Origin != "" || bt.Status.Partitions != 2 {
		t.Errorf("status before adoption: origin %q, partitions %d; want none, 2 (what the topic has)", bt.Status.Origin, bt.Status.Partitions)
	}
	if v, err := kafka.topic(t.Context(), "legacy"); err != nil || v.partitions != 2 || len(v.config) != 0 {
		t.Errorf("the topic not yet adopted was changed: %+v (%v)", v, err)
	}
	retryUpdate(t, "annotate legacy", func(ctx context.Context) error {
		bt, err := bts.Get(ctx, "legacy", metav1.GetOptions{})
		if err != nil {
			return err
		}
		metav1.SetMetaDataAnnotation(&bt.ObjectMeta, v1alpha1.AdoptAnnotation, "true")
		_, err = bts.Update(ctx, bt, metav1.UpdateOptions{})
		return err
	})
	kafka.awaitTopic(t, "legacy", "4 partitions and retention.ms once adopted", func(v topicView) bool {
		return v.partitions == 4 && v.config["retention.ms"] == "3600000"
	})
	if bt := awaitTopicReady(t, ns, "legacy", metav1.ConditionTrue, topics.ReasonSynced); bt.Status.Origin != v1alpha1.TopicAdopted {
		t.Errorf("status.origin %q after the annotation, want Adopted", bt.Status.Origin)
	}
	awaitEventAbout(t, ns, "BrokerTopic", "legacy", topics.EventTopicAdopted)

	// Delete under Retain: the resource goes at once (no finalizer), the topic stays.
	if len(awaitTopicReady(t, ns, "legacy", metav1.ConditionTrue, topics.ReasonSynced).Finalizers) != 0 {
		t.Error("a Retain BrokerTopic holds a finalizer")
	}
	deleteTopic(t, ns, "legacy")
	if v, err := kafka.topic(t.Context(), "legacy"); err != nil || !v.exists || v.partitions != 4 {
		t.Errorf("deleting a Retain BrokerTopic touched its topic: %+v (%v)", v, err)
	}

	// Delete under Delete: the finalizer holds the resource until the topic is deleted.
	if got, err := bts.Get(t.Context(), "orders", metav1.GetOptions{}); err != nil || !equalSet(got.Finalizers, []string{topics.Finalizer}) {
		t.Errorf("a Delete BrokerTopic's finalizers: %v (%v), want [%s]", got.Finalizers, err, topics.Finalizer)
	}
	deleteTopic(t, ns, "orders")
	kafka.awaitTopic(t, "orders", "deleted", func(v topicView) bool { return !v.exists })
	awaitEventAbout(t, ns, "BrokerTopic", "orders", topics.EventTopicDeleted)
	checkNoForbidden(t)
}

// deleteTopic deletes the BrokerTopic and waits until it is gone.
func deleteTopic(t *testing.T, ns, name string) {
	t.Helper()
	bts := env.Brokers.BrokersV1alpha1().BrokerTopics(ns)
	if err := bts.Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitGone(t, "BrokerTopic "+name, func(ctx context.Context) bool {
		_, err := bts.Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
}

// alterConfig sets one key on a topic as rpk topic alter-config would.
func alterConfig(t *testing.T, kafka *fakeKafka, topic, key, value string) {
	t.Helper()
	rs, err := kafka.rpk.AlterTopicConfigs(t.Context(), []kadm.AlterConfig{{Op: kadm.SetConfig, Name: key, Value: kadm.StringPtr(value)}}, topic)
	if err == nil {
		for _, r := range rs {
			err = r.Err
		}
	}
	if err != nil {
		t.Fatalf("rpk topic alter-config %s %s=%s: %v", topic, key, value, err)
	}
}
