package users

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// indexByCluster: namespace/cluster, the BrokerUsers of one cluster.
const indexByCluster = "brokeruser-cluster"

// namespaceCache holds one watched namespace's informers. BrokerUsers are read through the
// write-back overlay, so that a reconcile sees its own finalizer and status writes; the
// BrokerClusters are only read, from their informer. With a metadata client, the Secrets'
// metadata is watched (secrets.go), so that a rotated password is set at once. The BrokerUser
// informer resyncs every resync, which is how a user or ACL changed outside is found.
type namespaceCache struct {
	client       versioned.Interface
	factory      brokerinformers.SharedInformerFactory
	userInformer cache.SharedIndexInformer
	userOverlay  *writeback.Overlay
	users        brokerlisters.BrokerUserLister

	clusterInformer cache.SharedIndexInformer
	clusters        brokerlisters.BrokerClusterLister

	// secretInformer and secretRunner are nil without Config.MetadataClient.
	secretInformer cache.SharedIndexInformer
	secretRunner   *informerRunner

	synced []cache.InformerSynced
}

func newNamespaceCache(cfg Config, namespace string) (*namespaceCache, error) {
	n := &namespaceCache{client: cfg.BrokerClient}
	n.factory = brokerinformers.NewSharedInformerFactoryWithOptions(cfg.BrokerClient, 0,
		brokerinformers.WithNamespace(namespace),
		brokerinformers.WithCustomResyncConfig(map[metav1.Object]time.Duration{&v1alpha1.BrokerUser{}: cfg.ResyncInterval}))
	n.userInformer = n.factory.Brokers().V1alpha1().BrokerUsers().Informer()
	n.clusterInformer = n.factory.Brokers().V1alpha1().BrokerClusters().Informer()
	err := n.userInformer.AddIndexers(cache.Indexers{
		indexByCluster: func(obj any) ([]string, error) {
			if bu, ok := obj.(*v1alpha1.BrokerUser); ok {
				return []string{bu.Namespace + "/" + bu.Spec.ClusterRef.Name}, nil
			}
			return nil, nil
		},
		indexBySecret: bySecret,
	})
	if err != nil {
		return nil, fmt.Errorf("index BrokerUsers: %w", err)
	}
	if cfg.MetadataClient != nil {
		n.watchSecrets(cfg, namespace)
	}
	n.userOverlay, err = keyqueue.Overlay("brokerusers", n.userInformer,
		writeback.Options{TTL: cfg.WritebackTTL, Clock: cfg.Clock, Metrics: cfg.WritebackMetrics}, &n.synced)
	if err != nil {
		return nil, err
	}
	n.synced = append(n.synced, n.clusterInformer.HasSynced)
	n.users = brokerlisters.NewBrokerUserLister(n.userOverlay)
	n.clusters = brokerlisters.NewBrokerClusterLister(n.clusterInformer.GetIndexer())
	return n, nil
}

func (n *namespaceCache) addHandler(informer cache.SharedIndexInformer, h cache.ResourceEventHandler) error {
	return keyqueue.Handle(informer, h, &n.synced)
}

// brokerUsers is the write-back client: every write's result enters the overlay.
func (n *namespaceCache) brokerUsers(ns string) brokersclient.BrokerUserInterface {
	return writeback.Wrap[*v1alpha1.BrokerUser, *v1alpha1.BrokerUserList, *applybrokers.BrokerUserApplyConfiguration](n.client.BrokersV1alpha1().BrokerUsers(ns), ns, n.userOverlay)
}
