package topics

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	// Connect opens a Kafka client for a cluster. Nil: ClusterConnector(KubeClient, the
	// template AddressTemplate renders in ClusterDomain).
	Connect ConnectFunc
	// AddressTemplate renders the brokers' internal Kafka addresses, as --kafka-address-template
	// does. Empty: DefaultAddressTemplate.
	AddressTemplate string
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
		addrs, err := ParseAddressTemplate(cmp.Or(cfg.AddressTemplate, DefaultAddressTemplate), cfg.ClusterDomain)
		if err != nil {
			return cfg, fmt.Errorf("topics: %w", err)
		}
		cfg.Connect = ClusterConnector(cfg.KubeClient, addrs)
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
	cfg       Config
	caches    map[string]*namespaceCache
	informers keyqueue.Informers
	queue     keyqueue.Queue
	clients   *clients
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
	for _, ns := range keyqueue.Namespaces(cfg.Namespaces) {
		nc, err := newNamespaceCache(cfg, ns)
		if err != nil {
			return nil, fmt.Errorf("topics: namespace %q: %w", ns, err)
		}
		if err := c.addHandlers(nc); err != nil {
			return nil, fmt.Errorf("topics: namespace %q: %w", ns, err)
		}
		c.caches[ns] = nc
		c.informers.Add(nc.factory, nc.synced...)
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
	clusterEvents := keyqueue.ClusterEvents(func(key string) { c.enqueueIndexed(nc, indexByCluster, key) }, c.clients.drop)
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

func (c *Controller) enqueueIndexed(nc *namespaceCache, index, value string) {
	keyqueue.AddIndexed(c.queue, nc.topicOverlay, index, value)
}

func (c *Controller) cacheFor(ns string) *namespaceCache {
	if nc, ok := c.caches[metav1.NamespaceAll]; ok {
		return nc
	}
	return c.caches[ns]
}

// HasSynced reports whether every informer and handler has synced.
func (c *Controller) HasSynced() bool { return c.informers.HasSynced() }

// Run starts the informers, waits for their caches and runs workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer c.clients.closeAll()
	var also []func(context.Context)
	if c.cfg.SweepInterval > 0 {
		klog.FromContext(ctx).Info("BrokerTopic drift sweeps", "sweepInterval", c.cfg.SweepInterval)
		also = append(also, c.runSweeps)
	}
	return c.informers.Run(ctx, c.queue, workers, "BrokerTopic", c.sync, also...)
}
