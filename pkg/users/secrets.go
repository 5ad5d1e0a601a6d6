package users

import (
	"cmp"
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/internal/keyqueue"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/secretread"
)

// indexBySecret: namespace/secret, the BrokerUsers whose password that Secret holds.
const indexBySecret = "brokeruser-secret"

// passwordSecret is the Secret a BrokerUser's password is read from: the one its spec names,
// or the one it generates.
func passwordSecret(bu *v1alpha1.BrokerUser) string {
	if a := bu.Spec.Authentication; a != nil && a.Password != nil {
		return cmp.Or(a.Password.ValueFrom.SecretKeyRef.Name, GeneratedSecretName(bu))
	}
	return GeneratedSecretName(bu)
}

func bySecret(obj any) ([]string, error) {
	if bu, ok := obj.(*v1alpha1.BrokerUser); ok {
		return []string{bu.Namespace + "/" + passwordSecret(bu)}, nil
	}
	return nil, nil
}

// watchSecrets makes the informer that tells a Secret changed, so that a rotated password is
// set at once rather than at the next resync. It asks the API for metadata only
// (PartialObjectMetadata), and keeps only each Secret's name and resourceVersion: no Secret's
// data ever reaches the operator through it. Its list and watch run with secretread's quiet
// context, so that client-go logs nothing of them at any -v: a Secret made with kubectl apply
// carries its data in an annotation. The password is still read with a GET by name when the
// BrokerUser is reconciled (password.go).
func (n *namespaceCache) watchSecrets(cfg Config, namespace string) {
	secrets := cfg.MetadataClient.Resource(corev1.SchemeGroupVersion.WithResource("secrets")).Namespace(namespace)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			quiet, err := secretread.Context(ctx)
			if err != nil {
				return nil, err
			}
			return secrets.List(quiet, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			quiet, err := secretread.Context(ctx)
			if err != nil {
				return nil, err
			}
			return secrets.Watch(quiet, opts)
		},
	}
	// As metadatainformer does: a client that cannot stream the initial list gets list and watch.
	n.secretInformer = cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, cfg.MetadataClient),
		&metav1.PartialObjectMetadata{}, 0, cache.Indexers{})
	// Set before the informer starts; it cannot fail then.
	_ = n.secretInformer.SetTransform(func(obj any) (any, error) {
		m, ok := obj.(*metav1.PartialObjectMetadata)
		if !ok {
			return obj, nil
		}
		return &metav1.PartialObjectMetadata{TypeMeta: m.TypeMeta, ObjectMeta: metav1.ObjectMeta{
			Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion}}, nil
	})
	n.secretRunner = &informerRunner{informer: n.secretInformer}
}

// informerRunner starts and stops one informer as a factory does its own (keyqueue.Factory).
type informerRunner struct {
	informer cache.SharedIndexInformer
	once     sync.Once
	wg       sync.WaitGroup
}

func (r *informerRunner) Start(stop <-chan struct{}) {
	r.once.Do(func() { r.wg.Go(func() { r.informer.Run(stop) }) })
}

// Shutdown waits for the informer, which stops when its stop channel closes.
func (r *informerRunner) Shutdown() { r.wg.Wait() }

// secretEvents queues the BrokerUsers whose password a Secret holds when it is created,
// changed or deleted: a Secret made after its BrokerUser, a rotation, a generated Secret
// deleted to be made anew.
func secretEvents(changed func(key string)) cache.ResourceEventHandlerFuncs {
	key := func(obj any) {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		if m, ok := obj.(metav1.Object); ok {
			changed(m.GetNamespace() + "/" + m.GetName())
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: key,
		UpdateFunc: func(old, cur any) {
			o, ok1 := old.(metav1.Object)
			c, ok2 := cur.(metav1.Object)
			if !ok1 || !ok2 || o.GetResourceVersion() != c.GetResourceVersion() {
				key(cur)
			}
		},
		DeleteFunc: key,
	}
}

// queueSecretUsers queues the BrokerUsers of nc that read their password from Secret key.
func (c *Controller) queueSecretUsers(nc *namespaceCache) func(key string) {
	return func(key string) { keyqueue.AddIndexed(c.queue, nc.userOverlay, indexBySecret, key) }
}
