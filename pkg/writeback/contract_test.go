package writeback

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// Rule: the newer resourceVersion wins, so an update is read back before the informer sees it.
func TestGetReturnsOwnUpdateBeforeInformerSeesIt(t *testing.T) {
	h := newHarness(t)
	cm := h.create(h.writer, "a", nil)
	h.catchUp(1)

	updated := h.update(h.writer, cm, func(cm *corev1.ConfigMap) { cm.Data["v"] = "1" })
	h.awaitHeld(1)
	if got := h.informerCopy("a"); rvOf(got) != cm.ResourceVersion {
		t.Fatalf("informer should still hold %s, holds %s", cm.ResourceVersion, rvOf(got))
	}
	got := h.get("a")
	if rvOf(got) != updated.ResourceVersion || got.Data["v"] != "1" {
		t.Fatalf("read resourceVersion %s, want own write %s", rvOf(got), updated.ResourceVersion)
	}
	if h.overlay.Len() != 1 {
		t.Fatalf("overlay holds %d entries, want 1", h.overlay.Len())
	}

	h.release(1)
	if h.overlay.Len() != 0 {
		t.Fatalf("overlay holds %d entries after the informer caught up, want 0", h.overlay.Len())
	}
	served, _, _ := h.overlay.GetByKey("ns/a")
	if stored, _, _ := h.informer.GetIndexer().GetByKey("ns/a"); served != stored {
		t.Fatal("after catch-up the read must be the informer's own object")
	}
}

// Rule: reads compare; a newer informer copy wins over an entry even if the eviction handler
// has not run (handler order does not matter).
func TestNewerInformerCopyWinsOverEntry(t *testing.T) {
	h := newHarness(t)
	cm := h.create(h.writer, "a", nil)
	h.catchUp(1)

	// An overlay without its eviction handler: its entry stays, so only comparison decides.
	noHandler := NewOverlay("configmaps", h.informer.GetIndexer(), Options{Clock: h.clock})
	ours := h.update(h.writer, cm, func(cm *corev1.ConfigMap) { cm.Data["v"] = "ours" })
	noHandler.Record(h.stored(ours))
	theirs := h.update(h.others, ours, func(cm *corev1.ConfigMap) { cm.Data["v"] = "theirs" })
	h.catchUp(2)

	if n := noHandler.entries.len(); n != 1 {
		t.Fatalf("the handler-less overlay should still hold its entry, holds %d", n)
	}
	obj, exists, err := noHandler.GetByKey("ns/a")
	if err != nil || !exists {
		t.Fatalf("GetByKey: exists=%v err=%v", exists, err)
	}
	if got := h.view(obj); got.ResourceVersion != theirs.ResourceVersion {
		t.Fatalf("read %s, want the newer informer copy %s", got.ResourceVersion, theirs.ResourceVersion)
	}
}

// Rule: a create shows up in Get, List and the namespaced List before the watch delivers it.
func TestCreateVisibleBeforeWatchDeliversIt(t *testing.T) {
	h := newHarness(t)
	created := h.create(h.writer, "a", map[string]string{"app": "x"})
	h.awaitHeld(1)
	if h.informerCopy("a") != nil {
		t.Fatal("informer should not have the object yet")
	}
	if got := h.get("a"); rvOf(got) != created.ResourceVersion {
		t.Fatalf("Get read %s, want %s", rvOf(got), created.ResourceVersion)
	}
	all, _ := h.lister.List(labels.Everything())
	inNS, _ := h.lister.ConfigMaps(testNamespace).List(labels.SelectorFromSet(labels.Set{"app": "x"}))
	otherNS, _ := h.lister.ConfigMaps("other").List(labels.Everything())
	if len(all) != 1 || len(inNS) != 1 || len(otherNS) != 0 {
		t.Fatalf("List found %d, namespaced List %d, other namespace %d; want 1, 1, 0", len(all), len(inNS), len(otherNS))
	}
	h.release(1)
	if h.overlay.Len() != 0 {
		t.Fatalf("overlay holds %d entries after catch-up", h.overlay.Len())
	}
	if all, _ := h.lister.List(labels.Everything()); len(all) != 1 {
		t.Fatalf("after catch-up List found %d objects, want 1 (no duplicate)", len(all))
	}
}

