package topics

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Topic is what Kafka holds for one topic, read afresh before any call that changes it.
type Topic struct {
	Exists bool
	// ID is the topic's ID as Kafka writes it; empty from a broker that has none.
	ID                string
	Partitions        int32
	ReplicationFactor int32
	// Config holds the keys set on the topic itself (DYNAMIC_TOPIC_CONFIG), not the defaults
	// it inherits: a key the operator set is pinned there, whatever the cluster default does.
	// Redpanda reports a topic's override with that source and anything else as
	// DEFAULT_CONFIG (redpanda-data/redpanda src/v/kafka/server/handlers/configs/
	// config_response_utils.cc).
	Config map[string]string
}

// Kafka is the Kafka API calls the controller makes for one cluster.
type Kafka interface {
	Describe(ctx context.Context, topic string) (Topic, error)
	// DescribeAll reads many topics at once, for a sweep.
	DescribeAll(ctx context.Context, topics []string) (map[string]Topic, error)
	// Create returns the new topic's ID, empty when the broker does not say.
	Create(ctx context.Context, topic string, partitions int32, replicationFactor *int32, config map[string]string) (string, error)
	// SetPartitions raises the topic's partition count to n (CreatePartitions).
	SetPartitions(ctx context.Context, topic string, n int32) error
	// AlterConfig sets and resets keys through IncrementalAlterConfigs, which leaves every
	// other key as it is (the legacy AlterConfigs would replace the whole set).
	AlterConfig(ctx context.Context, topic string, set map[string]string, reset []string) error
	Delete(ctx context.Context, topic string) error
	Close()
}

// requestRetries is how often kgo retries a request that failed in a retriable way.
const requestRetries = 2

// kadmKafka is Kafka over franz-go's admin client.
type kadmKafka struct {
	client *kgo.Client
	adm    *kadm.Client
}

// NewKafka opens a client with opts (seed brokers, TLS, SASL). kgo connects lazily: an
// unreachable cluster shows as an error of the first call.
func NewKafka(opts ...kgo.Opt) (Kafka, error) {
	// A few retries, not kgo's default 20 (about 30 s): a refused password or an unreachable
	// cluster then fails the reconcile in seconds, and the queue's backoff retries it, rather
	// than hold a worker that other topics wait for.
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.RequestRetries(requestRetries)}, opts...)...)
	if err != nil {
		return nil, err
	}
	return &kadmKafka{client: cl, adm: kadm.NewClient(cl)}, nil
}

func (k *kadmKafka) Close() { k.client.Close() }

func (k *kadmKafka) Describe(ctx context.Context, topic string) (Topic, error) {
	all, err := k.DescribeAll(ctx, []string{topic})
	return all[topic], err
}

// DescribeAll reads many topics with one Metadata request and one DescribeConfigs request,
// whatever their number: a sweep of a cluster's topics costs two requests, not two a topic.
// A topic absent from Kafka is in the answer with Exists false.
func (k *kadmKafka) DescribeAll(ctx context.Context, topics []string) (map[string]Topic, error) {
	out, err := k.metadata(ctx, topics)
	if err != nil {
		return nil, err
	}
	var existing []string
	for name, t := range out {
		if t.Exists {
			existing = append(existing, name)
		}
	}
	if len(existing) == 0 {
		return out, nil
	}
	rcs, err := k.adm.DescribeTopicConfigs(ctx, existing...)
	if err != nil {
		return nil, err
	}
	for _, rc := range rcs {
		t, ok := out[rc.Name]
		if !ok {
			continue
		}
		if rc.Err != nil {
			if errors.Is(rc.Err, kerr.UnknownTopicOrPartition) {
				out[rc.Name] = Topic{} // deleted between the two reads
				continue
			}
			return nil, rc.Err
		}
		for _, c := range rc.Configs {
			if c.Source == kmsg.ConfigSourceDynamicTopicConfig && c.Value != nil {
				t.Config[c.Key] = *c.Value
			}
		}
	}
	return out, nil
}

