package writeback

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"pgregory.net/rapid"
)

// TestMain raises rapid's default number of cases so that a plain `go test` means something;
// -rapid.checks=100000 on the command line runs the big search. -writeback.report prints the
// benchmark report instead of testing.
func TestMain(m *testing.M) {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "rapid.checks" })
	if !explicit {
		_ = flag.Set("rapid.checks", "1000")
	}
	if *benchReport {
		printBenchReport()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var propertyNames = []string{"a", "b", "c"}

type modelEvent struct {
	typ watch.EventType
	obj *corev1.ConfigMap
	// gone, for a relist's delete, is the key whose object went away unseen: the handler gets
	// a DeletedFinalStateUnknown.
	gone string
}

type ownAction struct {
	deleted bool
	rv      int
	uid     types.UID
}

// writebackModel drives an overlay over a plain indexer that plays the informer's store. The
// server is a map; its events wait in a queue (the watch), are applied to the store in order
// but late (delivery), and reach the overlay's handler later still (handler lag).
type writebackModel struct {
	overlay *Overlay
	store   cache.Indexer

	revision  int
	uids      int
	server    map[string]*corev1.ConfigMap
	watch     []modelEvent // not yet in the store
	unhandled []modelEvent // in the store, not yet seen by the overlay's handler

	// What the checks need.
	versions   map[string]map[int]types.UID // every version that ever existed, by key and resourceVersion
	ownLast    map[string]ownAction
	dead       map[types.UID]bool // deleted by us, or deleted and delivered to the store
	delivered  map[types.UID]bool // delete delivered to the store
	readFloor  map[string]int     // highest resourceVersion any read returned, by key
	ownResults []*corev1.ConfigMap
	allUIDs    map[types.UID]bool
}

func newWritebackModel() *writebackModel {
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		byColor:              colorIndex,
	})
	return &writebackModel{
		overlay:   NewOverlay("configmaps", store, Options{}),
		store:     store,
		server:    map[string]*corev1.ConfigMap{},
		versions:  map[string]map[int]types.UID{},
		ownLast:   map[string]ownAction{},
		dead:      map[types.UID]bool{},
		delivered: map[types.UID]bool{},
		readFloor: map[string]int{},
		allUIDs:   map[types.UID]bool{},
	}
}

// write changes or creates name on the server and returns the result, as the API would.
func (m *writebackModel) write(t *rapid.T, name string) *corev1.ConfigMap {
	color := rapid.SampledFrom([]string{"red", "blue"}).Draw(t, "color")
	m.revision++
	cur, exists := m.server[name]
	var next *corev1.ConfigMap
	if exists {
		next = cur.DeepCopy()
	} else {
		m.uids++
		next = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(fmt.Sprintf("uid-%d", m.uids))}}
		m.allUIDs[next.UID] = true
	}
	next.Labels = map[string]string{"color": color}
	next.ResourceVersion = strconv.Itoa(m.revision)
	m.server[name] = next
	typ := watch.Modified
	if !exists {
		typ = watch.Added
	}
	m.watch = append(m.watch, modelEvent{typ: typ, obj: next.DeepCopy()})
	if m.versions[name] == nil {
		m.versions[name] = map[int]types.UID{}
	}
	m.versions[name][m.revision] = next.UID
	return next.DeepCopy()
}

// remove deletes name on the server; the delete event carries a new resourceVersion.
func (m *writebackModel) remove(name string) types.UID {
	cur := m.server[name]
	m.revision++
	delete(m.server, name)
	gone := cur.DeepCopy()
	gone.ResourceVersion = strconv.Itoa(m.revision)
	m.watch = append(m.watch, modelEvent{typ: watch.Deleted, obj: gone})
	return cur.UID
}

func (m *writebackModel) deliverOne() {
	ev := m.watch[0]
	m.watch = m.watch[1:]
	switch ev.typ {
	case watch.Deleted:
		_ = m.store.Delete(ev.obj)
		m.delivered[ev.obj.UID] = true
		m.dead[ev.obj.UID] = true
	default:
		_ = m.store.Update(ev.obj)
	}
	m.unhandled = append(m.unhandled, ev)
}

