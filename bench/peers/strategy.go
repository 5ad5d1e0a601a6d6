package main

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	crlog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/broker-operator/broker-operator/pkg/writeback"
)

// strategy is one way for a controller to read an object right after patching it.
type strategy interface {
	// start builds the strategy's clients and caches over cfg and waits until they are synced.
	start(ctx context.Context, cfg *rest.Config, namespaces []string) error
	// patch applies a JSON merge patch to a ConfigMap and returns the resourceVersion written.
	patch(ctx context.Context, namespace, name string, data []byte) (string, error)
	// read returns the resourceVersion the strategy serves for the ConfigMap ("" when none).
	read(ctx context.Context, namespace, name string) (string, error)
}

type namedStrategy struct {
	name string
	new  func() strategy
}

var strategies = []namedStrategy{
	{"informer lister", func() strategy { return &listerStrategy{} }},
	{"client-go MutationCache", func() strategy { return &mutationCacheStrategy{} }},
	{"controller-runtime cache", func() strategy { return &crStrategy{} }},
	{"controller-runtime RYW, cluster-wide cache", func() strategy { return &crStrategy{ryw: true} }},
	{"controller-runtime RYW, one cache per namespace", func() strategy { return &crStrategy{ryw: true, perNamespace: true} }},
	{"uncached GET", func() strategy { return &getStrategy{} }},
	{"pkg/writeback", func() strategy { return &writebackStrategy{} }},
}

// informerBase is a typed clientset and a cluster-wide ConfigMap informer over it.
type informerBase struct {
	client   kubernetes.Interface
	informer cache.SharedIndexInformer
	lister   corelisters.ConfigMapLister
	factory  informers.SharedInformerFactory
}

func (b *informerBase) build(cfg *rest.Config) error {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	b.client = client
	b.factory = informers.NewSharedInformerFactory(client, 0)
	b.informer = b.factory.Core().V1().ConfigMaps().Informer()
	b.lister = b.factory.Core().V1().ConfigMaps().Lister()
	return nil
}

func (b *informerBase) run(ctx context.Context, synced ...cache.InformerSynced) error {
	b.factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), append(synced, b.informer.HasSynced)...) {
		return fmt.Errorf("informer did not sync")
	}
	return nil
}

func (b *informerBase) patchWith(ctx context.Context, c interface {
	Patch(context.Context, string, types.PatchType, []byte, metav1.PatchOptions, ...string) (*corev1.ConfigMap, error)
}, name string, data []byte) (*corev1.ConfigMap, error) {
	return c.Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{})
}

func rvOrNotFound(cm *corev1.ConfigMap, err error) (string, error) {
	if apierrors.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return cm.ResourceVersion, nil
}

// listerStrategy reads the informer's lister: what a plain client-go controller does.
type listerStrategy struct{ informerBase }

func (s *listerStrategy) start(ctx context.Context, cfg *rest.Config, _ []string) error {
	if err := s.build(cfg); err != nil {
		return err
	}
	return s.run(ctx)
}

func (s *listerStrategy) patch(ctx context.Context, ns, name string, data []byte) (string, error) {
	cm, err := s.patchWith(ctx, s.client.CoreV1().ConfigMaps(ns), name, data)
	return rvOrNotFound(cm, err)
}

func (s *listerStrategy) read(_ context.Context, ns, name string) (string, error) {
	return rvOrNotFound(s.lister.ConfigMaps(ns).Get(name))
}

// mutationCacheStrategy records each patch result in client-go's MutationCache by hand and reads
// through its GetByKey.
type mutationCacheStrategy struct {
	informerBase
	mc cache.MutationCache
}

func (s *mutationCacheStrategy) start(ctx context.Context, cfg *rest.Config, _ []string) error {
	if err := s.build(cfg); err != nil {
		return err
	}
	s.mc = cache.NewIntegerResourceVersionMutationCache(klog.Background(), s.informer.GetStore(), s.informer.GetIndexer(), 5*time.Minute, true)
	return s.run(ctx)
}