// Rule: a delete hides the object from Get, List and ByIndex before the informer sees it.
func TestDeleteHidesObjectBeforeInformerSeesIt(t *testing.T) {
	h := newHarness(t)
	h.create(h.writer, "a", map[string]string{"color": "red"})
	h.create(h.writer, "b", map[string]string{"color": "red"})
	h.catchUp(2)

	if err := h.writer.Delete(h.ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.awaitHeld(1)
	if h.informerCopy("a") == nil {
		t.Fatal("informer should still hold the object")
	}
	if got := h.get("a"); got != nil {
		t.Fatalf("Get returned deleted object at %s", got.ResourceVersion)
	}
	all, _ := h.lister.List(labels.Everything())
	red, _ := h.overlay.ByIndex(byColor, "red")
	if len(all) != 1 || all[0].Name != "b" || len(red) != 1 {
		t.Fatalf("List has %d objects, ByIndex %d; want only b", len(all), len(red))
	}
	h.release(1)
	if h.overlay.Len() != 0 {
		t.Fatalf("tombstone not evicted by the delete event: %d entries", h.overlay.Len())
	}
}

// Rule: a re-created object (new UID) wins over the tombstone of the old one.
func TestRecreatedObjectWinsOverTombstone(t *testing.T) {
	h := newHarness(t)
	old := h.create(h.writer, "a", nil)
	h.catchUp(1)
	if err := h.writer.Delete(h.ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Someone else re-creates it; the informer sees the delete and the new object while the
	// tombstone is still there (the tombstone-only overlay below has no handler).
	tombstoneOnly := NewOverlay("configmaps", h.informer.GetIndexer(), Options{Clock: h.clock})
	tombstoneOnly.RecordDelete(testNamespace, "a", old.UID)
	recreated := h.create(h.others, "a", nil)
	if recreated.UID == old.UID {
		t.Fatal("test needs a new UID")
	}
	h.catchUp(2)
	obj, exists, _ := tombstoneOnly.GetByKey("ns/a")
	if !exists || h.view(obj).UID != recreated.UID {
		t.Fatalf("read exists=%v, want the re-created object", exists)
	}
	// And the overlay with a handler evicted its tombstone.
	if h.overlay.Len() != 0 {
		t.Fatalf("overlay holds %d entries", h.overlay.Len())
	}
}

// Rule: the informer's add of the re-created object evicts the tombstone by its new UID.
func TestNewUIDEvictsTombstone(t *testing.T) {
	h := newHarness(t)
	old := h.create(h.writer, "a", nil)
	h.catchUp(1)
	h.overlay.RecordDelete(testNamespace, "a", old.UID) // as if we deleted; the server did not
	if err := h.others.Delete(h.ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.create(h.others, "a", nil)
	h.awaitHeld(2)
	// Deliver only the delete: the tombstone must go on it (same UID).
	h.release(1)
	if h.overlay.Len() != 0 {
		t.Fatalf("tombstone survived the delete event: %d entries", h.overlay.Len())
	}
	h.release(1)
	if got := h.get("a"); got == nil || got.UID == old.UID {
		t.Fatal("re-created object not visible")
	}
}

// Rule: label selectors are judged on the copy that is served, not the stale one.
func TestLabelSelectorJudgedOnServedCopy(t *testing.T) {
	h := newHarness(t)
	cm := h.create(h.writer, "a", map[string]string{"color": "red"})
	h.catchUp(1)
	h.update(h.writer, cm, func(cm *corev1.ConfigMap) { cm.Labels["color"] = "blue" })
	h.awaitHeld(1)

	red, _ := h.lister.List(labels.SelectorFromSet(labels.Set{"color": "red"}))
	blue, _ := h.lister.ConfigMaps(testNamespace).List(labels.SelectorFromSet(labels.Set{"color": "blue"}))
	if len(red) != 0 || len(blue) != 1 {
		t.Fatalf("red matched %d, blue %d; want 0 and 1", len(red), len(blue))
	}
}

// Rule: indexers are judged on the copy that is served.
func TestIndexJudgedOnServedCopy(t *testing.T) {
	h := newHarness(t)
	cm := h.create(h.writer, "a", map[string]string{"color": "red"})
	h.create(h.writer, "b", map[string]string{"color": "red"})
	h.catchUp(2)
	h.update(h.writer, cm, func(cm *corev1.ConfigMap) { cm.Labels["color"] = "blue" })
	h.awaitHeld(1)

	red, _ := h.overlay.ByIndex(byColor, "red")
	blue, _ := h.overlay.ByIndex(byColor, "blue")
	blueKeys, _ := h.overlay.IndexKeys(byColor, "blue")
	sameAsB, _ := h.overlay.Index(byColor, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"color": "red"}}})
	if len(red) != 1 || h.view(red[0]).Name != "b" {
		t.Fatalf("ByIndex red = %d objects, want only b", len(red))
	}
	if len(blue) != 1 || len(blueKeys) != 1 || blueKeys[0] != "ns/a" {
		t.Fatalf("ByIndex blue = %d objects, keys %v; want ns/a", len(blue), blueKeys)
	}
	if len(sameAsB) != 1 {
		t.Fatalf("Index found %d, want 1", len(sameAsB))
	}
	values := h.overlay.ListIndexFuncValues(byColor)
	if len(values) != 2 {
		t.Fatalf("index values %v, want blue and red", values)
	}
}