func (m *writebackModel) handleOne() {
	ev := m.unhandled[0]
	m.unhandled = m.unhandled[1:]
	if ev.gone != "" {
		m.overlay.observed(cache.DeletedFinalStateUnknown{Key: ev.gone, Obj: ev.obj}, true)
		return
	}
	m.overlay.observed(ev.obj, ev.typ == watch.Deleted)
}

// relist is the reflector starting over: the store takes the server's state at the current
// revision in one step, the events still in the watch are dropped (the list includes them),
// and the handler is told of every key that went away (without its final state) and of every
// listed object. Objects whose whole life fell between two lists leave no event at all.
func (m *writebackModel) relist() {
	items := make([]interface{}, 0, len(m.server))
	for _, cm := range m.server {
		items = append(items, cm.DeepCopy())
	}
	var events []modelEvent
	for _, old := range m.store.List() {
		cm := old.(*corev1.ConfigMap)
		if cur, ok := m.server[cm.Name]; !ok || cur.UID != cm.UID {
			events = append(events, modelEvent{typ: watch.Deleted, obj: cm, gone: "ns/" + cm.Name})
		}
	}
	_ = m.store.Replace(items, strconv.Itoa(m.revision))
	for _, it := range items {
		events = append(events, modelEvent{typ: watch.Modified, obj: it.(*corev1.ConfigMap)})
	}
	m.watch = nil
	live := map[types.UID]bool{}
	for _, cm := range m.server {
		live[cm.UID] = true
	}
	for uid := range m.allUIDs {
		if !live[uid] {
			m.delivered[uid] = true
			m.dead[uid] = true
		}
	}
	m.unhandled = append(m.unhandled, events...)
}

func (m *writebackModel) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"ownWrite": func(t *rapid.T) {
			name := rapid.SampledFrom(propertyNames).Draw(t, "name")
			result := m.write(t, name)
			m.overlay.Record(result)
			m.ownLast[result.Name] = ownAction{rv: atoi(result.ResourceVersion), uid: result.UID}
			m.ownResults = append(m.ownResults, result)
		},
		"externalWrite": func(t *rapid.T) {
			m.write(t, rapid.SampledFrom(propertyNames).Draw(t, "name"))
		},
		"ownDelete": func(t *rapid.T) {
			// A careful controller deletes what it reads, with the UID as precondition.
			name := rapid.SampledFrom(propertyNames).Draw(t, "name")
			served, found, _ := m.overlay.GetByKey("ns/" + name)
			cur, exists := m.server[name]
			if !found || !exists || served.(*corev1.ConfigMap).UID != cur.UID {
				t.Skip("nothing to delete, or the precondition fails")
			}
			uid := m.remove(name)
			precondition := uid
			if rapid.Bool().Draw(t, "without precondition") {
				precondition = ""
			}
			m.overlay.RecordDelete("ns", name, precondition)
			m.ownLast[name] = ownAction{deleted: true, uid: uid}
			m.dead[uid] = true
		},
		"externalDelete": func(t *rapid.T) {
			name := rapid.SampledFrom(propertyNames).Draw(t, "name")
			if _, exists := m.server[name]; !exists {
				t.Skip("nothing to delete")
			}
			m.remove(name)
		},
		"lateWriteResult": func(t *rapid.T) {
			if len(m.ownResults) == 0 {
				t.Skip("no write yet")
			}
			m.overlay.Record(rapid.SampledFrom(m.ownResults).Draw(t, "result"))
		},
		"deliver": func(t *rapid.T) {
			if len(m.watch) == 0 {
				t.Skip("watch empty")
			}
			m.deliverOne()
		},
		"handle": func(t *rapid.T) {
			if len(m.unhandled) == 0 {
				t.Skip("handler has nothing to do")
			}
			m.handleOne()
		},
		"relist": func(t *rapid.T) {
			m.relist()
		},
		"bookmark": func(t *rapid.T) {
			// A bookmark at R promises every event up to R was sent: only with an empty watch.
			if len(m.watch) > 0 {
				t.Skip("events still in the watch")
			}
			m.store.Bookmark(strconv.Itoa(m.revision))
		},
		"catchUp": func(t *rapid.T) {
			m.catchUp(t)
		},
		"": m.check,
	}
}

