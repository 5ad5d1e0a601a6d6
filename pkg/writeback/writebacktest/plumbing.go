package writebacktest

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
)

// WatchReactor returns a watch reaction for a fake clientset that serves the tracker's watch
// through wrap (for example Holder.Wrap):
//
//	cs.PrependWatchReactor("configmaps", writebacktest.WatchReactor(cs.Tracker(), holder.Wrap))
func WatchReactor(tracker k8stesting.ObjectTracker, wrap func(watch.Interface) watch.Interface) k8stesting.WatchReactionFunc {
	return func(action k8stesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if wa, ok := action.(k8stesting.WatchActionImpl); ok {
			opts = wa.ListOptions
		}
		w, err := tracker.Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return false, nil, err
		}
		return true, wrap(w), nil
	}
}

// WrapWatches returns a ListerWatcher whose watches pass through wrap, for informers on a real
// apiserver:
//
//	lw := writebacktest.WrapWatches(cache.NewListWatchFromClient(...), func(w watch.Interface) watch.Interface {
//		return writebacktest.NewDelayingWatch(w, randomDelay, nil)
//	})
//
// The result is both a cache.ListerWatcher and a cache.ListerWatcherWithContext, so it fits
// cache.NewSharedIndexInformer.
func WrapWatches(lw cache.ListerWatcherWithContext, wrap func(watch.Interface) watch.Interface) ListerWatcher {
	return &wrappedListerWatcher{inner: lw, wrap: wrap}
}

// ListerWatcher is what WrapWatches returns.
type ListerWatcher interface {
	cache.ListerWatcher
	cache.ListerWatcherWithContext
}

type wrappedListerWatcher struct {
	inner cache.ListerWatcherWithContext
	wrap  func(watch.Interface) watch.Interface
}

func (l *wrappedListerWatcher) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return l.inner.ListWithContext(ctx, opts)
}

func (l *wrappedListerWatcher) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := l.inner.WatchWithContext(ctx, opts)
	if err != nil {
		return nil, err
	}
	return l.wrap(w), nil
}

// List lists without a context, for informers that still ask that way.
func (l *wrappedListerWatcher) List(opts metav1.ListOptions) (runtime.Object, error) {
	return l.ListWithContext(context.Background(), opts)
}

// Watch watches without a context, for informers that still ask that way.
func (l *wrappedListerWatcher) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return l.WatchWithContext(context.Background(), opts)
}
