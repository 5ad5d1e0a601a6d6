package writeback

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Many goroutines write and read while the informer delivers late: every writer reads its own
// writes, every reader sees resourceVersions only move forward, and once the informer has
// delivered everything the overlay is empty.
func TestConcurrentReadersWritersAndDeliveries(t *testing.T) {
	const writers, readers, writesEach, keysEach = 4, 2, 30, 3
	h := newHarness(t)
	ctx, stop := context.WithCancel(h.ctx)
	defer stop()

	// The informer lags: events are released in batches, whenever some are held.
	var delivery sync.WaitGroup
	delivery.Go(func() {
		for ctx.Err() == nil {
			if h.holder.AwaitPending(ctx, 1) == nil {
				h.holder.ReleaseAll()
			}
		}
	})

	var readersDone sync.WaitGroup
	readErrs := make(chan error, readers)
	for r := range readers {
		readersDone.Go(func() {
			floor := map[string]int{}
			check := func(cm *corev1.ConfigMap) error {
				rv, _ := strconv.Atoi(cm.ResourceVersion)
				if rv < floor[cm.Name] {
					return fmt.Errorf("reader %d: %s went back from %d to %d", r, cm.Name, floor[cm.Name], rv)
				}
				floor[cm.Name] = rv
				return nil
			}
			for ctx.Err() == nil {
				all, err := h.lister.List(labels.Everything())
				if err != nil {
					readErrs <- err
					return
				}
				for _, cm := range all {
					if err := check(cm); err != nil {
						readErrs <- err
						return
					}
				}
				if cm, err := h.lister.ConfigMaps(testNamespace).Get("w0-k0"); err == nil {
					if err := check(cm); err != nil {
						readErrs <- err
						return
					}
				}
			}
		})
	}

	var writersDone sync.WaitGroup
	writeErrs := make(chan error, writers)
	for w := range writers {
		writersDone.Go(func() {
			latest := map[string]*corev1.ConfigMap{}
			for i := range writesEach {
				name := fmt.Sprintf("w%d-k%d", w, i%keysEach)
				var err error
				if prev, ok := latest[name]; ok {
					next := prev.DeepCopy()
					next.Data["v"] = strconv.Itoa(i)
					latest[name], err = h.client.Update(ctx, next, metav1UpdateOptions())
				} else {
					latest[name], err = h.client.Create(ctx, newConfigMap(name), metav1CreateOptions())
				}
				if err != nil {
					writeErrs <- err
					return
				}
				read, err := h.lister.ConfigMaps(testNamespace).Get(name)
				if err != nil || atoi(read.ResourceVersion) < atoi(latest[name].ResourceVersion) {
					writeErrs <- fmt.Errorf("writer %d lost its write of %s at %s (read %v, err %v)", w, name, latest[name].ResourceVersion, rvOf(read), err)
					return
				}
			}
		})
	}
	writersDone.Wait()
	close(writeErrs)
	for err := range writeErrs {
		t.Fatal(err)
	}

	// Every write made exactly one watch event; wait until the overlay's handler has seen all.
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for range writers * writesEach {
		select {
		case <-h.observed:
		case <-timeout.C:
			t.Fatal("informer did not deliver every write")
		}
	}
	stop()
	delivery.Wait()
	readersDone.Wait()
	close(readErrs)
	for err := range readErrs {
		t.Fatal(err)
	}
	if n := h.overlay.Len(); n != 0 {
		t.Fatalf("overlay holds %d entries after the informer delivered everything", n)
	}
}