// Rule: an entry is kept until the informer holds its resourceVersion or a newer one; an older
// event does not evict it.
func TestOlderEventDoesNotEvict(t *testing.T) {
	h := newHarness(t)
	cm := h.create(h.writer, "a", nil)
	h.catchUp(1)
	theirs := h.update(h.others, cm, func(cm *corev1.ConfigMap) { cm.Data["v"] = "theirs" })
	ours := h.update(h.writer, theirs, func(cm *corev1.ConfigMap) { cm.Data["v"] = "ours" })
	h.awaitHeld(2)
	h.release(1) // the informer now has "theirs", older than ours
	if h.overlay.Len() != 1 {
		t.Fatalf("entry evicted by an older event")
	}
	if got := h.get("a"); rvOf(got) != ours.ResourceVersion {
		t.Fatalf("read %s, want %s", rvOf(got), ours.ResourceVersion)
	}
	h.release(1)
	if h.overlay.Len() != 0 {
		t.Fatal("entry not evicted when its resourceVersion arrived")
	}
}

// Rule: a late or out-of-order write result never rolls the overlay back.
func TestLateWriteResultDoesNotRollBack(t *testing.T) {
	h := newHarness(t)
	cm := h.create(h.writer, "a", nil)
	h.catchUp(1)
	first := h.update(h.writer, cm, func(cm *corev1.ConfigMap) { cm.Data["v"] = "1" })
	second := h.update(h.writer, first, func(cm *corev1.ConfigMap) { cm.Data["v"] = "2" })
	h.record(first) // arrives late
	if got := h.get("a"); rvOf(got) != second.ResourceVersion {
		t.Fatalf("read %s after a late result, want %s", rvOf(got), second.ResourceVersion)
	}
	h.catchUp(2)
	if h.overlay.Len() != 0 {
		t.Fatal("overlay not empty after catch-up")
	}
}

// Rule: a write result the informer already delivered is not stored (nothing would evict it).
func TestWriteAlreadyObservedIsNotStored(t *testing.T) {
	h := newHarness(t)
	cm := h.create(h.others, "a", nil)
	h.catchUp(1)
	h.record(cm)
	if h.overlay.Len() != 0 {
		t.Fatalf("stored a write the informer already holds")
	}
}

