package topics

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/broker-operator/broker-operator/internal/keyqueue"
	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	"github.com/broker-operator/broker-operator/pkg/writeback"
)

// Config is what the BrokerTopic controller runs with.
type Config struct {
	KubeClient   kubernetes.Interface
	BrokerClient versioned.Interface
	// Namespaces to watch; none means all.
	Namespaces []string
	// Connect opens a Kafka client for a cluster. Nil: ClusterConnector(KubeClient,
	// ClusterDomain).
	Connect ConnectFunc
	// ClusterDomain is the Kubernetes cluster's DNS domain, which the brokers' names end in.
	// Empty: admin.DefaultClusterDomain.
	ClusterDomain string
	// Recorder receives the events; nil drops them.
	Recorder record.EventRecorder
	// Clock stamps conditions and drives the queue's delays. Nil: the real clock.
	Clock clock.WithTicker
	// KafkaTimeout bounds the Kafka calls of one reconcile. Zero: DefaultKafkaTimeout.
	KafkaTimeout time.Duration
	// SweepInterval is how often each cluster's topics are read at once to find drift
	// (sweep.go). Zero: DefaultSweepInterval; negative: no sweeps.
	SweepInterval time.Duration
	// MaxRetryDelay caps the backoff of a failing topic. Zero: DefaultMaxRetryDelay.
	MaxRetryDelay time.Duration
	// WritebackTTL and WritebackMetrics are the overlay's (writeback.Options).
	WritebackTTL     time.Duration
	WritebackMetrics *writeback.Metrics
}

// Defaults of Config.
const (
	DefaultKafkaTimeout  = 30 * time.Second
	DefaultMaxRetryDelay = 5 * time.Minute
	DefaultSweepInterval = 5 * time.Minute
)

func (cfg Config) withDefaults() (Config, error) {
	if cfg.KubeClient == nil || cfg.BrokerClient == nil {
		return cfg, errors.New("topics: KubeClient and BrokerClient are required")
	}
	if cfg.ClusterDomain == "" {
		cfg.ClusterDomain = admin.DefaultClusterDomain
	}
	if err := admin.ValidateClusterDomain(cfg.ClusterDomain); err != nil {
		return cfg, fmt.Errorf("topics: %w", err)
	}
	if cfg.Connect == nil {
		cfg.Connect = ClusterConnector(cfg.KubeClient, cfg.ClusterDomain)
	}
	if cfg.Recorder == nil {
		cfg.Recorder = &record.FakeRecorder{} // nil channel: events are dropped
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.KafkaTimeout <= 0 {
		cfg.KafkaTimeout = DefaultKafkaTimeout
	}
	if cfg.MaxRetryDelay <= 0 {
		cfg.MaxRetryDelay = DefaultMaxRetryDelay
	}
	if cfg.SweepInterval == 0 {
		cfg.SweepInterval = DefaultSweepInterval
	}
	return cfg, nil
}

// Controller reconciles BrokerTopics: one workqueue of namespace/name keys, N workers, as the
// BrokerCluster controller (pkg/controller/controller.go) does.
type Controller struct {
	cfg     Config
	caches  map[string]*namespaceCache
	queue   keyqueue.Queue
	clients *clients
}

// NewController builds the informers, overlays and queue. Nothing runs until Run.
func NewController(cfg Config) (*Controller, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Controller{
		cfg:     cfg,
		caches:  map[string]*namespaceCache{},
		queue:   keyqueue.New("brokertopics", cfg.Clock, cfg.MaxRetryDelay),
		clients: newClients(cfg.Connect),
	}
	namespaces := cfg.Namespaces
	if len(namespaces) == 0 {
		namespaces = []string{metav1.NamespaceAll}
	}
	for _, ns := range namespaces {
		nc, err := newNamespaceCache(cfg, ns)
		if err != nil {
			return nil, fmt.Errorf("topics: namespace %q: %w", ns, err)
		}
		if err := c.addHandlers(nc); err != nil {
			return nil, fmt.Errorf("topics: namespace %q: %w", ns, err)
		}
		c.caches[ns] = nc
	}
	return c, nil
}

func (c *Controller) addHandlers(nc *namespaceCache) error {
	topicEvents := cache.ResourceEventHandlerFuncs{
		AddFunc: c.enqueue,
		UpdateFunc: func(old, cur any) {
			if keyqueue.Changed(old, cur) {
				c.enqueue(cur)
			}
		},
		// A resource that goes may hand its topic to the next one that names it.
		DeleteFunc: func(obj any) {
			c.enqueue(obj)
			if bt, ok := topicOf(obj); ok {
				c.enqueueIndexed(nc, indexByTopic, topicKey(bt))
			}
		},
	}
	clusterEvents := cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { c.enqueueClusterTopics(nc, obj) },
		// Only what changes a topic's reconcile: not the cluster's frequent status writes.
		UpdateFunc: func(old, cur any) {
			o, ok1 := old.(*v1alpha1.BrokerCluster)
			n, ok2 := cur.(*v1alpha1.BrokerCluster)
			if !ok1 || !ok2 || o.UID != n.UID || o.Generation != n.Generation || (o.DeletionTimestamp == nil) != (n.DeletionTimestamp == nil) {
				c.enqueueClusterTopics(nc, cur)
			}
		},
		DeleteFunc: func(obj any) {
			c.enqueueClusterTopics(nc, obj)
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if m, ok := obj.(metav1.Object); ok {
				c.clients.drop(m.GetNamespace(), m.GetName())
			}
		},
	}
	return errors.Join(nc.addHandler(nc.topicInformer, topicEvents), nc.addHandler(nc.clusterInformer, clusterEvents))
}

