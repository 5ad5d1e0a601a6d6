package controller

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	brokerinformers "github.com/broker-operator/broker-operator/pkg/generated/informers/externalversions"
	brokerlisters "github.com/broker-operator/broker-operator/pkg/generated/listers/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/writeback"
)

// namespaceCache holds the informers, overlays and listers of one watched namespace ("" for
// all namespaces). Owned objects are watched only when they carry the managed-by label, to
// bound the memory the informers take.
type namespaceCache struct {
	namespace    string
	kubeClient   kubernetes.Interface
	brokerClient versioned.Interface
	// strategy says where a reconcile reads from (readstrategy.go).
	strategy ReadStrategy

	brokerFactory brokerinformers.SharedInformerFactory
	kubeFactory   informers.SharedInformerFactory

	brokerClusterInformer cache.SharedIndexInformer
	statefulSetInformer   cache.SharedIndexInformer
	serviceInformer       cache.SharedIndexInformer
	pdbInformer           cache.SharedIndexInformer
	podInformer           cache.SharedIndexInformer
	// serviceAccountInformer sees only the service accounts the operator makes (the
	// managed-by label), not those a spec names.
	serviceAccountInformer cache.SharedIndexInformer
	// configMapInformer sees the seeds ConfigMaps of clusters with pools (the managed-by
	// label), read every reconcile of such a cluster.
	configMapInformer cache.SharedIndexInformer

	brokerClusterOverlay  *writeback.Overlay
	statefulSetOverlay    *writeback.Overlay
	serviceOverlay        *writeback.Overlay
	pdbOverlay            *writeback.Overlay
	podOverlay            *writeback.Overlay
	serviceAccountOverlay *writeback.Overlay
	configMapOverlay      *writeback.Overlay

	// overlaid reads see the controller's own writes; raw reads are the informers' alone.
	overlaid, raw listerSet

	// synced are the HasSynced of the informers and of every handler registered on them.
	synced []cache.InformerSynced
}

// listerSet is one way of reading the cached resources.
type listerSet struct {
	brokerClusters  brokerlisters.BrokerClusterLister
	statefulSets    appslisters.StatefulSetLister
	services        corelisters.ServiceLister
	pdbs            policylisters.PodDisruptionBudgetLister
	serviceAccounts corelisters.ServiceAccountLister
	configMaps      corelisters.ConfigMapLister
	// serviceIndex and pods are read by cluster (byCluster: clusterServices, clusterPods), not
	// through a lister's List, which scans the whole namespace.
	serviceIndex cache.Indexer
	pods         cache.Indexer
}