func (k *kadmKafka) Create(ctx context.Context, topic string, partitions int32, replicationFactor *int32, config map[string]string) (string, error) {
	rf := int16(-1) // the cluster's default_topic_replication
	if replicationFactor != nil {
		rf = int16(*replicationFactor)
	}
	configs := make(map[string]*string, len(config))
	for key, v := range config {
		configs[key] = kadm.StringPtr(v)
	}
	resp, err := k.adm.CreateTopic(ctx, partitions, rf, configs, topic)
	if err != nil {
		return "", withMessage(err, resp.ErrMessage)
	}
	return topicID(resp.ID), nil
}

// topicID writes a topic ID as Kafka does (apache/kafka clients Uuid.toString: URL-safe
// base64 without padding); the zero ID, which a broker without IDs sends, is empty.
func topicID(id [16]byte) string {
	if id == [16]byte{} {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(id[:])
}

func (k *kadmKafka) SetPartitions(ctx context.Context, topic string, n int32) error {
	rs, err := k.adm.UpdatePartitions(ctx, int(n), topic)
	if err != nil {
		return err
	}
	r, err := rs.On(topic, nil)
	if err != nil {
		return err
	}
	return withMessage(r.Err, r.ErrMessage)
}

func (k *kadmKafka) AlterConfig(ctx context.Context, topic string, set map[string]string, reset []string) error {
	var alters []kadm.AlterConfig
	for key, v := range set {
		alters = append(alters, kadm.AlterConfig{Op: kadm.SetConfig, Name: key, Value: kadm.StringPtr(v)})
	}
	for _, key := range reset {
		alters = append(alters, kadm.AlterConfig{Op: kadm.DeleteConfig, Name: key})
	}
	rs, err := k.adm.AlterTopicConfigs(ctx, alters, topic)
	if err != nil {
		return err
	}
	r, err := rs.On(topic, nil)
	if err != nil {
		return err
	}
	return withMessage(r.Err, r.ErrMessage)
}

func (k *kadmKafka) Delete(ctx context.Context, topic string) error {
	resp, err := k.adm.DeleteTopic(ctx, topic)
	if errors.Is(err, kerr.UnknownTopicOrPartition) {
		return nil // already gone: what a delete wants
	}
	return withMessage(err, resp.ErrMessage)
}

// metadata reads the topics' partitions and replicas with a Metadata request of its own.
// kadm's ListTopics would serve kgo's cached metadata, up to MetadataMinAge (5 s) old
// (franz-go pkg/kgo/client.go, RequestCachedMetadata): a topic created or grown a moment ago
// would look absent or smaller, and a decision would be made on the past.
func (k *kadmKafka) metadata(ctx context.Context, topics []string) (map[string]Topic, error) {
	req := kmsg.NewPtrMetadataRequest()
	for _, topic := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(topic)
		req.Topics = append(req.Topics, rt)
	}
	req.AllowAutoTopicCreation = false
	resp, err := req.RequestWith(ctx, k.client)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Topic, len(topics))
	for _, topic := range topics {
		out[topic] = Topic{}
	}
	for _, mt := range resp.Topics {
		if mt.Topic == nil {
			continue
		}
		if _, asked := out[*mt.Topic]; !asked {
			continue
		}
		if err := kerr.ErrorForCode(mt.ErrorCode); errors.Is(err, kerr.UnknownTopicOrPartition) {
			continue
		} else if err != nil {
			return nil, fmt.Errorf("topic %q: %w", *mt.Topic, err)
		}
		t := Topic{Exists: true, ID: topicID(mt.TopicID), Partitions: int32(len(mt.Partitions)), Config: map[string]string{}}
		for _, p := range mt.Partitions {
			if p.Partition == 0 {
				t.ReplicationFactor = int32(len(p.Replicas))
			}
		}
		out[*mt.Topic] = t
	}
	return out, nil
}

// withMessage adds the broker's error message, which says why (an invalid config value, a
// replication factor above the broker count), to its error code.
func withMessage(err error, msg string) error {
	if err == nil || msg == "" {
		return err
	}
	return fmt.Errorf("%w: %s", err, msg)
}