func topicOf(obj any) (*v1alpha1.BrokerTopic, bool) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	bt, ok := obj.(*v1alpha1.BrokerTopic)
	return bt, ok
}

func (c *Controller) enqueue(obj any) { keyqueue.Add(c.queue, obj) }

func (c *Controller) enqueueClusterTopics(nc *namespaceCache, obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		return
	}
	c.enqueueIndexed(nc, indexByCluster, m.GetNamespace()+"/"+m.GetName())
}

func (c *Controller) enqueueIndexed(nc *namespaceCache, index, value string) {
	objs, err := nc.topicOverlay.ByIndex(index, value)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	for _, obj := range objs {
		c.enqueue(obj)
	}
}

func (c *Controller) cacheFor(ns string) *namespaceCache {
	if nc, ok := c.caches[metav1.NamespaceAll]; ok {
		return nc
	}
	return c.caches[ns]
}

// HasSynced reports whether every informer and handler has synced.
func (c *Controller) HasSynced() bool {
	for _, nc := range c.caches {
		for _, s := range nc.synced {
			if !s() {
				return false
			}
		}
	}
	return true
}

// Run starts the informers, waits for their caches and runs workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrashWithContext(ctx)
	if workers < 1 {
		return fmt.Errorf("topics: %d workers; want at least 1", workers)
	}
	logger := klog.FromContext(ctx)
	defer func() {
		for _, nc := range c.caches {
			nc.factory.Shutdown()
		}
		c.clients.closeAll()
	}()
	if err := c.start(ctx); err != nil {
		c.queue.ShutDown()
		if ctx.Err() != nil {
			return nil // stopped before the caches synced: nothing ran
		}
		return err
	}
	logger.Info("Starting BrokerTopic workers", "workers", workers, "sweepInterval", c.cfg.SweepInterval)
	var wg sync.WaitGroup
	if c.cfg.SweepInterval > 0 {
		wg.Go(func() { c.runSweeps(ctx) })
	}
	keyqueue.Work(ctx, &wg, c.queue, workers, "BrokerTopic", c.sync)
	<-ctx.Done()
	c.queue.ShutDown()
	wg.Wait()
	return nil
}

// start starts the informers and waits until every cache and handler has synced.
func (c *Controller) start(ctx context.Context) error {
	for _, nc := range c.caches {
		nc.factory.Start(ctx.Done())
	}
	if !cache.WaitForCacheSync(ctx.Done(), c.HasSynced) {
		return errors.New("topics: informer caches did not sync")
	}
	return nil
}
