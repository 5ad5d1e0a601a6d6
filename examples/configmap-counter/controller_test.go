package main

import (
	"context"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

// With the watch held back, the step after a write reads the informer's copy from before it:
// the plain lister repeats the step, the write-back store does not.
func TestStepAfterWriteReadsOwnWrite(t *testing.T) {
	for _, tc := range []struct {
		writeBack  bool
		wantCounts []int // the count each of three syncs writes
		wantStale  int64
	}{
		{writeBack: false, wantCounts: []int{1, 1, 1}, wantStale: 2},
		{writeBack: true, wantCounts: []int{1, 2, 3}, wantStale: 0},
	} {
		t.Run(map[bool]string{false: "plain lister", true: "writeback"}[tc.writeBack], func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cs := fake.NewClientset()
			tracker := writebacktest.StampServerFields(&cs.Fake, cs.Tracker())
			holder := writebacktest.NewHolder()
			watches := &writebacktest.Watches{}
			cs.PrependWatchReactor("configmaps", watches.Reactor(writebacktest.WatchReactor(tracker, holder.Wrap)))
			if _, err := cs.CoreV1().ConfigMaps("ns").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
				Name: "tally", Namespace: "ns", Annotations: map[string]string{TargetAnnotation: "5"},
			}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}

			factory := informers.NewSharedInformerFactory(cs, 0)
			c, err := NewController(cs, factory.Core().V1().ConfigMaps(), tc.writeBack)
			if err != nil {
				t.Fatal(err)
			}
			factory.Start(ctx.Done())
			if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
				t.Fatal("caches did not sync")
			}
			// The fake loses a delete made between the informer's List and its Watch.
			if err := watches.Await(ctx, corev1.SchemeGroupVersion.WithResource("configmaps")); err != nil {
				t.Fatal(err)
			}

			name := cache.ObjectName{Namespace: "ns", Name: "tally"}
			for i, want := range tc.wantCounts {
				if _, err := c.sync(ctx, name); err != nil {
					t.Fatal(err)
				}
				got, err := cs.CoreV1().ConfigMaps("ns").Get(ctx, "tally", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if got.Annotations[CountAnnotation] != strconv.Itoa(want) {
					t.Fatalf("after sync %d the server holds count %q, want %d", i+1, got.Annotations[CountAnnotation], want)
				}
			}
			// Every write's event is still held: no read above can have come from it.
			held, cancelHeld := context.WithTimeout(ctx, 10*time.Second)
			defer cancelHeld()
			if err := holder.AwaitPending(held, len(tc.wantCounts)); err != nil || holder.Pending() != len(tc.wantCounts) {
				t.Fatalf("the watch holds %d events, want %d: %v", holder.Pending(), len(tc.wantCounts), err)
			}
			s := c.Stats()
			if s.StaleReads != tc.wantStale || s.Steps != int64(len(tc.wantCounts)) {
				t.Fatalf("stats %+v, want %d steps and %d stale reads", s, len(tc.wantCounts), tc.wantStale)
			}
		})
	}
}
