package main

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/util/consistency"
	"k8s.io/utils/ptr"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	crlog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/broker-operator/broker-operator/pkg/writeback"
)

// decider is the read and write path of a controller making dependent decisions; the
// controller loop around it (informer events, workqueue, rate limiter, workers) is the same
// for every strategy.
type decider interface {
	// start builds the strategy's clients and caches over cfg, calls enqueue with every
	// watched ConfigMap that is added or updated, and waits until the caches are synced.
	start(ctx context.Context, cfg *rest.Config, rec recordKind, enqueue func(obj any)) error
	// admit runs at the top of a sync; an error turns the sync away, to be retried through
	// the rate limiter.
	admit(owner types.NamespacedName) error
	// read returns the owner's record as the strategy serves it; nil when it has none.
	read(ctx context.Context, owner types.NamespacedName) (metav1.Object, error)
	// write patches the owner's record.
	write(ctx context.Context, owner types.NamespacedName, data []byte) error
}

type namedDecider struct {
	name string
	new  func() decider
	// waitsInRead: the strategy's read blocks until its cache has seen the strategy's writes.
	waitsInRead bool
}

var deciders = []namedDecider{
	{name: "informer lister", new: func() decider { return &listerDecider{} }},
	{name: "controller-runtime cache", new: func() decider { return &crDecider{} }},
	{name: "client-go MutationCache", new: func() decider { return &mutationCacheDecider{} }},
	{name: "controller-runtime RYW", new: func() decider { return &crDecider{ryw: true} }, waitsInRead: true},
	{name: "ConsistencyStore", new: func() decider { return &consistencyDecider{} }},
	{name: "uncached GET", new: func() decider { return &getDecider{} }},
	{name: "pkg/writeback", new: func() decider { return &writebackDecider{} }},
}

// clientGoBase is a clientset, an informer factory and the watched ConfigMap informer.
type clientGoBase struct {
	client  kubernetes.Interface
	factory informers.SharedInformerFactory
	rec     recordKind
	record  cache.SharedIndexInformer
}

func (b *clientGoBase) build(cfg *rest.Config, rec recordKind, enqueue func(any), withRecordInformer bool) error {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	b.client, b.rec = client, rec
	b.factory = informers.NewSharedInformerFactory(client, 0)
	watched := b.factory.Core().V1().ConfigMaps().Informer()
	if _, err := watched.AddEventHandler(enqueueHandler(enqueue)); err != nil {
		return err
	}
	if withRecordInformer {
		b.record = rec.informer(b.factory)
	}
	return nil
}

func (b *clientGoBase) run(ctx context.Context, synced ...cache.InformerSynced) error {
	b.factory.Start(ctx.Done())
	for typ, ok := range b.factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("%v informer did not sync", typ)
		}
	}
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return fmt.Errorf("informer handlers did not sync")
	}
	return nil
}

func (b *clientGoBase) admit(types.NamespacedName) error { return nil }

func (b *clientGoBase) readStore(owner types.NamespacedName) (metav1.Object, error) {
	return fromStore(b.record.GetIndexer().GetByKey(owner.String()))
}

func enqueueHandler(enqueue func(any)) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	}
}

// listerDecider reads the informer's store: a plain client-go controller.
type listerDecider struct{ clientGoBase }

func (d *listerDecider) start(ctx context.Context, cfg *rest.Config, rec recordKind, enqueue func(any)) error {
	if err := d.build(cfg, rec, enqueue, true); err != nil {
		return err
	}
	return d.run(ctx)
}

func (d *listerDecider) read(_ context.Context, owner types.NamespacedName) (metav1.Object, error) {
	return d.readStore(owner)
}

func (d *listerDecider) write(ctx context.Context, owner types.NamespacedName, data []byte) error {
	_, err := d.rec.patch(ctx, d.client, owner.Namespace, owner.Name, data)
	return err
}

// mutationCacheDecider hands each write's answer to client-go's MutationCache and reads
// through it.
type mutationCacheDecider struct {
	clientGoBase
	mc cache.MutationCache
}

func (d *mutationCacheDecider) start(ctx context.Context, cfg *rest.Config, rec recordKind, enqueue func(any)) error {
	if err := d.build(cfg, rec, enqueue, true); err != nil {
		return err
	}
	d.mc = cache.NewIntegerResourceVersionMutationCache(klog.Background(), d.record.GetStore(), d.record.GetIndexer(), 5*time.Minute, true)
	return d.run(ctx)
}

func (d *mutationCacheDecider) read(_ context.Context, owner types.NamespacedName) (metav1.Object, error) {
	return fromStore(d.mc.GetByKey(owner.String()))
}

func (d *mutationCacheDecider) write(ctx context.Context, owner types.NamespacedName, data []byte) error {
	obj, err := d.rec.patch(ctx, d.client, owner.Namespace, owner.Name, data)
	if err == nil {
		d.mc.Mutation(obj)
	}
	return err
}

// consistencyDecider is kube-controller-manager's way since v1.36, as the StatefulSet
// controller does it (pkg/controller/statefulset/stateful_set.go): the record's resourceVersion
// goes to WroteAt after each write, EnsureReady runs at the top of the sync, and a sync it
// turns away goes back to the queue through the rate limiter. Reads then go to the lister.
type consistencyDecider struct {
	clientGoBase
	store   *consistency.RealConsistencyStore
	watched cache.Indexer
}

