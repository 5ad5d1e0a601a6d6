package topics

import (
	"maps"
	"slices"
	"strings"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// TopicName is the topic's name in Kafka: spec.topicName, or metadata.name when unset.
func TopicName(bt *v1alpha1.BrokerTopic) string {
	if bt.Spec.TopicName != "" {
		return bt.Spec.TopicName
	}
	return bt.Name
}

// configPlan is the one incremental alter a reconcile sends: the spec's keys whose value on the
// topic differs, and the keys the operator set before that have left the spec. Keys it never
// set are in neither, whatever their value: another tool's setting is not the operator's to
// fight. strimzi/strimzi-kafka-operator#9972 is what this avoids: a topic operator that removed
// the replication throttle keys a partition reassignment had set on its topics.
type configPlan struct {
	set   map[string]string
	reset []string
}

func (p configPlan) empty() bool { return len(p.set) == 0 && len(p.reset) == 0 }

// keys names every key of the plan, sorted, for events and logs.
func (p configPlan) keys() string {
	ks := append(slices.Sorted(maps.Keys(p.set)), p.reset...)
	slices.Sort(ks)
	return strings.Join(ks, ", ")
}

// planConfig compares the spec's config with the keys set on the topic. managed are the keys
// the operator set before (status.managedConfig).
func planConfig(spec, onTopic map[string]string, managed []string) configPlan {
	p := configPlan{set: map[string]string{}}
	for k, v := range spec {
		if cur, ok := onTopic[k]; !ok || cur != v {
			p.set[k] = v
		}
	}
	for _, k := range managed {
		if _, inSpec := spec[k]; inSpec {
			continue
		}
		if _, onTopicNow := onTopic[k]; onTopicNow {
			p.reset = append(p.reset, k)
		}
	}
	slices.Sort(p.reset)
	return p
}

// owner is the BrokerTopic that owns a topic several resources name: one whose status says it
// created or adopted the topic, else the oldest (by creation time, then by name), so that
// every reconcile of every one of them picks the same. A resource that already manages the
// topic keeps it even when an older one appears late in the cache: consistency before age, as
// strimzi/strimzi-kafka-operator#9270 concluded for its KafkaTopics. A resource being deleted
// still owns until it is gone, so the next one never acts on a topic the first may yet delete.
func owner(group []*v1alpha1.BrokerTopic) *v1alpha1.BrokerTopic {
	var best *v1alpha1.BrokerTopic
	for _, bt := range group {
		if best == nil || precedes(bt, best) {
			best = bt
		}
	}
	return best
}

func precedes(a, b *v1alpha1.BrokerTopic) bool {
	if ma, mb := managesTopic(a), managesTopic(b); ma != mb {
		return ma
	}
	return older(a, b)
}

func older(a, b *v1alpha1.BrokerTopic) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Name < b.Name
}

// adoptRequested reports whether the resource carries broker-operator.dev/adopt=true.
func adoptRequested(bt *v1alpha1.BrokerTopic) bool {
	return bt.Annotations[v1alpha1.AdoptAnnotation] == "true"
}

// managesTopic reports whether the resource's status says the topic is its own: created by it
// (or being created, whose answer may have been lost) or adopted.
func managesTopic(bt *v1alpha1.BrokerTopic) bool {
	switch bt.Status.Origin {
	case v1alpha1.TopicCreated, v1alpha1.TopicCreating, v1alpha1.TopicAdopted:
		return true
	}
	return false
}

// drifted reports whether a sweep's read of the topic, t, differs from what the resource's
// spec and status say, so that the resource is worth a reconcile. A resource waiting for its
// adoption annotation has nothing in Kafka to wait for, unless its topic went.
func drifted(bt *v1alpha1.BrokerTopic, t Topic) bool {
	switch {
	case !t.Exists:
		return true
	case !managesTopic(bt):
		return false
	case replaced(bt.Status.TopicID, t.ID),
		t.Partitions != bt.Status.Partitions,
		t.ReplicationFactor != bt.Status.ReplicationFactor,
		bt.Spec.Partitions > t.Partitions:
		return true
	}
	return !planConfig(bt.Spec.Config, t.Config, bt.Status.ManagedConfig).empty()
}
