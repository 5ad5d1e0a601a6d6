package writeback

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"pgregory.net/rapid"
)

// relist replaces the store's content, as a reflector's relist does, and runs the overlay's
// handler for what the informer would report: a delete for each key gone, an update or add
// for each listed object.
func relist(o *Overlay, store cache.Indexer, rv string, objs ...*corev1.ConfigMap) {
	before := map[string]interface{}{}
	for _, it := range store.List() {
		k, _ := cache.MetaNamespaceKeyFunc(it)
		before[k] = it
	}
	items := make([]interface{}, 0, len(objs))
	for _, cm := range objs {
		items = append(items, cm)
		k, _ := cache.MetaNamespaceKeyFunc(cm)
		delete(before, k)
	}
	_ = store.Replace(items, rv)
	for k, gone := range before {
		o.observed(cache.DeletedFinalStateUnknown{Key: k, Obj: gone}, true)
	}
	for _, cm := range objs {
		o.observed(cm, false)
	}
}

// Issue: a relist can skip an object's whole life, so no event for its UID ever comes. The
// informer's progress passing the entry evicts it all the same, and reads agree that the
// object is gone.
func TestRelistThatSkipsAnObjectsLifeEvictsItsEntry(t *testing.T) {
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = store.Add(configMap(1, 10))
	o := NewOverlay("configmaps", store, Options{Metrics: NewMetrics(prometheus.NewRegistry())})
	o.Record(configMap(2, 20))           // created by us, then deleted by someone else at 21
	o.Record(configMap(1, 22))           // updated by us, then again by someone else at 23
	o.RecordDelete("ns", "cm-00002", "") // our delete of the created object: a tombstone
	o.Record(configMap(3, 24))           // created by us and still there

	relist(o, store, "30", configMap(1, 23), configMap(3, 24))
	if n := o.entries.len(); n != 0 {
		t.Fatalf("%d entries left after a relist past every write", n)
	}
	if _, found, _ := o.GetByKey("ns/cm-00002"); found {
		t.Fatal("the object deleted during the relist gap is served")
	}
	if got, _, _ := o.GetByKey("ns/cm-00001"); got.(*corev1.ConfigMap).ResourceVersion != "23" {
		t.Fatalf("cm-00001 at %s, want the informer's 23", got.(*corev1.ConfigMap).ResourceVersion)
	}
}

// A watch bookmark moves the progress without any event; Sweep evicts what it passed. Len
// only counts: it changes nothing.
func TestBookmarkProgressEvictsOnSweep(t *testing.T) {
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = store.Add(configMap(1, 10))
	o := NewOverlay("configmaps", store, Options{})
	o.Record(configMap(1, 11))
	store.Bookmark("12") // the update went to a label the informer does not watch, say
	if n := o.Len(); n != 1 {
		t.Fatalf("Len %d before any sweep, want 1: Len must not evict", n)
	}
	o.Sweep()
	if n := o.Len(); n != 0 {
		t.Fatalf("Len %d after a sweep past the only entry, want 0", n)
	}
}

// An entry whose write the informer's progress has not reached stays, even when an event for
// its key arrives that is older than the write.
func TestProgressBelowTheWriteKeepsTheEntry(t *testing.T) {
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = store.Add(configMap(1, 10))
	o := NewOverlay("configmaps", store, Options{})
	o.Record(configMap(1, 20))
	older := configMap(2, 15)
	_ = store.Add(older)
	o.observed(older, false)
	if n := o.Len(); n != 1 {
		t.Fatalf("Len %d, want 1: the informer is at 15, the write at 20", n)
	}
	if got, _, _ := o.GetByKey("ns/cm-00001"); got.(*corev1.ConfigMap).ResourceVersion != "20" {
		t.Fatal("the write is not served")
	}
}

