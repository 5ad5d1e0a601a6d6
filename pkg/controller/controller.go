package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/internal/promreg"
	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokers"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	"github.com/broker-operator/broker-operator/pkg/writeback"
)

// Controller reconciles BrokerClusters. Build it with NewController and start it with Run.
type Controller struct {
	cfg Config
	// caches holds one namespaceCache per watched namespace, or one under "" for all.
	caches map[string]*namespaceCache
	queue  workqueue.TypedRateLimitingInterface[string]
	// brokers is the brokers' view: admin clients and drain progress, kept by cluster.
	brokers *brokers.Admin
	stalled *stalledPodTracker
	// templates keeps each cluster's last pod template, the costliest thing a reconcile builds.
	templates *objects.PodTemplates
	metrics   *metrics
	// serving is true once the informers have synced, until shutdownInformers.
	serving atomic.Bool
}

// NewController validates cfg, builds the informers, overlays and workqueue, and registers the
// event handlers. Nothing runs until Run.
func NewController(cfg Config) (*Controller, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	tmpl, err := admin.ParseAddressTemplate(cfg.AdminAddressTemplate, cfg.ClusterDomain)
	if err != nil {
		return nil, fmt.Errorf("controller: %w", err)
	}
	m := newMetrics(cfg.Registerer)
	c := &Controller{
		cfg:    cfg,
		caches: map[string]*namespaceCache{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			retryRateLimiter(cfg.MaxRetryDelay),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "brokerclusters", Clock: cfg.Clock},
		),
		stalled:   &stalledPodTracker{missing: map[string]stalledPod{}},
		templates: objects.NewPodTemplates(cfg.ClusterDomain),
		metrics:   m,
	}
	c.brokers = brokers.New(brokers.Config{
		Kube: cfg.KubeClient, Addresses: tmpl, Client: admin.Config{Timeout: cfg.AdminTimeout},
		Requests: m.adminRequests, Clock: cfg.Clock, PollInterval: cfg.DrainPollInterval, Hooks: c.hooks,
	})
	wbMetrics := writeback.NewMetrics(cfg.Registerer)
	namespaces := cfg.Namespaces
	if len(namespaces) == 0 {
		namespaces = []string{metav1.NamespaceAll}
	}
	for _, ns := range namespaces {
		nc, err := newNamespaceCache(cfg, ns, wbMetrics)
		if err != nil {
			return nil, fmt.Errorf("controller: namespace %q: %w", ns, err)
		}
		if err := c.addHandlers(nc); err != nil {
			return nil, fmt.Errorf("controller: namespace %q: %w", ns, err)
		}
		c.caches[ns] = nc
	}
	if cfg.Registerer != nil {
		promreg.Register(cfg.Registerer, newClusterStatusCollector(c))
	}
	return c, nil
}

func (c *Controller) addHandlers(nc *namespaceCache) error {
	brokerClusters := cache.ResourceEventHandlerFuncs{
		AddFunc: c.enqueue,
		UpdateFunc: func(old, cur interface{}) {
			if changed(old, cur) {
				c.enqueue(cur)
			}
		},
		DeleteFunc: c.enqueue,
	}
	owned := func(lookup func(metav1.Object) (string, bool)) cache.ResourceEventHandler {
		handle := func(obj interface{}) { c.enqueueOwner(nc, obj, lookup) }
		return cache.ResourceEventHandlerFuncs{
			AddFunc: handle,
			UpdateFunc: func(old, cur interface{}) {
				if changed(old, cur) {
					handle(cur)
				}
			},
			DeleteFunc: handle,
		}
	}
	return errors.Join(
		nc.addHandler(nc.brokerClusterInformer, brokerClusters),
		nc.addHandler(nc.statefulSetInformer, owned(controllerOwner)),
		nc.addHandler(nc.serviceInformer, owned(controllerOwner)),
		nc.addHandler(nc.pdbInformer, owned(controllerOwner)),
		nc.addHandler(nc.serviceAccountInformer, owned(controllerOwner)),
		nc.addHandler(nc.configMapInformer, owned(controllerOwner)),
		nc.addHandler(nc.podInformer, owned(instanceOwner)),
	)
}

// changed filters out the periodic resync, which repeats an unchanged object.
func changed(old, cur interface{}) bool {
	o, ok1 := old.(metav1.Object)
	n, ok2 := cur.(metav1.Object)
	return !ok1 || !ok2 || o.GetResourceVersion() != n.GetResourceVersion()
}

// controllerOwner names the BrokerCluster that controls a StatefulSet, Service or PDB.
func controllerOwner(obj metav1.Object) (string, bool) {
	ref := metav1.GetControllerOf(obj)
	if ref == nil || ref.Kind != objects.BrokerClusterKind.Kind || ref.APIVersion != objects.BrokerClusterKind.GroupVersion().String() {
		return "", false
	}
	return ref.Name, true
}

// instanceOwner names the BrokerCluster of a broker pod, by its instance label: the pod's
// owner reference names the StatefulSet, not the BrokerCluster.
func instanceOwner(obj metav1.Object) (string, bool) {
	name, ok := obj.GetLabels()[LabelInstance]
	return name, ok && name != ""
}

func (c *Controller) enqueue(obj interface{}) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.queue.Add(key)
}