func (s *mutationCacheStrategy) patch(ctx context.Context, ns, name string, data []byte) (string, error) {
	cm, err := s.patchWith(ctx, s.client.CoreV1().ConfigMaps(ns), name, data)
	if err == nil {
		s.mc.Mutation(cm)
	}
	return rvOrNotFound(cm, err)
}

func (s *mutationCacheStrategy) read(_ context.Context, ns, name string) (string, error) {
	obj, exists, err := s.mc.GetByKey(ns + "/" + name)
	if err != nil || !exists {
		return "", err
	}
	return obj.(*corev1.ConfigMap).ResourceVersion, nil
}

// writebackStrategy is pkg/writeback wired with NewObserving.
type writebackStrategy struct {
	informerBase
	overlay *writeback.Overlay
}

func (s *writebackStrategy) start(ctx context.Context, cfg *rest.Config, _ []string) error {
	if err := s.build(cfg); err != nil {
		return err
	}
	overlay, synced, err := writeback.NewObserving("configmaps", s.informer, writeback.Options{})
	if err != nil {
		return err
	}
	s.overlay, s.lister = overlay, corelisters.NewConfigMapLister(overlay)
	return s.run(ctx, synced)
}

func (s *writebackStrategy) patch(ctx context.Context, ns, name string, data []byte) (string, error) {
	cm, err := s.patchWith(ctx, writeback.Wrap(s.client.CoreV1().ConfigMaps(ns), ns, s.overlay), name, data)
	return rvOrNotFound(cm, err)
}

func (s *writebackStrategy) read(_ context.Context, ns, name string) (string, error) {
	return rvOrNotFound(s.lister.ConfigMaps(ns).Get(name))
}

// getStrategy reads with a GET to the apiserver every time.
type getStrategy struct{ client kubernetes.Interface }

func (s *getStrategy) start(_ context.Context, cfg *rest.Config, _ []string) error {
	var err error
	s.client, err = kubernetes.NewForConfig(cfg)
	return err
}

func (s *getStrategy) patch(ctx context.Context, ns, name string, data []byte) (string, error) {
	return rvOrNotFound(s.client.CoreV1().ConfigMaps(ns).Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{}))
}

func (s *getStrategy) read(ctx context.Context, ns, name string) (string, error) {
	return rvOrNotFound(s.client.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{}))
}

// crStrategy is controller-runtime's cache-backed client, with or without
// EnableReadYourWritesConsistency. perNamespace configures the cache with the benchmark's
// namespaces (DefaultNamespaces), as an operator restricted to some namespaces does; otherwise
// the cache is cluster-wide.
type crStrategy struct {
	ryw, perNamespace bool
	client            crclient.Client
}

func (s *crStrategy) start(ctx context.Context, cfg *rest.Config, namespaces []string) error {
	crlog.SetLogger(klog.Background())
	opts := crcache.Options{Scheme: clientgoscheme.Scheme}
	if s.perNamespace {
		opts.DefaultNamespaces = map[string]crcache.Config{}
		for _, ns := range namespaces {
			opts.DefaultNamespaces[ns] = crcache.Config{}
		}
	}
	c, err := crcache.New(cfg, opts)
	if err != nil {
		return err
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return fmt.Errorf("controller-runtime cache did not sync")
	}
	s.client, err = crclient.New(cfg, crclient.Options{
		Scheme: clientgoscheme.Scheme,
		Cache:  &crclient.CacheOptions{Reader: c, EnableReadYourWritesConsistency: ptr.To(s.ryw)},
	})
	if err != nil {
		return err
	}
	// The first read starts the ConfigMap informer and waits for it to sync.
	var list corev1.ConfigMapList
	return s.client.List(ctx, &list, crclient.InNamespace(namespaces[0]))
}

func (s *crStrategy) patch(ctx context.Context, ns, name string, data []byte) (string, error) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	err := s.client.Patch(ctx, cm, crclient.RawPatch(types.MergePatchType, data))
	return rvOrNotFound(cm, err)
}

func (s *crStrategy) read(ctx context.Context, ns, name string) (string, error) {
	var cm corev1.ConfigMap
	err := s.client.Get(ctx, crclient.ObjectKey{Namespace: ns, Name: name}, &cm)
	return rvOrNotFound(&cm, err)
}
