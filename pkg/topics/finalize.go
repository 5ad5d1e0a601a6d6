package topics

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/broker-operator/broker-operator/internal/keyqueue"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// keepFinalizer holds the finalizer exactly under deletionPolicy Delete: Retain never blocks a
// deletion, so a namespace with Retain topics never waits on the operator.
func (r *reconcile) keepFinalizer(ctx context.Context) error {
	want := r.bt.Spec.DeletionPolicy == v1alpha1.TopicDelete
	updated, err := keyqueue.SetFinalizer(ctx, r.bt, Finalizer, want, r.nc.brokerTopics(r.bt.Namespace).Update)
	if err != nil {
		return err
	}
	r.bt = updated
	return nil
}

// finalize runs once the resource is being deleted. It deletes the topic only when the
// resource holds the finalizer (deletionPolicy Delete), created or adopted the topic, and is
// its owner; in every other case the topic stays. The finalizer goes either way, and goes with
// an event when the cluster is gone, so a deleted cluster never holds its topics' resources,
// nor their namespace (redpanda-data/redpanda-operator#1626 fixed that hang for its own
// resources that name a cluster).
func (r *reconcile) finalize(ctx context.Context) error {
	if !slices.Contains(r.bt.Finalizers, Finalizer) {
		return nil
	}
	own, err := r.owner()
	if err != nil {
		return err
	}
	switch {
	case r.bc == nil:
		r.event(corev1.EventTypeWarning, EventClusterGone, "BrokerCluster %s is gone: the finalizer is removed and topic %q was not deleted", r.bt.Spec.ClusterRef.Name, r.topic)
	case r.bt.Spec.DeletionPolicy != v1alpha1.TopicDelete || !managesTopic(r.bt):
		r.event(corev1.EventTypeNormal, EventTopicRetained, "Topic %q is left in Kafka: this resource did not create or adopt it", r.topic)
	case own.UID != r.bt.UID:
		r.event(corev1.EventTypeNormal, EventTopicRetained, "Topic %q is left in Kafka: BrokerTopic %s owns it", r.topic, own.Name)
	default:
		if err := r.deleteTopic(ctx); err != nil {
			return err
		}
	}
	_, err = keyqueue.SetFinalizer(ctx, r.bt, Finalizer, false, r.nc.brokerTopics(r.bt.Namespace).Update)
	return err
}

func (r *reconcile) deleteTopic(ctx context.Context) error {
	err := r.callDelete(ctx)
	switch {
	case err == nil:
		r.event(corev1.EventTypeNormal, EventTopicDeleted, "Deleted topic %q (deletionPolicy Delete)", r.topic)
		return nil
	case errors.Is(err, errReplaced):
		r.event(corev1.EventTypeNormal, EventTopicRetained, "Topic %q is left in Kafka: it was made again outside this resource since it created or adopted it", r.topic)
		return nil
	case errors.Is(err, errGone):
		return nil
	}
	if !refused(err) {
		r.c.clients.drop(r.bc.Namespace, r.bc.Name)
	}
	r.notReady(ReasonDeleting, fmt.Sprintf("deleting topic %q: %v", r.topic, err))
	return errors.Join(fmt.Errorf("delete topic %q: %w", r.topic, err), r.writeStatus(ctx))
}

var (
	errReplaced = errors.New("the topic was made again outside the resource")
	errGone     = errors.New("the topic is already gone")
)

// callDelete deletes the topic after reading it afresh: a delete takes data away for good, so
// the fact it relies on, that the topic is the one this resource created or adopted (its ID),
// is read from Kafka right before the call, not taken from the last reconcile.
func (r *reconcile) callDelete(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, r.c.cfg.KafkaTimeout)
	defer cancel()
	k, err := r.c.clients.get(ctx, r.bc)
	if err != nil {
		return err
	}
	t, err := k.Describe(ctx, r.topic)
	switch {
	case err != nil:
		return err
	case !t.Exists:
		return errGone
	case replaced(r.bt.Status.TopicID, t.ID):
		return errReplaced
	}
	return k.Delete(ctx, r.topic)
}
