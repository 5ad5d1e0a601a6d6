package topics

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// reconcile is one pass over one BrokerTopic: bt is the latest copy (each write replaces it),
// status the status the pass will write, once, at its end.
type reconcile struct {
	c      *Controller
	nc     *namespaceCache
	bt     *v1alpha1.BrokerTopic
	status v1alpha1.BrokerTopicStatus
	topic  string
	// bc is the referenced cluster; nil when it is not found or is being deleted.
	bc *v1alpha1.BrokerCluster
}

// sync reconciles the BrokerTopic named by key. It returns an error for a failure worth a
// retry with backoff; a wait that an event will end (the cluster created, the adopt
// annotation, the owner gone) is a condition and returns nil.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // a malformed key never becomes valid
	}
	nc := c.cacheFor(ns)
	if nc == nil {
		return nil
	}
	bt, err := nc.topics.BrokerTopics(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	r := &reconcile{c: c, nc: nc, bt: bt, status: *bt.Status.DeepCopy(), topic: TopicName(bt)}
	bc, err := nc.clusters.BrokerClusters(ns).Get(bt.Spec.ClusterRef.Name)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return err
	case bc.DeletionTimestamp == nil:
		r.bc = bc
	}
	klog.FromContext(ctx).V(4).Info("Reconciling BrokerTopic", "brokertopic", klog.KObj(bt), "topic", r.topic)

	if bt.DeletionTimestamp != nil {
		return r.finalize(ctx)
	}
	if err := r.keepFinalizer(ctx); err != nil {
		return err
	}
	r.status.TopicName = r.topic
	r.status.ObservedGeneration = r.bt.Generation
	err = r.converge(ctx)
	return errors.Join(err, r.writeStatus(ctx))
}

// converge brings the topic to the spec, or says in Ready why it does not.
func (r *reconcile) converge(ctx context.Context) error {
	if r.bc == nil {
		r.notReady(ReasonClusterNotFound, fmt.Sprintf("BrokerCluster %s does not exist in namespace %s, or is being deleted", r.bt.Spec.ClusterRef.Name, r.bt.Namespace))
		return nil
	}
	if own, err := r.owner(); err != nil {
		return err
	} else if own.UID != r.bt.UID {
		r.notReady(ReasonResourceConflict, fmt.Sprintf("BrokerTopic %s, which manages topic %q of cluster %s or is older, owns it; this resource changes nothing while that one exists", own.Name, r.topic, r.bc.Name))
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.c.cfg.KafkaTimeout)
	defer cancel()
	k, err := r.c.clients.get(ctx, r.bc)
	if err != nil {
		r.notReady(ReasonKafkaUnavailable, fmt.Sprintf("cannot connect to cluster %s: %v", r.bc.Name, err))
		return err
	}
	t, err := k.Describe(ctx, r.topic)
	if err != nil {
		return r.failed(err, "describe topic")
	}
	if !t.Exists {
		return r.create(ctx, k)
	}
	if managesTopic(r.bt) && replaced(r.status.TopicID, t.ID) {
		// Deleted and made again by someone else since this resource last saw it.
		r.event(corev1.EventTypeWarning, EventTopicReplaced, "Topic %q has another ID (%s, was %s): it was made again outside this resource, which no longer manages it", r.topic, t.ID, r.status.TopicID)
		r.status.Origin, r.status.TopicID, r.status.ManagedConfig = "", "", nil
	}
	switch r.status.Origin {
	case v1alpha1.TopicCreating:
		// The create's answer was lost, or its status write failed: the intent was recorded
		// before the request, so the topic is this resource's.
		r.status.Origin = v1alpha1.TopicCreated
	case "":
		if !adoptRequested(r.bt) {
			r.status.Partitions, r.status.ReplicationFactor = t.Partitions, t.ReplicationFactor
			r.notReady(ReasonAdoptionRequired, fmt.Sprintf("topic %q already exists and this resource did not create it; it is left untouched until the resource is annotated %s=true", r.topic, v1alpha1.AdoptAnnotation))
			return nil
		}
		r.status.Origin, r.status.TopicID = v1alpha1.TopicAdopted, t.ID
		r.event(corev1.EventTypeNormal, EventTopicAdopted, "Adopted the existing topic %q (%d partitions)", r.topic, t.Partitions)
	}
	return r.update(ctx, k, t)
}

// owner is the oldest BrokerTopic that names the same topic of the same cluster.
func (r *reconcile) owner() (*v1alpha1.BrokerTopic, error) {
	objs, err := r.nc.topicOverlay.ByIndex(indexByTopic, topicKey(r.bt))
	if err != nil {
		return nil, err
	}
	group := []*v1alpha1.BrokerTopic{r.bt}
	for _, obj := range objs {
		if bt, ok := obj.(*v1alpha1.BrokerTopic); ok && bt.UID != r.bt.UID {
			group = append(group, bt)
		}
	}
	return owner(group), nil
}

