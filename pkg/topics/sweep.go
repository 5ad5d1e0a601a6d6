package topics

import (
	"context"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// Drift (a key changed with rpk, a topic deleted by hand) comes with no event. It is found by one
// sweep per cluster every Config.SweepInterval: two Kafka requests for all of the cluster's
// topics (DescribeAll), never a timer per topic, which does not scale to thousands of topics
// (strimzi/strimzi-kafka-operator#2899 and #10054 are the slowness this avoids). A sweep only
// queues the resources whose topic drifted; it writes nothing, so a sweep in which nothing
// drifted makes no status write at all.

// runSweeps sweeps every cluster each interval until ctx ends.
func (c *Controller) runSweeps(ctx context.Context) {
	t := c.cfg.Clock.NewTicker(c.cfg.SweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			c.sweep(ctx)
		}
	}
}

// sweep sweeps every cluster that is not being deleted, one after the other.
func (c *Controller) sweep(ctx context.Context) {
	for _, nc := range c.caches {
		clusters, err := nc.clusters.List(labels.Everything())
		if err != nil {
			continue
		}
		for _, bc := range clusters {
			if bc.DeletionTimestamp == nil {
				c.sweepCluster(ctx, nc, bc)
			}
		}
	}
}

// sweepCluster reads the topics of one cluster's resources at once and queues those that
// drifted. Only the owner of each topic is looked at; a resource being deleted is left to its
// own reconcile.
func (c *Controller) sweepCluster(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster) {
	logger := klog.FromContext(ctx)
	objs, err := nc.topicOverlay.ByIndex(indexByCluster, bc.Namespace+"/"+bc.Name)
	if err != nil || len(objs) == 0 {
		return
	}
	groups := map[string][]*v1alpha1.BrokerTopic{}
	for _, obj := range objs {
		if bt, ok := obj.(*v1alpha1.BrokerTopic); ok {
			groups[TopicName(bt)] = append(groups[TopicName(bt)], bt)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.KafkaTimeout)
	defer cancel()
	k, err := c.clients.get(ctx, bc)
	if err != nil {
		logger.V(2).Info("Topic sweep skipped: cannot connect", "brokercluster", klog.KObj(bc), "err", err)
		return
	}
	topics, err := k.DescribeAll(ctx, slices.Sorted(maps.Keys(groups)))
	if err != nil {
		logger.V(2).Info("Topic sweep skipped: cannot read the topics", "brokercluster", klog.KObj(bc), "err", err)
		return
	}
	queued := 0
	for name, group := range groups {
		bt := owner(group)
		if bt.DeletionTimestamp == nil && drifted(bt, topics[name]) {
			c.queue.Add(bt.Namespace + "/" + bt.Name)
			queued++
		}
	}
	logger.V(4).Info("Swept topics", "brokercluster", klog.KObj(bc), "topics", len(groups), "drifted", queued)
}
