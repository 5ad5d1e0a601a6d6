package writeback

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// newFilledIndexer returns an informer-like indexer holding n ConfigMaps ns/cm-<i> at
// resourceVersion 1000+i.
func newFilledIndexer(n int) cache.Indexer {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for i := range n {
		_ = indexer.Add(configMap(i, 1000+i))
	}
	return indexer
}

func configMap(i, rv int) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Namespace:       "ns",
		Name:            fmt.Sprintf("cm-%05d", i),
		UID:             types.UID(fmt.Sprintf("uid-%d", i)),
		ResourceVersion: strconv.Itoa(rv),
		Labels:          map[string]string{"app": "bench"},
	}}
}

// GetByKey must not allocate, whether or not writes are pending and whichever copy wins.
func TestGetByKeyDoesNotAllocate(t *testing.T) {
	indexer := newFilledIndexer(1000)
	o := NewOverlay("configmaps", indexer, Options{Metrics: NewMetrics(prometheus.NewRegistry())})
	cases := []struct{ name, key string }{{"no pending writes", "ns/cm-00500"}}
	run := func() {
		for _, c := range cases {
			allocs := testing.AllocsPerRun(200, func() {
				if _, ok, _ := o.GetByKey(c.key); !ok {
					panic("missing " + c.key)
				}
			})
			if allocs != 0 {
				t.Errorf("%s: %v allocations per GetByKey, want 0", c.name, allocs)
			}
		}
	}
	run()
	for i := range 100 {
		o.Record(configMap(i, 5000+i)) // newer than the informer's: the overlay wins
	}
	o.Record(configMap(1001, 5000))      // created, not in the informer
	o.RecordDelete("ns", "cm-00200", "") // tombstone
	cases = []struct{ name, key string }{
		{"pending writes, key without entry", "ns/cm-00500"},
		{"pending writes, overlay copy wins", "ns/cm-00050"},
		{"pending writes, created object", "ns/cm-01001"},
	}
	run()
	allocs := testing.AllocsPerRun(200, func() { _, _, _ = o.GetByKey("ns/cm-00200") })
	if allocs != 0 {
		t.Errorf("tombstoned key: %v allocations per GetByKey, want 0", allocs)
	}
}