// create records the intent in status, then creates the topic with the spec's partitions,
// replication factor and config.
func (r *reconcile) create(ctx context.Context, k Kafka) error {
	r.status.Origin, r.status.ManagedConfig = v1alpha1.TopicCreating, nil
	if err := r.writeStatus(ctx); err != nil {
		return err
	}
	spec := r.bt.Spec
	id, err := k.Create(ctx, r.topic, spec.Partitions, spec.ReplicationFactor, spec.Config)
	switch {
	case err == nil:
		r.status.Origin, r.status.TopicID = v1alpha1.TopicCreated, id
		r.status.ManagedConfig = slices.Sorted(maps.Keys(spec.Config))
		r.status.Partitions = spec.Partitions
		if spec.ReplicationFactor != nil {
			r.status.ReplicationFactor = *spec.ReplicationFactor
		}
		r.event(corev1.EventTypeNormal, EventTopicCreated, "Created topic %q with %d partitions", r.topic, spec.Partitions)
		r.ready()
		return nil
	case errors.Is(err, kerr.TopicAlreadyExists):
		// Made by someone else between the look and the create: not this resource's.
		r.status.Origin = ""
		r.event(corev1.EventTypeWarning, EventCreateRaced, "Topic %q was created by someone else while this resource was creating it; annotate %s=true to manage it", r.topic, v1alpha1.AdoptAnnotation)
		r.notReady(ReasonAdoptionRequired, fmt.Sprintf("topic %q already exists and this resource did not create it; it is left untouched until the resource is annotated %s=true", r.topic, v1alpha1.AdoptAnnotation))
		return nil
	case refused(err):
		r.status.Origin = "" // answered: nothing was created
		return r.failed(err, "create topic")
	default:
		// No answer: the topic may exist now. Origin stays Creating, so the next pass that
		// finds it takes it as this resource's.
		return r.failed(err, "create topic")
	}
}

// update grows the partitions and sets the config keys that differ; nothing is sent when
// nothing differs.
func (r *reconcile) update(ctx context.Context, k Kafka, t Topic) error {
	spec := r.bt.Spec
	r.status.Partitions, r.status.ReplicationFactor = t.Partitions, t.ReplicationFactor
	if r.status.TopicID == "" {
		r.status.TopicID = t.ID // a create whose answer was lost, or a broker that said none
	}
	if spec.Partitions > t.Partitions {
		if err := k.SetPartitions(ctx, r.topic, spec.Partitions); err != nil {
			return r.failed(err, "increase partitions")
		}
		r.status.Partitions = spec.Partitions
		r.event(corev1.EventTypeNormal, EventPartitionsIncreased, "Increased the partitions of topic %q from %d to %d", r.topic, t.Partitions, spec.Partitions)
	}
	if plan := planConfig(spec.Config, t.Config, r.status.ManagedConfig); !plan.empty() {
		if err := k.AlterConfig(ctx, r.topic, plan.set, plan.reset); err != nil {
			return r.failed(err, "alter topic config")
		}
		r.event(corev1.EventTypeNormal, EventConfigUpdated, "Updated the config of topic %q: %s", r.topic, plan.keys())
	}
	r.status.ManagedConfig = slices.Sorted(maps.Keys(spec.Config))
	switch {
	case t.Partitions > spec.Partitions:
		r.notReady(ReasonPartitionsAboveSpec, fmt.Sprintf("topic %q has %d partitions, more than spec.partitions %d; Kafka cannot take partitions away", r.topic, t.Partitions, spec.Partitions))
	case spec.ReplicationFactor != nil && *spec.ReplicationFactor != t.ReplicationFactor:
		r.notReady(ReasonReplicationFactorMismatch, fmt.Sprintf("topic %q has replication factor %d, not spec.replicationFactor %d; the operator does not move replicas", r.topic, t.ReplicationFactor, *spec.ReplicationFactor))
	default:
		r.ready()
	}
	return nil
}

// replaced reports whether the topic in Kafka is another one than the resource recorded: both
// IDs known and different.
func replaced(recorded, now string) bool {
	return recorded != "" && now != "" && recorded != now
}

// refused reports whether Kafka answered the request with a final refusal, as opposed to no
// answer or a retriable one, after which the request may still have taken effect.
func refused(err error) bool {
	var ke *kerr.Error
	return errors.As(err, &ke) && !ke.Retriable
}

// failed records a failed Kafka call in Ready and returns it for a retry with backoff. A call
// that got no final answer also drops the cluster's client, so that the next one reads the
// Secrets again (a rotated password or certificate).
func (r *reconcile) failed(err error, what string) error {
	if refused(err) {
		r.notReady(ReasonRequestRefused, fmt.Sprintf("%s %q: %v", what, r.topic, err))
	} else {
		r.c.clients.drop(r.bc.Namespace, r.bc.Name)
		r.notReady(ReasonKafkaUnavailable, fmt.Sprintf("%s %q on cluster %s: %v", what, r.topic, r.bc.Name, err))
	}
	return fmt.Errorf("%s %q: %w", what, r.topic, err)
}

func (r *reconcile) event(eventType, reason, format string, args ...any) {
	r.c.cfg.Recorder.Eventf(r.bt, eventType, reason, format, args...)
}
