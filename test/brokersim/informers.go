package brokersim

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// watch is what PodSync and VolumeBinder share: an informer factory that runs until Stop, or
// until the context it was started with ends.
type watch struct {
	factory informers.SharedInformerFactory
	cancel  context.CancelFunc
}

// newWatch makes the factory for the objects in namespace (all if empty) that match the label
// selector. The context it returns ends with Stop.
func newWatch(ctx context.Context, client kubernetes.Interface, namespace, selector string) (context.Context, watch) {
	ctx, cancel := context.WithCancel(ctx)
	return ctx, watch{cancel: cancel, factory: informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithNamespace(namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector }))}
}

// handler calls on with the object of every add and update (the new one) of informer, and of
// every delete too when deletes is set (a cache.DeletedFinalStateUnknown as it comes).
type handler struct {
	informer cache.SharedIndexInformer
	on       func(obj any)
	deletes  bool
}

// start adds the handlers, starts the factory and returns once its informers have synced. On
// failure nothing is left running.
func (w *watch) start(ctx context.Context, handlers ...handler) error {
	for _, h := range handlers {
		funcs := cache.ResourceEventHandlerFuncs{AddFunc: h.on, UpdateFunc: func(_, cur any) { h.on(cur) }}
		if h.deletes {
			funcs.DeleteFunc = h.on
		}
		if _, err := h.informer.AddEventHandler(funcs); err != nil {
			w.cancel()
			return err
		}
	}
	w.factory.Start(ctx.Done())
	for typ, ok := range w.factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			w.Stop()
			return fmt.Errorf("brokersim: informer for %v did not sync", typ)
		}
	}
	return nil
}

// Stop stops the informers and waits for their handlers to return.
func (w *watch) Stop() {
	w.cancel()
	w.factory.Shutdown()
}
