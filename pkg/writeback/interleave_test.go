package writeback

import (
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// steppingIndexer is an informer's indexer that lets a test act between any two of the
// overlay's calls into it: once armed, right after call number at returns, it runs then. The
// store's own operations are atomic, so trying every at covers every interleaving of one
// delivery with the overlay's work.
type steppingIndexer struct {
	cache.Indexer
	calls int
	at    int
	then  func()
}

func (s *steppingIndexer) arm(at int, then func()) { s.calls, s.at, s.then = 0, at, then }

func (s *steppingIndexer) step() {
	s.calls++
	if s.calls == s.at && s.then != nil {
		f := s.then
		s.then = nil
		f()
	}
}

func (s *steppingIndexer) GetByKey(key string) (interface{}, bool, error) {
	defer s.step()
	return s.Indexer.GetByKey(key)
}

func (s *steppingIndexer) List() []interface{} {
	defer s.step()
	return s.Indexer.List()
}

func (s *steppingIndexer) ListKeys() []string {
	defer s.step()
	return s.Indexer.ListKeys()
}

func (s *steppingIndexer) ByIndex(name, value string) ([]interface{}, error) {
	defer s.step()
	return s.Indexer.ByIndex(name, value)
}

func (s *steppingIndexer) Index(name string, obj interface{}) ([]interface{}, error) {
	defer s.step()
	return s.Indexer.Index(name, obj)
}

func (s *steppingIndexer) LastStoreSyncResourceVersion() string {
	defer s.step()
	return s.Indexer.LastStoreSyncResourceVersion()
}

func coloredConfigMap(name, rv, color string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Namespace: testNamespace, Name: name, UID: types.UID("uid-" + name), ResourceVersion: rv,
		Labels: map[string]string{"color": color},
	}}
}

// interleaving is one overlay over a stepping store holding a few objects, with the
// controller's own create of "new" recorded and, when withUpdate, an update of "old-1" too.
type interleaving struct {
	store   *steppingIndexer
	overlay *Overlay
	created *corev1.ConfigMap
}

func newInterleaving(withUpdate bool) *interleaving {
	base := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		byColor:              colorIndex,
	})
	for i := range 4 {
		_ = base.Add(coloredConfigMap(fmt.Sprintf("old-%d", i), fmt.Sprint(10+i), "red"))
	}
	s := &steppingIndexer{Indexer: base}
	o := NewOverlay("configmaps", s, Options{})
	if withUpdate {
		o.Record(coloredConfigMap("old-1", "19", "red"))
	}
	created := coloredConfigMap("new", "20", "red")
	o.Record(created)
	return &interleaving{store: s, overlay: o, created: created}
}

// deliverCreate is the informer taking in the create: the store first, then (withHandler)
// the overlay's event handler.
func (il *interleaving) deliverCreate(withHandler bool) func() {
	return func() {
		copied := il.created.DeepCopy()
		_ = il.store.Indexer.Add(copied)
		if withHandler {
			il.overlay.observed(copied, false)
		}
	}
}

// Issue: a read racing the informer's delivery of the controller's own create answered "not
// found". It must not, under any interleaving, for every way of reading.
func TestReadRacingDeliveryOfOwnCreate(t *testing.T) {
	reads := map[string]func(o *Overlay) []string{
		"GetByKey": func(o *Overlay) []string {
			got, found, err := o.GetByKey(testNamespace + "/new")
			if err != nil || !found {
				return nil
			}
			return []string{got.(*corev1.ConfigMap).Name}
		},
		"List": func(o *Overlay) []string { return names(o.List()) },
		"ListKeys": func(o *Overlay) []string {
			var out []string
			for _, k := range o.ListKeys() {
				_, name, _ := cache.SplitMetaNamespaceKey(k)
				out = append(out, name)
			}
			return out
		},
		"ByIndex": func(o *Overlay) []string {
			items, _ := o.ByIndex(byColor, "red")
			return names(items)
		},
		"namespaced lister List": func(o *Overlay) []string {
			cms, _ := corelisters.NewConfigMapLister(o).ConfigMaps(testNamespace).List(labels.Everything())
			var out []string
			for _, cm := range cms {
				out = append(out, cm.Name)
			}
			return out
		},
		"lister Get": func(o *Overlay) []string {
			cm, err := corelisters.NewConfigMapLister(o).ConfigMaps(testNamespace).Get("new")
			if err != nil {
				return nil
			}
			return []string{cm.Name}
		},
	}
	for name, read := range reads {
		for _, withUpdate := range []bool{false, true} {
			for _, withHandler := range []bool{false, true} {
				// Count the read's calls into the store, then deliver after each of them.
				il := newInterleaving(withUpdate)
				il.store.arm(-1, nil)
				read(il.overlay)
				calls := il.store.calls
				for at := 0; at <= calls; at++ {
					il := newInterleaving(withUpdate)
					deliver := il.deliverCreate(withHandler)
					if at == 0 {
						deliver()
					} else {
						il.store.arm(at, deliver)
					}
					got := read(il.overlay)
					if n := countOf(got, "new"); n != 1 {
						t.Errorf("%s (pending update %v, handler %v), delivery after call %d of %d: the own create appears %d times in %v",
							name, withUpdate, withHandler, at, calls, n, got)
					}
					for _, other := range []string{"old-0", "old-1"} {
						if name != "GetByKey" && name != "lister Get" && countOf(got, other) != 1 {
							t.Errorf("%s, delivery after call %d: %s appears %d times in %v", name, at, other, countOf(got, other), got)
						}
					}
				}
			}
		}
	}
}

