package writebacktest

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"
)

// Watches closes the fake clientset's gap between an informer's List and its Watch.
//
// cache.WaitForCacheSync returns once the informer has listed, before its watch is open. The
// fake tracker replays to a new watch the creates made in between, but not the deletes
// (kubernetes/kubernetes#141528): a delete made in that window is lost for good, and the
// informer shows the object for ever. Watches records every watch the fake opens, once the
// tracker has registered it, so that a test waits for the informer's watch before it writes,
// as client-go's own fake-client example does:
//
//	cs := fake.NewClientset()
//	watches := writebacktest.RecordWatches(&cs.Fake, cs.Tracker())
//	factory.Start(ctx.Done())
//	factory.WaitForCacheSync(ctx.Done())
//	if err := watches.Await(ctx, corev1.SchemeGroupVersion.WithResource("pods")); err != nil { ... }
//
// Call RecordWatches after StampServerFields, with the tracker it returns, so that the
// watches it serves keep the stamps. A test that serves a resource's watches through a
// reactor of its own (a Holder's) wraps that reactor with Reactor instead. The zero value is
// ready to use.
type Watches struct {
	mu      sync.Mutex
	open    map[schema.GroupVersionResource]int
	changed chan struct{} // closed and replaced whenever open changes
}

// RecordWatches prepends to f a watch reactor for every resource that serves tracker's
// watches, and returns the record of them.
func RecordWatches(f *k8stesting.Fake, tracker k8stesting.ObjectTracker) *Watches {
	w := &Watches{}
	f.PrependWatchReactor("*", w.Reactor(WatchReactor(tracker, func(in watch.Interface) watch.Interface { return in })))
	return w
}

// Reactor returns reaction with every watch it opens recorded, once reaction has returned
// it (so the tracker has registered it). Prepend it in place of reaction:
//
//	cs.PrependWatchReactor("configmaps", watches.Reactor(writebacktest.WatchReactor(tracker, holder.Wrap)))
func (w *Watches) Reactor(reaction k8stesting.WatchReactionFunc) k8stesting.WatchReactionFunc {
	return func(action k8stesting.Action) (bool, watch.Interface, error) {
		handled, opened, err := reaction(action)
		if !handled || err != nil || opened == nil {
			return handled, opened, err
		}
		gvr := action.GetResource()
		w.add(gvr, 1)
		return true, &recordedWatch{Interface: opened, stop: func() { w.add(gvr, -1) }}, nil
	}
}

func (w *Watches) add(gvr schema.GroupVersionResource, n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.initLocked()
	w.open[gvr] += n
	close(w.changed)
	w.changed = make(chan struct{})
}

func (w *Watches) initLocked() {
	if w.open == nil {
		w.open = map[schema.GroupVersionResource]int{}
		w.changed = make(chan struct{})
	}
}

// Open is the number of watches of resource open now.
func (w *Watches) Open(resource schema.GroupVersionResource) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.open[resource]
}

// Await blocks until a watch of each of resources is open, or ctx ends. From then on, every
// write the test makes reaches the informers watching them, deletes included.
func (w *Watches) Await(ctx context.Context, resources ...schema.GroupVersionResource) error {
	for {
		w.mu.Lock()
		w.initLocked()
		missing, changed := false, w.changed
		for _, r := range resources {
			if w.open[r] == 0 {
				missing = true
			}
		}
		w.mu.Unlock()
		if !missing {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// recordedWatch counts itself closed when its consumer stops it.
type recordedWatch struct {
	watch.Interface
	once sync.Once
	stop func()
}

func (r *recordedWatch) Stop() {
	r.once.Do(r.stop)
	r.Interface.Stop()
}
