package writeback

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

// handledUpTo tracks the newest resourceVersion the overlay's handler has finished with.
// Events reach a handler in the watch's order, so once it reaches a write's resourceVersion
// that write's event and every one before it have been handled. A count of events cannot say
// that: the informer reports synced before its handlers have run the initial list's adds, so
// adds handled later would count as events of writes.
type handledUpTo struct {
	rv   atomic.Int64
	poke chan struct{}
}

func newHandledUpTo() *handledUpTo { return &handledUpTo{poke: make(chan struct{}, 1)} }

// after is the overlay handler's seam (Overlay.observe).
func (h *handledUpTo) after(obj interface{}) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if m, ok := obj.(metav1.Object); ok {
		n := int64(atoi(m.GetResourceVersion()))
		for cur := h.rv.Load(); n > cur && !h.rv.CompareAndSwap(cur, n); cur = h.rv.Load() {
		}
	}
	select {
	case h.poke <- struct{}{}:
	default:
	}
}

func (h *handledUpTo) reached(rv string) bool { return h.rv.Load() >= int64(atoi(rv)) }

// await waits until the handler has handled the event of resourceVersion rv.
func (h *handledUpTo) await(ctx context.Context, rv string) error {
	for !h.reached(rv) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("the overlay's handler reached resourceVersion %d of %s: %w", h.rv.Load(), rv, ctx.Err())
		case <-h.poke:
		}
	}
	return nil
}

// The informer reports synced while its handler still has the initial list's adds to run (here
// it cannot run them before the gate opens). Those adds must not pass for the event of a
// write made after the sync: waiting for the write leaves nothing in the overlay.
func TestHandledUpToIsNotFooledByTheInitialList(t *testing.T) {
	ctx := t.Context()
	h := &harness{holder: writebacktest.NewHolder()}
	typedBackend.server(h) // only the fake server and the informer: the handler here is gated
	cs, informer, holder := h.cs, h.informer, h.holder
	for i := range 3 {
		cm := coloredConfigMap(fmt.Sprintf("bg-%d", i), "", "red")
		cm.UID = ""
		if _, err := cs.CoreV1().ConfigMaps(testNamespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	overlay := NewOverlay("configmaps", informer.GetIndexer(), Options{})
	handled, gate := newHandledUpTo(), make(chan struct{})
	reg, err := overlay.observe(informer, func(obj interface{}) { <-gate; handled.after(obj) })
	if err != nil {
		t.Fatal(err)
	}
	runInformer(ctx, t, informer, &h.watches)
	cm := coloredConfigMap("own", "", "blue")
	cm.UID = ""
	written, err := Wrap(cs.CoreV1().ConfigMaps(testNamespace), testNamespace, overlay).Create(ctx, cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.AwaitPending(ctx, 1); err != nil {
		t.Fatal(err)
	}
	close(gate)
	if !cache.WaitForCacheSync(ctx.Done(), reg.HasSynced) {
		t.Fatal("the handler did not run the initial list")
	}
	if handled.reached(written.ResourceVersion) {
		t.Fatalf("the initial list's adds passed for the event of the write at %s, still held", written.ResourceVersion)
	}
	holder.ReleaseAll()
	if err := handled.await(ctx, written.ResourceVersion); err != nil {
		t.Fatal(err)
	}
	if n := overlay.Len(); n != 0 {
		t.Fatalf("%d entries left after the handler handled the write's event: %v", n, describeEntries(overlay))
	}
}