func (m *writebackModel) catchUp(t *rapid.T) {
	for len(m.watch) > 0 {
		m.deliverOne()
	}
	for len(m.unhandled) > 0 {
		m.handleOne()
	}
	// A relist may pass an entry without an event for its key: the sweep evicts it.
	m.overlay.Sweep()
	if n := m.overlay.Len(); n != 0 {
		t.Fatalf("overlay holds %d entries after full catch-up", n)
	}
	for _, name := range propertyNames {
		got, found, _ := m.overlay.GetByKey("ns/" + name)
		want, exists := m.server[name]
		if found != exists || (found && got.(*corev1.ConfigMap).ResourceVersion != want.ResourceVersion) {
			t.Fatalf("after catch-up %s reads found=%v, server has exists=%v", name, found, exists)
		}
	}
}

// check asserts read-your-writes, monotonic reads, no resurrection, and that List, ByIndex and
// the namespace index agree with Get on the copy they serve.
func (m *writebackModel) check(t *rapid.T) {
	served := map[string]*corev1.ConfigMap{}
	for _, name := range propertyNames {
		key := "ns/" + name
		obj, found, err := m.overlay.GetByKey(key)
		if err != nil {
			t.Fatal(err)
		}
		own, wrote := m.ownLast[name]
		if !found {
			if wrote && !own.deleted && !m.delivered[own.uid] {
				t.Fatalf("read-your-writes: %s not found after own write at %d", key, own.rv)
			}
			continue
		}
		cm := obj.(*corev1.ConfigMap)
		rv := atoi(cm.ResourceVersion)
		served[key] = cm
		if uid, ok := m.versions[name][rv]; !ok || uid != cm.UID {
			t.Fatalf("%s read a version that never existed: rv %d uid %s", key, rv, cm.UID)
		}
		if m.dead[cm.UID] {
			t.Fatalf("resurrection: %s read deleted object %s at %d", key, cm.UID, rv)
		}
		if wrote && !own.deleted && rv < own.rv {
			t.Fatalf("read-your-writes: %s read %d, own write was %d", key, rv, own.rv)
		}
		if rv < m.readFloor[key] {
			t.Fatalf("monotonic reads: %s read %d after having read %d", key, rv, m.readFloor[key])
		}
		m.readFloor[key] = rv
	}

	list := m.overlay.List()
	if len(list) != len(served) {
		t.Fatalf("List has %d objects, Get finds %d", len(list), len(served))
	}
	for _, obj := range list {
		cm := obj.(*corev1.ConfigMap)
		if served["ns/"+cm.Name] != cm {
			t.Fatalf("List serves %s at %s, Get another copy", cm.Name, cm.ResourceVersion)
		}
	}
	for _, color := range []string{"red", "blue"} {
		items, err := m.overlay.ByIndex(byColor, color)
		if err != nil {
			t.Fatal(err)
		}
		var got, want []string
		for _, obj := range items {
			got = append(got, obj.(*corev1.ConfigMap).Name)
		}
		for _, cm := range served {
			if cm.Labels["color"] == color {
				want = append(want, cm.Name)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("ByIndex(%s) = %v, served copies say %v", color, got, want)
		}
	}
	inNamespace, err := m.overlay.Index(cache.NamespaceIndex, &metav1.ObjectMeta{Namespace: "ns"})
	if err != nil || len(inNamespace) != len(served) {
		t.Fatalf("namespace index has %d objects (err %v), Get finds %d", len(inNamespace), err, len(served))
	}
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

// TestWritebackAgainstModel runs random sequences of own and external writes, deletes,
// re-creates, late write results, late deliveries, late handlers, relists (which may skip an
// object's whole life) and bookmarks against the model, and checks after each step that
// reads are right and, after a full catch-up, that the overlay is empty.
func TestWritebackAgainstModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := newWritebackModel()
		t.Repeat(m.actions())
		m.catchUp(t)
	})
}
