package writeback

import (
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr/funcr"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// capturingLogger returns a logger at verbosity v and a function that returns what it got.
func capturingLogger(v int) (klog.Logger, func() string) {
	var mu sync.Mutex
	var out strings.Builder
	logger := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		out.WriteString(args + "\n")
	}, funcr.Options{Verbosity: v})
	return logger, func() string {
		mu.Lock()
		defer mu.Unlock()
		return out.String()
	}
}

func TestLogsRecordsEvictionsAndOverlayReads(t *testing.T) {
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	old := configMap(1, 10)
	_ = store.Add(old)
	logger, logs := capturingLogger(4)
	o := NewOverlay("configmaps", store, Options{Logger: logger})
	o.Record(configMap(1, 20))
	_, _, _ = o.GetByKey("ns/cm-00001")
	if got := logs(); !strings.Contains(got, "Write-back recorded a write") || strings.Contains(got, "served a read") {
		t.Fatalf("at -v=4 want the record and no read lines, got:\n%s", got)
	}

	logger, logs = capturingLogger(5)
	o.logger = logger
	o.logReads.Store(true) // as the next write would find
	_, _, _ = o.GetByKey("ns/cm-00001")
	got := logs()
	if !strings.Contains(got, "Write-back served a read") || !strings.Contains(got, `"overlayRV"="20"`) || !strings.Contains(got, `"informerRV"="10"`) {
		t.Fatalf("at -v=5 want the read with both resourceVersions, got:\n%s", got)
	}

	newer := configMap(1, 20)
	_ = store.Update(newer)
	o.observed(newer, false)
	if got := logs(); !strings.Contains(got, "Write-back evicted an entry") || !strings.Contains(got, `"reason"="observed"`) {
		t.Fatalf("want the eviction logged, got:\n%s", got)
	}
}
