package main

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/writeback"
)

const (
	// TargetAnnotation asks the controller to count a ConfigMap up to this number.
	TargetAnnotation = "configmap-counter.example.dev/target"
	// CountAnnotation is the controller's status: how far it has counted.
	CountAnnotation = "configmap-counter.example.dev/count"
)

// Stats is what the controller did. A stale read is a read of a ConfigMap older than the
// controller's own last write to it; each one makes the controller repeat a step.
type Stats struct {
	Steps, StaleReads int64
}

// Controller counts each ConfigMap that has TargetAnnotation up to its target, one step per
// reconcile: it reads the count it wrote last and writes the next. A real controller's step
// would be something that must not happen twice (decommission a broker, send a message), so
// every step depends on reading the previous step's write.
type Controller struct {
	lister     corelisters.ConfigMapLister
	configMaps func(namespace string) typedcorev1.ConfigMapInterface
	synced     []cache.InformerSynced
	queue      workqueue.TypedRateLimitingInterface[cache.ObjectName]

	steps, staleReads atomic.Int64
	mu                sync.Mutex
	lastWritten       map[cache.ObjectName]int
}

// NewController builds the controller over informer. With writeBack, reads and writes go
// through the write-back store, so each reconcile reads its own last write.
func NewController(client kubernetes.Interface, informer coreinformers.ConfigMapInformer, writeBack bool) (*Controller, error) {
	c := &Controller{
		lister:      informer.Lister(),
		configMaps:  client.CoreV1().ConfigMaps,
		synced:      []cache.InformerSynced{informer.Informer().HasSynced},
		queue:       workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName]()),
		lastWritten: map[cache.ObjectName]int{},
	}
	if writeBack {
		// Adopting the write-back store: an overlay over the informer, the lister on the
		// overlay, and a client that records its writes into it.
		overlay, overlaySynced, err := writeback.NewObserving("configmaps", informer.Informer(), writeback.Options{})
		if err != nil {
			return nil, err
		}
		c.lister = corelisters.NewConfigMapLister(overlay)
		c.configMaps = func(ns string) typedcorev1.ConfigMapInterface {
			return writeback.Wrap(client.CoreV1().ConfigMaps(ns), ns, overlay)
		}
		c.synced = append(c.synced, overlaySynced)
	}
	_, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj interface{}) { c.enqueue(obj) },
	})
	return c, err
}

func (c *Controller) enqueue(obj interface{}) {
	if cm, ok := obj.(*corev1.ConfigMap); ok && cm.Annotations[TargetAnnotation] != "" {
		c.queue.Add(cache.MetaObjectToName(cm))
	}
}

// Stats returns what the controller did so far.
func (c *Controller) Stats() Stats {
	return Stats{Steps: c.steps.Load(), StaleReads: c.staleReads.Load()}
}

// Run waits for the caches, then runs workers until ctx ends. It returns once every worker has
// finished its step, so Stats counts every write the controller made.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return fmt.Errorf("caches did not sync")
	}
	logger.Info("Starting workers", "count", workers)
	var running sync.WaitGroup
	for range workers {
		running.Go(func() { wait.UntilWithContext(ctx, c.runWorker, time.Second) })
	}
	<-ctx.Done()
	c.queue.ShutDown() // a worker waiting in Get returns; one in a step finishes it
	running.Wait()
	return nil
}

func (c *Controller) runWorker(ctx context.Context) {
	for c.processNextWorkItem(ctx) {
	}
}

func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	name, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(name)
	more, err := c.sync(ctx, name)
	switch {
	case err != nil:
		utilruntime.HandleErrorWithContext(ctx, err, "Counting failed", "configmap", name)
		c.queue.AddRateLimited(name)
	case more:
		c.queue.Forget(name)
		c.queue.Add(name) // the next step, at once
	default:
		c.queue.Forget(name)
	}
	return true
}

// sync takes one step for the ConfigMap: it reads the count and writes count+1. It reports
// whether steps remain.
func (c *Controller) sync(ctx context.Context, name cache.ObjectName) (bool, error) {
	cm, err := c.lister.ConfigMaps(name.Namespace).Get(name.Name)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	target, err := strconv.Atoi(cm.Annotations[TargetAnnotation])
	if err != nil {
		klog.FromContext(ctx).Info("Ignoring a ConfigMap with a target that is not a number", "configmap", name, "target", cm.Annotations[TargetAnnotation])
		return false, nil
	}
	count, _ := strconv.Atoi(cm.Annotations[CountAnnotation])
	c.noteRead(ctx, name, count)
	if count >= target {
		return false, nil
	}
	// A patch without a resourceVersion precondition, as status writers often do: a step
	// taken on a stale read is not refused by the server, it is simply taken again.
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, CountAnnotation, strconv.Itoa(count+1))
	if _, err := c.configMaps(name.Namespace).Patch(ctx, name.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		return false, err
	}
	c.steps.Add(1)
	c.mu.Lock()
	c.lastWritten[name] = count + 1
	c.mu.Unlock()
	return count+1 < target, nil
}

// noteRead counts a read that shows less than the controller itself wrote last.
func (c *Controller) noteRead(ctx context.Context, name cache.ObjectName, count int) {
	c.mu.Lock()
	written, ok := c.lastWritten[name]
	c.mu.Unlock()
	if ok && count < written {
		c.staleReads.Add(1)
		klog.FromContext(ctx).V(2).Info("Stale read: the cache is behind our own write", "configmap", name, "read", count, "written", written)
	}
}