// Rule: a resourceVersion that cannot be compared keeps its entry until the informer sends any
// event for the key, and it is served meanwhile.
func TestIncomparableResourceVersionKeptUntilNextEvent(t *testing.T) {
	h := newHarness(t)
	cm := h.create(h.writer, "a", nil)
	h.catchUp(1)
	odd := cm.DeepCopy()
	odd.ResourceVersion = "not-a-revision"
	odd.Data["v"] = "odd"
	h.record(odd)
	if got := h.get("a"); got.Data["v"] != "odd" {
		t.Fatal("entry with an incomparable resourceVersion must be served until an event arrives")
	}
	h.update(h.others, cm, func(cm *corev1.ConfigMap) { cm.Data["v"] = "next" })
	h.catchUp(1)
	if h.overlay.Len() != 0 {
		t.Fatal("entry not evicted by the next event for its key")
	}
	if got := h.get("a"); got.Data["v"] != "next" {
		t.Fatalf("read %q, want the informer's copy", got.Data["v"])
	}
}

// Rule: a tombstone of an object held by a finalizer hides it until the informer shows it
// terminating, with a resourceVersion newer than the tombstone's.
func TestTombstoneOfTerminatingObject(t *testing.T) {
	h := newHarness(t)
	cm := h.create(h.writer, "a", nil)
	h.catchUp(1)
	h.overlay.RecordDelete(testNamespace, "a", "")
	// The same tombstone in an overlay without handler: only reads decide there.
	readsOnly := NewOverlay("configmaps", h.informer.GetIndexer(), Options{Clock: h.clock})
	readsOnly.RecordDelete(testNamespace, "a", "")
	// A lagging older-style event for the same UID without deletionTimestamp keeps it hidden.
	h.update(h.others, cm, func(cm *corev1.ConfigMap) { cm.Finalizers = []string{"x"} })
	h.catchUp(1)
	// (the update above is newer than the tombstone but carries no deletionTimestamp)
	if got := h.get("a"); got != nil {
		t.Fatal("tombstone must hide a copy without deletionTimestamp")
	}
	terminating := h.informerCopy("a").DeepCopy()
	now := metav1.Now()
	terminating.DeletionTimestamp = &now
	terminating = h.update(h.others, terminating, func(*corev1.ConfigMap) {})
	h.catchUp(1)
	if h.overlay.Len() != 0 {
		t.Fatal("tombstone not evicted by the terminating copy")
	}
	if got := h.get("a"); rvOf(got) != terminating.ResourceVersion {
		t.Fatalf("read %s, want the terminating object %s", rvOf(got), terminating.ResourceVersion)
	}
	if obj, ok, _ := readsOnly.GetByKey("ns/a"); !ok || h.view(obj).DeletionTimestamp == nil {
		t.Fatal("a tombstone must let a newer terminating copy through")
	}
}

// Rule: Delete takes the tombstone's UID from the precondition when set.
func TestDeleteUsesPreconditionUID(t *testing.T) {
	h := newHarness(t)
	cm := h.create(h.writer, "a", nil)
	h.catchUp(1)
	uid := cm.UID
	if err := h.writer.Delete(h.ctx, "a", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}); err != nil {
		t.Fatal(err)
	}
	e := h.overlay.entries.get("ns/a")
	if e == nil || !e.tombstone() || e.uid != uid || e.rv != cm.ResourceVersion {
		t.Fatalf("tombstone %+v, want UID %s and last resourceVersion %s", e, uid, cm.ResourceVersion)
	}
	// A precondition naming another incarnation than the one served: the served object was
	// not the one deleted, so nothing is hidden.
	h.create(h.writer, "b", nil)
	h.overlay.RecordDelete(testNamespace, "b", types.UID("someone-else"))
	if e := h.overlay.entries.get("ns/b"); e == nil || e.tombstone() {
		t.Fatalf("entry %+v, want the created object kept", e)
	}
	if h.get("b") == nil {
		t.Fatal("a delete of another UID must not hide the served object")
	}
}

// Rule: a delete of something reads do not serve stores nothing.
func TestDeleteOfUnknownObjectStoresNothing(t *testing.T) {
	h := newHarness(t)
	h.overlay.RecordDelete(testNamespace, "ghost", "")
	if h.overlay.Len() != 0 {
		t.Fatal("stored a tombstone for an object reads never served")
	}
}
