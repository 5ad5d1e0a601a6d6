package keyqueue

import (
	"context"
	"errors"
	"fmt"
	"sync"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/writeback"
)

// Factory is an informer factory: generated SharedInformerFactories are.
type Factory interface {
	Start(stop <-chan struct{})
	Shutdown()
}

// Informers are a controller's informer factories, one a watched namespace, and what must have
// synced (informers, overlays, handlers) before its workers run.
type Informers struct {
	factories []Factory
	synced    []cache.InformerSynced
}

// Add adds a factory and what of it must sync.
func (i *Informers) Add(f Factory, synced ...cache.InformerSynced) {
	i.factories = append(i.factories, f)
	i.synced = append(i.synced, synced...)
}

// HasSynced reports whether every informer and handler has synced.
func (i *Informers) HasSynced() bool {
	for _, s := range i.synced {
		if !s() {
			return false
		}
	}
	return true
}

// Start starts the informers and waits until every cache and handler has synced.
func (i *Informers) Start(ctx context.Context) error {
	for _, f := range i.factories {
		f.Start(ctx.Done())
	}
	if !cache.WaitForCacheSync(ctx.Done(), i.HasSynced) {
		return errors.New("informer caches did not sync")
	}
	return nil
}

// Run starts the informers, waits for their caches, then runs workers that reconcile the keys
// of q, and each of also in a goroutine of its own, until ctx ends; kind names the
// resource in logs and errors. Stopped before the caches synced, it returns nil: nothing ran.
func (i *Informers) Run(ctx context.Context, q Queue, workers int, kind string, reconcile func(context.Context, string) error, also ...func(context.Context)) error {
	defer utilruntime.HandleCrashWithContext(ctx)
	if workers < 1 {
		return fmt.Errorf("%s: %d workers; want at least 1", kind, workers)
	}
	defer func() {
		for _, f := range i.factories {
			f.Shutdown()
		}
	}()
	if err := i.Start(ctx); err != nil {
		q.ShutDown()
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("%s: %w", kind, err)
	}
	klog.FromContext(ctx).Info("Starting "+kind+" workers", "workers", workers)
	var wg sync.WaitGroup
	for _, f := range also {
		wg.Go(func() { f(ctx) })
	}
	Work(ctx, &wg, q, workers, kind, reconcile)
	<-ctx.Done()
	q.ShutDown()
	wg.Wait()
	return nil
}

// Overlay lays pkg/writeback's overlay, named name, over informer's store, and adds what must
// sync before it is read (the informer and the overlay's observer) to synced.
func Overlay(name string, informer cache.SharedIndexInformer, opts writeback.Options, synced *[]cache.InformerSynced) (*writeback.Overlay, error) {
	o := writeback.NewOverlay(name, informer.GetIndexer(), opts)
	reg, err := o.Observe(informer)
	if err != nil {
		return nil, fmt.Errorf("observe %s: %w", name, err)
	}
	*synced = append(*synced, informer.HasSynced, reg.HasSynced)
	return o, nil
}

// Handle adds h to informer, and its registration to synced.
func Handle(informer cache.SharedIndexInformer, h cache.ResourceEventHandler, synced *[]cache.InformerSynced) error {
	reg, err := informer.AddEventHandler(h)
	if err != nil {
		return err
	}
	*synced = append(*synced, reg.HasSynced)
	return nil
}
