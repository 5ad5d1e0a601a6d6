package writeback

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// Bad input to Record is refused without a panic and without an entry.
func TestRecordRefusesBadInput(t *testing.T) {
	o := NewOverlay("configmaps", cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil), Options{})
	var typedNil *corev1.ConfigMap
	o.Record(nil)
	o.Record(typedNil)
	o.Record(&corev1.ConfigMap{}) // no name
	if o.Len() != 0 {
		t.Fatalf("bad input stored %d entries", o.Len())
	}
}

func TestNewOverlayNeedsAnIndexer(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NewOverlay accepted a nil indexer")
		}
	}()
	NewOverlay("configmaps", nil, Options{})
}
