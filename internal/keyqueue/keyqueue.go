// Package keyqueue is the plumbing the BrokerTopic and BrokerUser controllers share: one
// rate-limited queue of namespace/name keys and the workers that drain it into a reconcile, as
// the BrokerCluster controller (pkg/controller/controller.go) drains its own (keyqueue.go); the
// informers that must sync first and the write-back overlay over them (informers.go); the
// events that queue the resources of a cluster (events.go); and the finalizer update
// (finalizer.go).
package keyqueue

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
)

// Queue is a rate-limited queue of namespace/name keys.
type Queue = workqueue.TypedRateLimitingInterface[string]

// New makes a queue whose failing keys back off from 100 ms up to maxDelay, all keys together
// limited to 10 a second with bursts of 100.
func New(name string, clk clock.WithTicker, maxDelay time.Duration) Queue {
	return workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedMaxOfRateLimiter(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](100*time.Millisecond, maxDelay),
			&workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(rate.Limit(10), 100)},
		),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: name, Clock: clk},
	)
}

// Add queues the key of obj, a resource or the tombstone of a deleted one.
func Add(q Queue, obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	q.Add(key)
}

// Changed filters out the periodic resync, which repeats an unchanged object.
func Changed(old, cur any) bool {
	o, ok1 := old.(metav1.Object)
	n, ok2 := cur.(metav1.Object)
	return !ok1 || !ok2 || o.GetResourceVersion() != n.GetResourceVersion()
}

// Work starts n workers in wg that reconcile keys of q until q shuts down. An error requeues
// its key with backoff, logged as a failed reconcile of kind; success forgets the key's
// failures.
func Work(ctx context.Context, wg *sync.WaitGroup, q Queue, n int, kind string, reconcile func(context.Context, string) error) {
	for range n {
		wg.Go(func() {
			wait.UntilWithContext(ctx, func(ctx context.Context) {
				for processNext(ctx, q, kind, reconcile) {
				}
			}, time.Second)
		})
	}
}

func processNext(ctx context.Context, q Queue, kind string, reconcile func(context.Context, string) error) bool {
	key, shutdown := q.Get()
	if shutdown {
		return false
	}
	defer q.Done(key)
	if ctx.Err() != nil {
		return false
	}
	if err := reconcile(ctx, key); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, kind+" reconcile failed; will retry with backoff", "key", key)
		q.AddRateLimited(key)
		return true
	}
	q.Forget(key)
	return true
}
