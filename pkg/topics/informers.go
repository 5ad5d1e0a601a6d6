package topics

import (
	"fmt"

	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/internal/keyqueue"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	applybrokers "github.com/broker-operator/broker-operator/pkg/generated/applyconfiguration/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	brokersclient "github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned/typed/brokers/v1alpha1"
	brokerinformers "github.com/broker-operator/broker-operator/pkg/generated/informers/externalversions"
	brokerlisters "github.com/broker-operator/broker-operator/pkg/generated/listers/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/writeback"
)

// Indexes of the BrokerTopic informer.
const (
	// indexByTopic: namespace/cluster/topic, the resources that name one topic.
	indexByTopic = "brokertopic-topic"
	// indexByCluster: namespace/cluster, the resources of one cluster.
	indexByCluster = "brokertopic-cluster"
)

func topicKey(bt *v1alpha1.BrokerTopic) string {
	return bt.Namespace + "/" + bt.Spec.ClusterRef.Name + "/" + TopicName(bt)
}

// namespaceCache holds one watched namespace's informers. BrokerTopics are read through the
// write-back overlay, so that a reconcile sees its own finalizer and status writes; the
// BrokerClusters are only read, from their informer.
type namespaceCache struct {
	client        versioned.Interface
	factory       brokerinformers.SharedInformerFactory
	topicInformer cache.SharedIndexInformer
	topicOverlay  *writeback.Overlay
	topics        brokerlisters.BrokerTopicLister

	clusterInformer cache.SharedIndexInformer
	clusters        brokerlisters.BrokerClusterLister

	synced []cache.InformerSynced
}

func newNamespaceCache(cfg Config, namespace string) (*namespaceCache, error) {
	n := &namespaceCache{client: cfg.BrokerClient}
	n.factory = brokerinformers.NewSharedInformerFactoryWithOptions(cfg.BrokerClient, 0, brokerinformers.WithNamespace(namespace))
	n.topicInformer = n.factory.Brokers().V1alpha1().BrokerTopics().Informer()
	n.clusterInformer = n.factory.Brokers().V1alpha1().BrokerClusters().Informer()
	err := n.topicInformer.AddIndexers(cache.Indexers{
		indexByTopic: func(obj any) ([]string, error) {
			if bt, ok := obj.(*v1alpha1.BrokerTopic); ok {
				return []string{topicKey(bt)}, nil
			}
			return nil, nil
		},
		indexByCluster: func(obj any) ([]string, error) {
			if bt, ok := obj.(*v1alpha1.BrokerTopic); ok {
				return []string{bt.Namespace + "/" + bt.Spec.ClusterRef.Name}, nil
			}
			return nil, nil
		},
	})
	if err != nil {
		return nil, fmt.Errorf("index BrokerTopics: %w", err)
	}
	n.topicOverlay, err = keyqueue.Overlay("brokertopics", n.topicInformer,
		writeback.Options{TTL: cfg.WritebackTTL, Clock: cfg.Clock, Metrics: cfg.WritebackMetrics}, &n.synced)
	if err != nil {
		return nil, err
	}
	n.synced = append(n.synced, n.clusterInformer.HasSynced)
	n.topics = brokerlisters.NewBrokerTopicLister(n.topicOverlay)
	n.clusters = brokerlisters.NewBrokerClusterLister(n.clusterInformer.GetIndexer())
	return n, nil
}

func (n *namespaceCache) addHandler(informer cache.SharedIndexInformer, h cache.ResourceEventHandler) error {
	return keyqueue.Handle(informer, h, &n.synced)
}

// brokerTopics is the write-back client: every write's result enters the overlay.
func (n *namespaceCache) brokerTopics(ns string) brokersclient.BrokerTopicInterface {
	return writeback.Wrap[*v1alpha1.BrokerTopic, *v1alpha1.BrokerTopicList, *applybrokers.BrokerTopicApplyConfiguration](n.client.BrokersV1alpha1().BrokerTopics(ns), ns, n.topicOverlay)
}
