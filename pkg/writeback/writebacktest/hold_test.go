package writebacktest_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

func receive(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	select {
	case ev := <-w.ResultChan():
		return ev
	case <-timeout.C:
		t.Fatal("no event")
		return watch.Event{}
	}
}

func noEvent(t *testing.T, w watch.Interface) {
	t.Helper()
	select {
	case ev := <-w.ResultChan():
		t.Fatalf("event %v delivered while held", ev.Type)
	default:
	}
}

func named(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
}

func TestHolderHoldsUntilReleasedInOrder(t *testing.T) {
	ctx := t.Context()
	inner := watch.NewFake()
	h := writebacktest.NewHolder()
	w := h.Wrap(inner)
	defer w.Stop()

	go func() {
		inner.Add(named("a"))
		inner.Modify(named("b"))
		inner.Delete(named("c"))
	}()
	if err := h.AwaitPending(ctx, 3); err != nil {
		t.Fatal(err)
	}
	noEvent(t, w)
	if got := h.Release(1); got != 1 {
		t.Fatalf("released %d, want 1", got)
	}
	if ev := receive(t, w); ev.Type != watch.Added || ev.Object.(*corev1.ConfigMap).Name != "a" {
		t.Fatalf("first event %v %v, want Added a", ev.Type, ev.Object)
	}
	if h.Pending() != 2 {
		t.Fatalf("pending %d, want 2", h.Pending())
	}
	if got := h.ReleaseAll(); got != 2 {
		t.Fatalf("released %d, want 2", got)
	}
	if ev := receive(t, w); ev.Type != watch.Modified {
		t.Fatalf("second event %v, want Modified", ev.Type)
	}
	if ev := receive(t, w); ev.Type != watch.Deleted {
		t.Fatalf("third event %v, want Deleted", ev.Type)
	}
	if got := h.Release(5); got != 0 {
		t.Fatalf("released %d with nothing held", got)
	}
}

func TestHolderStopEndsTheWatch(t *testing.T) {
	inner := watch.NewFake()
	h := writebacktest.NewHolder()
	w := h.Wrap(inner)
	w.Stop()
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	select {
	case _, open := <-w.ResultChan():
		if open {
			t.Fatal("event after Stop")
		}
	case <-timeout.C:
		t.Fatal("result channel not closed after Stop")
	}
	if h.Pending() != 0 {
		t.Fatal("a stopped watch still counts as pending")
	}
}

// TestHolderWithFakeClientsetAndInformer shows the plumbing: the holder serves the fake
// clientset's watches, and a SharedIndexInformer lags behind the writes until released.
func TestHolderWithFakeClientsetAndInformer(t *testing.T) {
	ctx := t.Context()
	cs := fake.NewClientset()
	tracker := writebacktest.StampServerFields(&cs.Fake, cs.Tracker())
	holder := writebacktest.NewHolder()
	var watches writebacktest.Watches
	cs.PrependWatchReactor("configmaps", watches.Reactor(writebacktest.WatchReactor(tracker, holder.Wrap)))

	informer := informers.NewSharedInformerFactory(cs, 0).Core().V1().ConfigMaps().Informer()
	seen := make(chan string, 10)
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) { seen <- obj.(*corev1.ConfigMap).ResourceVersion },
	}); err != nil {
		t.Fatal(err)
	}
	go informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("no sync")
	}
	if err := watches.Await(ctx, configMapsGVR); err != nil {
		t.Fatal(err)
	}

	created, err := cs.CoreV1().ConfigMaps("ns").Create(ctx, named("a"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.AwaitPending(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if _, exists, _ := informer.GetIndexer().GetByKey("ns/a"); exists {
		t.Fatal("informer has the object while its event is held")
	}
	holder.ReleaseAll()
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	select {
	case rv := <-seen:
		if rv != created.ResourceVersion {
			t.Fatalf("informer saw %s, created %s", rv, created.ResourceVersion)
		}
	case <-timeout.C:
		t.Fatal("informer did not see the released event")
	}
}

func TestAwaitPendingHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := writebacktest.NewHolder().AwaitPending(ctx, 1); err == nil {
		t.Fatal("AwaitPending returned nil for a cancelled context with nothing held")
	}
}
