// Package topics is the BrokerTopic controller: each BrokerTopic is one Kafka topic of a
// BrokerCluster in its namespace, created, grown and configured over that cluster's internal
// Kafka listener with franz-go (kgo, kadm). It has the BrokerCluster controller's shape
// (pkg/controller): one rate-limited workqueue of namespace/name keys, N workers, informers,
// and a lister laid over pkg/writeback's overlay, so that a reconcile reads its own finalizer
// and status writes. Status is written with Update under the resourceVersion read, once per
// reconcile and only when it changed.
//
// One reconcile, top-down (sync.go, finalize.go):
//
//	case                                   status write                   Kafka call              irreversible  facts read right before
//	resource deleted, finalizer held       -                              delete topic            yes           topic exists, its ID is status.topicID
//	  ... not created/adopted, not owner,  -                              -                       -             -
//	      or the cluster gone              (finalizer removed, an event)
//	policy Delete / Retain                 finalizer added / removed      -                       -             -
//	cluster missing or being deleted       Ready ClusterNotFound          -                       -             -
//	an older (or managing) resource        Ready ResourceConflict         -                       -             -
//	topic absent                           origin Creating, then Created  create                  -             topic absent
//	topic present, another ID              origin cleared (TopicReplaced) -                       -             topic ID
//	topic present, not ours, no annotation Ready AdoptionRequired         -                       -             -
//	topic present and ours                 partitions, managedConfig      create partitions,      -             partitions, keys set on
//	                                                                      incremental alter                     the topic (fresh Metadata,
//	                                                                      (only what differs)                   DescribeConfigs)
//
// Ownership (plan.go): of the resources that name one topic of one cluster, the one whose status
// says it created or adopted the topic owns it, else the oldest; the others change nothing.
// Config (plan.go): the operator sets the keys of spec.config and resets a key it set that left
// the spec; a key it never set is never touched. Every Kafka read a decision rests on is a
// request of its own, never kgo's metadata cache (kafka.go).
//
// A wait that an event will end (the cluster created, the annotation, the owner gone) is a
// condition and no retry; a failed call is a condition and a retry with backoff. The
// connection (connect.go) follows the cluster's spec: its brokers' stable DNS names on the
// internal Kafka port, the listener's TLS, and the superuser's SCRAM credentials.
package topics
