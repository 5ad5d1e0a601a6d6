package users

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/broker-operator/broker-operator/internal/keyqueue"
	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	"github.com/broker-operator/broker-operator/pkg/topics"
	"github.com/broker-operator/broker-operator/pkg/writeback"
)

// Config is what the BrokerUser controller runs with.
type Config struct {
	KubeClient   kubernetes.Interface
	BrokerClient versioned.Interface
	// Namespaces to watch; none means all.
	Namespaces []string
	// Admin opens a cluster's admin API client. Nil: ClusterAdmin(KubeClient, the template
	// AdminAddressTemplate renders in ClusterDomain).
	Admin AdminFunc
	// AdminAddressTemplate renders the brokers' admin URLs, as --admin-address-template does.
	// Empty: admin.DefaultAddressTemplate.
	AdminAddressTemplate string
	// AdminTimeout bounds each admin API request. Zero: admin.DefaultTimeout.
	AdminTimeout time.Duration
	// MetadataClient watches the Secrets' metadata, so that a changed password Secret is
	// noticed at once. Nil: no Secret is watched, and a change is found by the resync.
	MetadataClient metadata.Interface
	// Kafka opens a cluster's Kafka client, for the ACLs. Nil: ClusterKafka(KubeClient, the
	// template KafkaAddressTemplate renders in ClusterDomain).
	Kafka KafkaFunc
	// KafkaAddressTemplate renders the brokers' internal Kafka addresses, as
	// --kafka-address-template does. Empty: topics.DefaultAddressTemplate.
	KafkaAddressTemplate string
	// ClusterDomain is the Kubernetes cluster's DNS domain, which the brokers' names end in.
	// Empty: admin.DefaultClusterDomain.
	ClusterDomain string
	// Recorder receives the events; nil drops them.
	Recorder record.EventRecorder
	// Clock stamps conditions and drives the queue's delays. Nil: the real clock.
	Clock clock.WithTicker
	// CallTimeout bounds the admin and Kafka calls of one reconcile. Zero: DefaultCallTimeout.
	CallTimeout time.Duration
	// ResyncInterval is how often every BrokerUser is reconciled again, to find a user or ACL
	// changed outside, or a rotated password Secret without MetadataClient. Zero:
	// DefaultResyncInterval.
	ResyncInterval time.Duration
	// MaxRetryDelay caps the backoff of a failing user. Zero: DefaultMaxRetryDelay.
	MaxRetryDelay time.Duration
	// WritebackTTL and WritebackMetrics are the overlay's (writeback.Options).
	WritebackTTL     time.Duration
	WritebackMetrics *writeback.Metrics
}

// Defaults of Config.
const (
	DefaultCallTimeout    = 30 * time.Second
	DefaultMaxRetryDelay  = 5 * time.Minute
	DefaultResyncInterval = 5 * time.Minute
)

func (cfg Config) withDefaults() (Config, error) {
	if cfg.KubeClient == nil || cfg.BrokerClient == nil {
		return cfg, errors.New("users: KubeClient and BrokerClient are required")
	}
	if cfg.ClusterDomain == "" {
		cfg.ClusterDomain = admin.DefaultClusterDomain
	}
	if cfg.Admin == nil {
		text := cfg.AdminAddressTemplate
		if text == "" {
			text = admin.DefaultAddressTemplate
		}
		t, err := admin.ParseAddressTemplate(text, cfg.ClusterDomain)
		if err != nil {
			return cfg, fmt.Errorf("users: %w", err)
		}
		cfg.Admin = ClusterAdmin(cfg.KubeClient, t, cfg.AdminTimeout)
	}
	if cfg.Kafka == nil {
		addrs, err := topics.ParseAddressTemplate(cmp.Or(cfg.KafkaAddressTemplate, topics.DefaultAddressTemplate), cfg.ClusterDomain)
		if err != nil {
			return cfg, fmt.Errorf("users: %w", err)
		}
		cfg.Kafka = ClusterKafka(cfg.KubeClient, addrs)
	}
	if cfg.Recorder == nil {
		cfg.Recorder = &record.FakeRecorder{} // nil channel: events are dropped
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.ResyncInterval <= 0 {
		cfg.ResyncInterval = DefaultResyncInterval
	}
	if cfg.MaxRetryDelay <= 0 {
		cfg.MaxRetryDelay = DefaultMaxRetryDelay
	}
	return cfg, nil
}

// Controller reconciles BrokerUsers: one workqueue of namespace/name keys, N workers, as the
// BrokerTopic controller (pkg/topics) does.
type Controller struct {
	cfg       Config
	caches    map[string]*namespaceCache
	informers keyqueue.Informers
	queue     keyqueue.Queue
}

// NewController builds the informers, overlays and queue. Nothing runs until Run.
func NewController(cfg Config) (*Controller, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Controller{cfg: cfg, caches: map[string]*namespaceCache{}, queue: keyqueue.New("brokerusers", cfg.Clock, cfg.MaxRetryDelay)}
	for _, ns := range keyqueue.Namespaces(cfg.Namespaces) {
		nc, err := newNamespaceCache(cfg, ns)
		if err != nil {
			return nil, fmt.Errorf("users: namespace %q: %w", ns, err)
		}
		if err := c.addHandlers(nc); err != nil {
			return nil, fmt.Errorf("users: namespace %q: %w", ns, err)
		}
		c.caches[ns] = nc
		c.informers.Add(nc.factory, nc.synced...)
		if nc.secretRunner != nil {
			c.informers.Add(nc.secretRunner)
		}
	}
	return c, nil
}

func (c *Controller) addHandlers(nc *namespaceCache) error {
	enqueue := func(obj any) { keyqueue.Add(c.queue, obj) }
	// Every update, the periodic resync included: it is how a user or ACL changed outside is
	// found.
	userEvents := cache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, cur any) { enqueue(cur) }, DeleteFunc: enqueue}
	clusterEvents := keyqueue.ClusterEvents(func(key string) { keyqueue.AddIndexed(c.queue, nc.userOverlay, indexByCluster, key) }, nil)
	err := errors.Join(nc.addHandler(nc.userInformer, userEvents), nc.addHandler(nc.clusterInformer, clusterEvents))
	if nc.secretInformer != nil {
		err = errors.Join(err, nc.addHandler(nc.secretInformer, secretEvents(c.queueSecretUsers(nc))))
	}
	return err
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
	return c.informers.Run(ctx, c.queue, workers, "BrokerUser", c.sync)
}