func names(items []interface{}) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.(*corev1.ConfigMap).Name)
	}
	return out
}

func countOf(names []string, name string) int {
	n := 0
	for _, x := range names {
		if x == name {
			n++
		}
	}
	return n
}

// Issue: Record could race the handler of its own watch event (check, then publish, while the
// handler looked in between), and the entry then waited for an event already handled. Deliver
// the write, with its handler, after each of Record's calls into the store: the overlay must be
// empty afterwards.
func TestRecordRacingItsOwnEventLeavesNothing(t *testing.T) {
	for _, update := range []bool{false, true} {
		calls := -1 // counted by a first run without delivery
		for at := -1; at <= calls; at++ {
			if at == 0 {
				continue
			}
			base := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			_ = base.Add(coloredConfigMap("a", "10", "red"))
			s := &steppingIndexer{Indexer: base}
			o := NewOverlay("configmaps", s, Options{Metrics: NewMetrics(nil)})
			written := coloredConfigMap("b", "11", "red") // a create
			if update {
				written = coloredConfigMap("a", "11", "blue")
			}
			delivered := false
			var handler sync.WaitGroup
			deliver := func() {
				delivered = true
				copied := written.DeepCopy()
				_ = base.Update(copied)
				// The handler takes no lock while nothing is published: run it right here,
				// before Record goes on. Otherwise it waits for Record and then finds the entry.
				if o.entries.len() == 0 {
					o.observed(copied, false)
				} else {
					handler.Go(func() { o.observed(copied, false) })
				}
			}
			s.arm(at, deliver)
			o.Record(written)
			if at < 0 {
				calls = s.calls
			}
			if at < 0 {
				continue
			}
			if !delivered {
				deliver() // an early delivery cut Record short: deliver after it returns
			}
			handler.Wait()
			if n := o.entries.len(); n != 0 {
				t.Errorf("update %v, delivery after call %d of %d: %d entries left after the informer delivered the write", update, at, calls, n)
			}
			if got := valueOf(t, o.metrics.entries); got != 0 {
				t.Errorf("update %v, delivery after call %d: entries gauge %v, want 0", update, at, got)
			}
		}
	}
}

// The same for RecordDelete and the delete event.
func TestRecordDeleteRacingItsOwnEventLeavesNothing(t *testing.T) {
	calls := -1 // counted by a first run without delivery
	for at := -1; at <= calls; at++ {
		if at == 0 {
			continue
		}
		base := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
		live := coloredConfigMap("a", "10", "red")
		_ = base.Add(live)
		s := &steppingIndexer{Indexer: base}
		o := NewOverlay("configmaps", s, Options{})
		delivered := false
		var handler sync.WaitGroup
		deliver := func() {
			delivered = true
			gone := live.DeepCopy()
			gone.ResourceVersion = "11"
			_ = base.Delete(gone)
			if o.entries.len() == 0 {
				o.observed(gone, true)
			} else {
				handler.Go(func() { o.observed(gone, true) })
			}
		}
		s.arm(at, deliver)
		o.RecordDelete(testNamespace, "a", live.UID)
		if at < 0 {
			calls = s.calls
		}
		if at < 0 {
			continue
		}
		if !delivered {
			deliver()
		}
		handler.Wait()
		if n := o.entries.len(); n != 0 {
			t.Errorf("delivery after call %d of %d: %d entries left after the informer delivered the delete", at, calls, n)
		}
		if _, found, _ := o.GetByKey(testNamespace + "/a"); found {
			t.Errorf("delivery after call %d: the deleted object is served", at)
		}
	}
}
