package topics

// Reasons of a BrokerTopic's Ready condition. True has one reason; each False one names what
// the topic waits for and what would end the wait (docs/troubleshooting.md).
const (
	// ReasonSynced: the topic exists and holds the spec's partitions and config.
	ReasonSynced = "Synced"
	// ReasonClusterNotFound: spec.clusterRef names no BrokerCluster in this namespace, or one
	// being deleted.
	ReasonClusterNotFound = "ClusterNotFound"
	// ReasonKafkaUnavailable: the cluster's Kafka API did not answer, or its credentials could
	// not be read. Retried with backoff.
	ReasonKafkaUnavailable = "KafkaUnavailable"
	// ReasonAdoptionRequired: the topic exists and this resource did not create it; it is left
	// untouched until the resource is annotated broker-operator.dev/adopt=true.
	ReasonAdoptionRequired = "AdoptionRequired"
	// ReasonResourceConflict: an older BrokerTopic names the same topic of the same cluster and
	// owns it; this one changes nothing.
	ReasonResourceConflict = "ResourceConflict"
	// ReasonRequestRefused: Kafka refused a create, a partition increase or a config change
	// (an invalid config value, a replication factor above the broker count); the message says
	// why. Retried with backoff.
	ReasonRequestRefused = "RequestRefused"
	// ReasonPartitionsAboveSpec: the topic has more partitions than spec.partitions; Kafka cannot
	// take them away, so the topic keeps them.
	ReasonPartitionsAboveSpec = "PartitionsAboveSpec"
	// ReasonReplicationFactorMismatch: the topic's replication factor is not
	// spec.replicationFactor (an adopted topic, or one changed outside); the operator does not
	// move replicas.
	ReasonReplicationFactorMismatch = "ReplicationFactorMismatch"
	// ReasonDeleting: the resource is being deleted under deletionPolicy Delete and the topic's
	// deletion has not succeeded yet.
	ReasonDeleting = "Deleting"
)

// Event reasons: one event for each change the operator makes, none for a poll.
const (
	EventTopicCreated        = "TopicCreated"
	EventTopicAdopted        = "TopicAdopted"
	EventPartitionsIncreased = "PartitionsIncreased"
	EventConfigUpdated       = "TopicConfigUpdated"
	EventTopicDeleted        = "TopicDeleted"
	// EventTopicRetained: the resource went and the topic stays (deletionPolicy Retain, or the
	// resource did not own the topic).
	EventTopicRetained = "TopicRetained"
	// EventClusterGone: the finalizer was dropped without deleting the topic, because the
	// cluster that held it is gone.
	EventClusterGone = "ClusterGone"
	// EventTopicReplaced: the topic of this name has another ID than the one the resource
	// created or adopted: someone deleted and made it again. The resource lets it go.
	EventTopicReplaced = "TopicReplaced"
	// EventCreateRaced: the create found the topic already made by someone else between the
	// operator's look and its create; the resource now waits for adoption.
	EventCreateRaced = "TopicCreatedElsewhere"
)

// Finalizer holds a BrokerTopic with deletionPolicy Delete until its topic is deleted.
const Finalizer = "broker-operator.dev/topic-deletion"

// ConditionReady is the BrokerTopic condition the reasons above belong to.
const ConditionReady = "Ready"