// ResourceVersions that go back (etcd restored from a backup): the entries belong to a history
// that no longer exists, and are all dropped at the first event after the relist, so that
// their high resourceVersions do not win over the restored objects.
func TestResourceVersionsGoingBackDropEveryEntry(t *testing.T) {
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = store.Add(configMap(1, 1000))
	logger, logs := capturingLogger(0)
	o := NewOverlay("configmaps", store, Options{Metrics: NewMetrics(prometheus.NewRegistry()), Logger: logger})
	o.Record(configMap(1, 1005))
	o.Record(configMap(2, 1006))
	o.Len() // the overlay has seen the informer at 1000

	restored := configMap(1, 400)
	relist(o, store, "450", restored)
	if n := o.Len(); n != 0 {
		t.Fatalf("%d entries of the old history left", n)
	}
	if got, _, _ := o.GetByKey("ns/cm-00001"); got != restored {
		t.Fatalf("read %v, want the restored object", got)
	}
	if _, found, _ := o.GetByKey("ns/cm-00002"); found {
		t.Fatal("an object created only in the old history is served")
	}
	if got := valueOf(t, o.metrics.evictions[EvictReset]); got != 2 {
		t.Fatalf("reset evictions %v, want 2", got)
	}
	if !strings.Contains(logs(), "went back") {
		t.Fatalf("want the reset logged, got:\n%s", logs())
	}
	// Writes in the new history are held as usual.
	o.Record(configMap(1, 460))
	if got, _, _ := o.GetByKey("ns/cm-00001"); got.(*corev1.ConfigMap).ResourceVersion != "460" {
		t.Fatal("a write in the new history is not served")
	}
}

// Issue: with client-go's AtomicFIFO gate off the store reports no resourceVersion, and the
// overlay would silently lose its guarantees. Observe refuses, naming the gate.
func TestObserveRefusesWithoutAtomicFIFO(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.AtomicFIFO, false)
	informer := informers.NewSharedInformerFactory(fake.NewClientset(), 0).Core().V1().ConfigMaps().Informer()
	o := NewOverlay("configmaps", informer.GetIndexer(), Options{})
	_, err := o.Observe(informer)
	if !errors.Is(err, ErrAtomicFIFODisabled) || !strings.Contains(err.Error(), "AtomicFIFO") {
		t.Fatalf("Observe returned %v, want an error naming the AtomicFIFO gate", err)
	}
}

// Results that arrive out of resourceVersion order (writers racing) leave by progress as the
// others do, and no earlier than their own resourceVersion.
func TestLateResultsLeaveByProgress(t *testing.T) {
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = store.Add(configMap(0, 10))
	o := NewOverlay("configmaps", store, Options{})
	for _, w := range []struct{ key, rv int }{{1, 30}, {2, 20}, {3, 40}, {4, 25}, {5, 50}} {
		o.Record(configMap(w.key, w.rv))
	}
	for _, step := range []struct {
		bookmark string
		want     int
	}{{"19", 5}, {"20", 4}, {"29", 3}, {"45", 1}, {"50", 0}} {
		store.Bookmark(step.bookmark)
		o.Sweep()
		if n := o.Len(); n != step.want {
			t.Fatalf("progress %s: %d entries, want %d", step.bookmark, n, step.want)
		}
	}
}

// The pending index against a model: after any pushes (in order or late) and removals,
// oldest is the entry with the lowest resourceVersion, and the index holds what was pushed
// and not removed.
func TestPendingIndexOrdersAsASortedSet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var p pendingIndex
		var held []*entry
		for i := range rapid.IntRange(1, 200).Draw(t, "ops") {
			switch {
			case len(held) > 0 && rapid.Bool().Draw(t, "remove"):
				k := rapid.IntRange(0, len(held)-1).Draw(t, "which")
				p.remove(held[k])
				p.remove(held[k]) // twice: the second does nothing
				held = append(held[:k], held[k+1:]...)
			default:
				e := &entry{key: strconv.Itoa(i), rv: strconv.Itoa(rapid.IntRange(1, 1000).Draw(t, "rv")), lateIndex: -1}
				p.push(e)
				held = append(held, e)
			}
			if p.len() != len(held) {
				t.Fatalf("len %d, want %d", p.len(), len(held))
			}
			oldest := p.oldest()
			if len(held) == 0 {
				if oldest != nil {
					t.Fatalf("oldest %s of an empty index", oldest.rv)
				}
				continue
			}
			lowest := slices.MinFunc(held, func(a, b *entry) int { c, _ := compareRV(a.rv, b.rv); return c })
			if oldest == nil || oldest.rv != lowest.rv {
				t.Fatalf("oldest %v, want resourceVersion %s", oldest, lowest.rv)
			}
		}
	})
}