func newNamespaceCache(cfg Config, namespace string, metrics *writeback.Metrics) (*namespaceCache, error) {
	n := &namespaceCache{namespace: namespace, kubeClient: cfg.KubeClient, brokerClient: cfg.BrokerClient, strategy: cfg.readStrategy}
	n.brokerFactory = brokerinformers.NewSharedInformerFactoryWithOptions(cfg.BrokerClient, 0,
		brokerinformers.WithNamespace(namespace))
	n.kubeFactory = informers.NewSharedInformerFactoryWithOptions(cfg.KubeClient, 0,
		informers.WithNamespace(namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = objects.ManagedBySelector }))

	n.brokerClusterInformer = n.brokerFactory.Brokers().V1alpha1().BrokerClusters().Informer()
	n.statefulSetInformer = n.kubeFactory.Apps().V1().StatefulSets().Informer()
	n.serviceInformer = n.kubeFactory.Core().V1().Services().Informer()
	n.pdbInformer = n.kubeFactory.Policy().V1().PodDisruptionBudgets().Informer()
	n.podInformer = n.kubeFactory.Core().V1().Pods().Informer()
	n.serviceAccountInformer = n.kubeFactory.Core().V1().ServiceAccounts().Informer()
	n.configMapInformer = n.kubeFactory.Core().V1().ConfigMaps().Informer()
	if err := objects.IndexByCluster(n.podInformer); err != nil {
		return nil, fmt.Errorf("index pods by cluster: %w", err)
	}
	if err := objects.IndexByCluster(n.serviceInformer); err != nil {
		return nil, fmt.Errorf("index Services by cluster: %w", err)
	}

	opts := writeback.Options{TTL: cfg.WritebackTTL, Clock: cfg.Clock, Metrics: metrics}
	overlay := func(resource string, informer cache.SharedIndexInformer) (*writeback.Overlay, error) {
		o := writeback.NewOverlay(resource, informer.GetIndexer(), opts)
		reg, err := o.Observe(informer)
		if err != nil {
			return nil, fmt.Errorf("observe %s: %w", resource, err)
		}
		n.synced = append(n.synced, informer.HasSynced, reg.HasSynced)
		return o, nil
	}
	var err error
	if n.brokerClusterOverlay, err = overlay("brokerclusters", n.brokerClusterInformer); err != nil {
		return nil, err
	}
	if n.statefulSetOverlay, err = overlay("statefulsets", n.statefulSetInformer); err != nil {
		return nil, err
	}
	if n.serviceOverlay, err = overlay("services", n.serviceInformer); err != nil {
		return nil, err
	}
	if n.pdbOverlay, err = overlay("poddisruptionbudgets", n.pdbInformer); err != nil {
		return nil, err
	}
	if n.podOverlay, err = overlay("pods", n.podInformer); err != nil {
		return nil, err
	}
	if n.serviceAccountOverlay, err = overlay("serviceaccounts", n.serviceAccountInformer); err != nil {
		return nil, err
	}
	if n.configMapOverlay, err = overlay("configmaps", n.configMapInformer); err != nil {
		return nil, err
	}

	n.overlaid = listerSet{
		brokerClusters:  brokerlisters.NewBrokerClusterLister(n.brokerClusterOverlay),
		statefulSets:    appslisters.NewStatefulSetLister(n.statefulSetOverlay),
		services:        corelisters.NewServiceLister(n.serviceOverlay),
		serviceIndex:    n.serviceOverlay,
		pdbs:            policylisters.NewPodDisruptionBudgetLister(n.pdbOverlay),
		serviceAccounts: corelisters.NewServiceAccountLister(n.serviceAccountOverlay),
		configMaps:      corelisters.NewConfigMapLister(n.configMapOverlay),
		pods:            n.podOverlay,
	}
	n.raw = listerSet{
		brokerClusters:  brokerlisters.NewBrokerClusterLister(n.brokerClusterInformer.GetIndexer()),
		statefulSets:    appslisters.NewStatefulSetLister(n.statefulSetInformer.GetIndexer()),
		services:        corelisters.NewServiceLister(n.serviceInformer.GetIndexer()),
		serviceIndex:    n.serviceInformer.GetIndexer(),
		pdbs:            policylisters.NewPodDisruptionBudgetLister(n.pdbInformer.GetIndexer()),
		serviceAccounts: corelisters.NewServiceAccountLister(n.serviceAccountInformer.GetIndexer()),
		configMaps:      corelisters.NewConfigMapLister(n.configMapInformer.GetIndexer()),
		pods:            n.podInformer.GetIndexer(),
	}
	return n, nil
}

// addHandler registers h on an informer and remembers its HasSynced.
func (n *namespaceCache) addHandler(informer cache.SharedIndexInformer, h cache.ResourceEventHandler) error {
	reg, err := informer.AddEventHandler(h)
	if err != nil {
		return err
	}
	n.synced = append(n.synced, reg.HasSynced)
	return nil
}

func (n *namespaceCache) overlays() []*writeback.Overlay {
	return []*writeback.Overlay{n.brokerClusterOverlay, n.statefulSetOverlay, n.serviceOverlay, n.pdbOverlay, n.podOverlay, n.serviceAccountOverlay, n.configMapOverlay}
}

func (n *namespaceCache) start(stop <-chan struct{}) {
	n.brokerFactory.Start(stop)
	n.kubeFactory.Start(stop)
}

func (n *namespaceCache) shutdown() {
	n.brokerFactory.Shutdown()
	n.kubeFactory.Shutdown()
}

func (n *namespaceCache) hasSynced() bool {
	for _, s := range n.synced {
		if !s() {
			return false
		}
	}
	return true
}
