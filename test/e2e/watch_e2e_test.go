//go:build e2e

package e2e

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// watchFrom passes each event of a watch that starts at resourceVersion to each, in order, until
// the test ends; the watch is opened again where it broke off. It returns once the watch is open.
func watchFrom(t *testing.T, ctx context.Context, cancel context.CancelFunc, resourceVersion string,
	open func(context.Context, metav1.ListOptions) (watch.Interface, error), each func(watch.Event)) {
	t.Helper()
	w, err := watchtools.NewRetryWatcherWithContext(ctx, resourceVersion, &cache.ListWatch{WatchFuncWithContext: open})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			each(ev)
		}
	}()
	t.Cleanup(func() {
		cancel()
		w.Stop()
		<-done
	})
}
