package writebacktest_test

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

var configMapsGVR = corev1.SchemeGroupVersion.WithResource("configmaps")

// Once Await returns, the informer's watch is registered with the tracker: a delete made
// right after synced reaches the informer (without it, a delete between List and Watch is
// lost for good by the fake).
func TestAwaitWatchThenDeleteReachesTheInformer(t *testing.T) {
	ctx := t.Context()
	cs := fake.NewClientset(named("a"))
	watches := writebacktest.RecordWatches(&cs.Fake, cs.Tracker())
	if n := watches.Open(configMapsGVR); n != 0 {
		t.Fatalf("%d watches open before any informer ran", n)
	}
	informer := informers.NewSharedInformerFactory(cs, 0).Core().V1().ConfigMaps().Informer()
	deleted := make(chan struct{})
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(interface{}) { close(deleted) },
	}); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { informer.RunWithContext(runCtx); close(done) }()
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("no sync")
	}
	if err := watches.Await(ctx, configMapsGVR); err != nil {
		t.Fatal(err)
	}
	if n := watches.Open(configMapsGVR); n != 1 {
		t.Fatalf("%d watches open, want the informer's one", n)
	}
	if err := cs.CoreV1().ConfigMaps("ns").Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-deleted:
	case <-time.After(30 * time.Second):
		t.Fatal("the informer never saw the delete")
	}
	stop()
	<-done
	if n := watches.Open(configMapsGVR); n != 0 {
		t.Fatalf("%d watches open after the informer stopped, want 0", n)
	}
}

// A watch that is read late does not make a writer panic: writes wait for room in the fake's
// 100-event buffer instead.
func TestStampedWritesWaitForASlowWatch(t *testing.T) {
	ctx := t.Context()
	cs := fake.NewClientset()
	writebacktest.StampServerFields(&cs.Fake, cs.Tracker())
	w, err := cs.CoreV1().ConfigMaps("ns").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	const writes, writers = 300, 3
	var made atomic.Int64
	nearlyFull := make(chan struct{})
	errs := make(chan error, writers)
	for g := range writers {
		go func() {
			var err error
			for i := range writes / writers {
				if _, err = cs.CoreV1().ConfigMaps("ns").Create(ctx, named(fmt.Sprintf("w%d-%d", g, i)), metav1.CreateOptions{}); err != nil {
					break
				}
				if made.Add(1) == 95 {
					close(nearlyFull) // the fake's 100-event buffer is nearly full, nothing read yet
				}
			}
			errs <- err
		}()
	}
	<-nearlyFull // the writers go on past 100 while the reader starts
	for i := range writes {
		select {
		case ev := <-w.ResultChan():
			if ev.Type != watch.Added {
				t.Fatalf("event %d: %s, want Added", i, ev.Type)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%d of %d events arrived", i, writes)
		}
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// A Create refused with AlreadyExists writes nothing, so it uses up no resourceVersion: the
// next write gets the next one, and a list is never ahead of every event.
func TestStampedRefusedCreateUsesNoResourceVersion(t *testing.T) {
	ctx := t.Context()
	cs := fake.NewClientset()
	writebacktest.StampServerFields(&cs.Fake, cs.Tracker())
	client := cs.CoreV1().ConfigMaps("ns")
	first, err := client.Create(ctx, named("a"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Create(ctx, named("a"), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("second create: %v, want AlreadyExists", err)
	}
	if _, err := client.Update(ctx, named("missing"), metav1.UpdateOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("update of a missing object: %v, want NotFound", err)
	}
	list, err := client.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if list.ResourceVersion != first.ResourceVersion {
		t.Fatalf("list resourceVersion %s after refused writes, want the last write's %s", list.ResourceVersion, first.ResourceVersion)
	}
	second, err := client.Create(ctx, named("b"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := second.ResourceVersion, next(t, first.ResourceVersion); got != want {
		t.Fatalf("next write got resourceVersion %s, want %s", got, want)
	}
}

func next(t *testing.T, rv string) string {
	t.Helper()
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return strconv.FormatInt(n+1, 10)
}