// enqueueOwner queues the BrokerCluster that owns obj, if it still exists.
func (c *Controller) enqueueOwner(nc *namespaceCache, obj interface{}, lookup func(metav1.Object) (string, bool)) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		utilruntime.HandleError(fmt.Errorf("controller: event for an object without metadata: %T", obj))
		return
	}
	name, ok := lookup(m)
	if !ok {
		return
	}
	if _, err := nc.overlaid.brokerClusters.BrokerClusters(m.GetNamespace()).Get(name); err != nil {
		klog.V(5).InfoS("Ignoring an object whose BrokerCluster is gone", "object", klog.KObj(m), "brokercluster", name)
		return
	}
	c.queue.Add(m.GetNamespace() + "/" + name)
}

// cacheFor returns the caches that serve namespace ns, nil if it is not watched.
func (c *Controller) cacheFor(ns string) *namespaceCache {
	if nc, ok := c.caches[metav1.NamespaceAll]; ok {
		return nc
	}
	return c.caches[ns]
}

// Run starts the informers, waits for their caches, and runs workers until ctx ends; then it
// shuts the queue down, waits for the reconciles in flight, and stops the informers.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrashWithContext(ctx)
	if workers < 1 {
		return fmt.Errorf("controller: %d workers; want at least 1", workers)
	}
	logger := klog.FromContext(ctx)
	defer c.shutdownInformers()
	if err := c.start(ctx); err != nil {
		c.queue.ShutDown()
		if ctx.Err() != nil {
			// Stopped before the caches synced (SIGTERM at start-up): nothing ran, nothing to report.
			logger.Info("Stopped before the informer caches synced")
			return nil
		}
		return err
	}
	if c.cfg.Guards != (Guards{}) {
		logger.Info("Running with guards off; for experiments only", "skipAdminCheck", c.cfg.Guards.SkipAdminCheck, "skipPrecondition", c.cfg.Guards.SkipPrecondition)
	}
	logger.Info("Starting workers", "workers", workers, "readStrategy", c.cfg.readStrategy.String())
	var wg sync.WaitGroup
	for worker := range workers {
		wg.Go(func() {
			wait.UntilWithContext(ctx, func(ctx context.Context) { c.runWorker(ctx, worker) }, time.Second)
		})
	}
	<-ctx.Done()
	logger.Info("Shutting down workers")
	c.queue.ShutDown()
	wg.Wait()
	return nil
}

// start starts the informers and waits until every cache and handler has synced.
func (c *Controller) start(ctx context.Context) error {
	for _, nc := range c.caches {
		nc.start(ctx.Done())
	}
	if !cache.WaitForCacheSync(ctx.Done(), c.HasSynced) {
		return errors.New("controller: informer caches did not sync before the context ended")
	}
	c.serving.Store(true)
	return nil
}

func (c *Controller) shutdownInformers() {
	c.serving.Store(false)
	for _, nc := range c.caches {
		nc.shutdown()
	}
}

// HasSynced reports whether every informer and handler has synced, for a readiness probe.
func (c *Controller) HasSynced() bool {
	for _, nc := range c.caches {
		if !nc.hasSynced() {
			return false
		}
	}
	return true
}

// Overlays returns every write-back overlay (one per resource and watched namespace), so a
// caller can report how many writes the informers have not observed yet (Overlay.Len).
func (c *Controller) Overlays() []*writeback.Overlay {
	var out []*writeback.Overlay
	for _, nc := range c.caches {
		out = append(out, nc.overlays()...)
	}
	return out
}

func (c *Controller) runWorker(ctx context.Context, worker int) {
	for c.processNextWorkItem(ctx, worker) {
	}
}

// processNextWorkItem reconciles one key, on the worker numbered worker (for Config.Tracer). An error requeues it with backoff; a wait requeues it
// after the wait; success forgets its failures.
func (c *Controller) processNextWorkItem(ctx context.Context, worker int) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)
	if ctx.Err() != nil {
		// Shutting down: the queue still hands out what it holds, but a reconcile now could
		// neither write nor call the brokers, and would decide on reads that miss a write its
		// cancelled request may have made after all. The next leader starts afresh.
		return false
	}
	start := c.cfg.Clock.Now()
	res, err := c.sync(c.traceBegin(ctx, worker, key), key)
	c.metrics.reconcileDuration.Observe(c.cfg.Clock.Since(start).Seconds())
	switch {
	case err != nil:
		c.metrics.reconciles.WithLabelValues(resultError).Inc()
		utilruntime.HandleErrorWithContext(ctx, err, "Reconcile failed; will retry with backoff", "key", key)
		c.queue.AddRateLimited(key)
	case res.RequeueAfter > 0:
		c.metrics.reconciles.WithLabelValues(resultRequeue).Inc()
		c.queue.Forget(key)
		c.queue.AddAfter(key, wait.Jitter(res.RequeueAfter, requeueJitter))
	default:
		c.metrics.reconciles.WithLabelValues(resultSuccess).Inc()
		c.queue.Forget(key)
	}
	return true
}

// requeueJitter spreads a poll's requeue over up to a tenth more than its interval, so that
// clusters created together do not poll their brokers in lock step.
const requeueJitter = 0.1

// traceBegin starts a traced reconcile of the queue key.
func (c *Controller) traceBegin(ctx context.Context, worker int, key string) context.Context {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return ctx
	}
	return c.hooks().Begin(ctx, worker, ns, name)
}

// clusterKey is a BrokerCluster's queue key.
func clusterKey(bc *v1alpha1.BrokerCluster) string { return bc.Namespace + "/" + bc.Name }