func (d *consistencyDecider) start(ctx context.Context, cfg *rest.Config, rec recordKind, enqueue func(any)) error {
	if err := d.build(cfg, rec, enqueue, true); err != nil {
		return err
	}
	d.watched = d.factory.Core().V1().ConfigMaps().Informer().GetIndexer()
	d.store = consistency.NewConsistencyStore(map[schema.GroupResource]consistency.LastSyncRVGetter{rec.gr: d.record.GetStore()})
	return d.run(ctx)
}

func (d *consistencyDecider) admit(owner types.NamespacedName) error {
	return d.store.EnsureReady(owner)
}

func (d *consistencyDecider) read(_ context.Context, owner types.NamespacedName) (metav1.Object, error) {
	return d.readStore(owner)
}

func (d *consistencyDecider) write(ctx context.Context, owner types.NamespacedName, data []byte) error {
	obj, err := d.rec.patch(ctx, d.client, owner.Namespace, owner.Name, data)
	if err != nil {
		return err
	}
	var uid types.UID
	if o, _ := fromStore(d.watched.GetByKey(owner.String())); o != nil {
		uid = o.GetUID()
	}
	d.store.WroteAt(owner, uid, d.rec.gr, obj.GetResourceVersion())
	return nil
}

// getDecider reads with a GET to the apiserver every time.
type getDecider struct{ clientGoBase }

func (d *getDecider) start(ctx context.Context, cfg *rest.Config, rec recordKind, enqueue func(any)) error {
	if err := d.build(cfg, rec, enqueue, false); err != nil {
		return err
	}
	return d.run(ctx)
}

func (d *getDecider) read(ctx context.Context, owner types.NamespacedName) (metav1.Object, error) {
	return d.rec.get(ctx, d.client, owner.Namespace, owner.Name)
}

func (d *getDecider) write(ctx context.Context, owner types.NamespacedName, data []byte) error {
	_, err := d.rec.patch(ctx, d.client, owner.Namespace, owner.Name, data)
	return err
}

// writebackDecider reads through a pkg/writeback overlay and writes through writeback.Wrap.
type writebackDecider struct {
	clientGoBase
	overlay *writeback.Overlay
}

func (d *writebackDecider) start(ctx context.Context, cfg *rest.Config, rec recordKind, enqueue func(any)) error {
	if err := d.build(cfg, rec, enqueue, true); err != nil {
		return err
	}
	overlay, synced, err := writeback.NewObserving(rec.resource, d.record, writeback.Options{})
	if err != nil {
		return err
	}
	d.overlay = overlay
	return d.run(ctx, synced)
}

func (d *writebackDecider) read(_ context.Context, owner types.NamespacedName) (metav1.Object, error) {
	return fromStore(d.overlay.GetByKey(owner.String()))
}

func (d *writebackDecider) write(ctx context.Context, owner types.NamespacedName, data []byte) error {
	_, err := d.rec.patchWB(ctx, d.client, d.overlay, owner.Namespace, owner.Name, data)
	return err
}

// crDecider reads and writes through controller-runtime's cache-backed client, with or
// without EnableReadYourWritesConsistency; its cache's ConfigMap informer feeds the queue.
type crDecider struct {
	ryw    bool
	rec    recordKind
	client crclient.Client
}

func (d *crDecider) start(ctx context.Context, cfg *rest.Config, rec recordKind, enqueue func(any)) error {
	crlog.SetLogger(klog.Background())
	d.rec = rec
	c, err := crcache.New(cfg, crcache.Options{Scheme: clientgoscheme.Scheme})
	if err != nil {
		return err
	}
	go func() { _ = c.Start(ctx) }()
	for _, obj := range []crclient.Object{&corev1.ConfigMap{}, rec.newCR()} {
		inf, err := c.GetInformer(ctx, obj)
		if err != nil {
			return err
		}
		if _, isConfigMap := obj.(*corev1.ConfigMap); isConfigMap {
			if _, err := inf.AddEventHandler(enqueueHandler(enqueue)); err != nil {
				return err
			}
		}
	}
	if !c.WaitForCacheSync(ctx) {
		return fmt.Errorf("controller-runtime cache did not sync")
	}
	d.client, err = crclient.New(cfg, crclient.Options{
		Scheme: clientgoscheme.Scheme,
		Cache:  &crclient.CacheOptions{Reader: c, EnableReadYourWritesConsistency: ptr.To(d.ryw)},
	})
	return err
}

func (d *crDecider) admit(types.NamespacedName) error { return nil }

func (d *crDecider) read(ctx context.Context, owner types.NamespacedName) (metav1.Object, error) {
	obj := d.rec.newCR()
	if err := d.client.Get(ctx, owner, obj); err != nil {
		return nil, crclient.IgnoreNotFound(err)
	}
	return obj, nil
}

func (d *crDecider) write(ctx context.Context, owner types.NamespacedName, data []byte) error {
	obj := d.rec.newCR()
	obj.SetNamespace(owner.Namespace)
	obj.SetName(owner.Name)
	return d.client.Patch(ctx, obj, crclient.RawPatch(types.MergePatchType, data))
}
