package writeback

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// GetByKey returns the newer of the informer's copy and the overlay's entry for key. With no
// entry for key it costs one atomic load and a bit test more than the informer's own GetByKey.
// It neither allocates nor copies.
func (o *Overlay) GetByKey(key string) (interface{}, bool, error) {
	if o.entries.n.Load() == 0 || !o.entries.keys.mayContain(key) {
		return o.inner.GetByKey(key) // most keys: nothing pending, or one bit test says no entry
	}
	e := o.entries.table.Load().get(key)
	if e == nil {
		return o.inner.GetByKey(key)
	}
	item, exists, err := o.inner.GetByKey(key)
	if err != nil {
		return item, exists, err
	}
	if exists && e.beats(item) {
		// The very informer copy this entry was found newer than before: same answer.
		o.noteRead(e, item, exists, fromOverlay)
		return e.obj, true, nil
	}
	var progress string
	if !exists && !e.tombstone() {
		// Only "absent" needs the progress, and it must be read before the lookup it judges
		// (see resolve): read it, then look again.
		progress = o.progressOf()
		if item, exists, err = o.inner.GetByKey(key); err != nil {
			return item, exists, err
		}
	}
	got, found, src := o.resolve(e, item, exists, progress)
	if src == fromOverlay && exists && identifiable(item) {
		e.rememberBeaten(item)
	}
	o.noteRead(e, item, exists, src)
	return got, found, nil
}

// Get returns the served copy for obj's key.
func (o *Overlay) Get(obj interface{}) (interface{}, bool, error) {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		return nil, false, cache.KeyError{Obj: obj, Err: err}
	}
	return o.GetByKey(key)
}

// noteRead counts and logs a read that the overlay changed.
func (o *Overlay) noteRead(e *entry, item interface{}, exists bool, src source) {
	if src == fromInformer {
		return
	}
	if o.metrics != nil {
		o.metrics.served.Inc()
	}
	if !o.logReads.Load() {
		return
	}
	if v := o.logger.V(5); v.Enabled() {
		informerRV := ""
		if m, ok := item.(metav1.Object); ok && exists {
			informerRV = m.GetResourceVersion()
		}
		v.Info("Write-back served a read", "key", e.key, "served", src.String(), "overlayRV", e.rv, "informerRV", informerRV, "informerHasCopy", exists)
	}
}

// List returns the informer's objects with each one replaced by a newer overlay copy, objects
// created by the controller added, and deleted ones removed.
func (o *Overlay) List() []interface{} {
	if o.entries.len() == 0 {
		return o.inner.List()
	}
	return o.merged(o.inner.List, nil)
}

// ListKeys returns the keys of List.
func (o *Overlay) ListKeys() []string {
	if o.entries.len() == 0 {
		return o.inner.ListKeys()
	}
	return keysOf(o.List())
}

// merged fetches items from the informer's store with fetch (a fresh slice, which it rewrites)
// and lays the entries over them, as they were before the store was read. keep, when not nil, filters the copies that come from
// entries: selectors and index values are judged on the copy that is served, not the stale one.
//
// The fast way finds each entry's stale informer copy in items by pointer identity, without
// reading the items themselves. It holds only when the store did not change the entries' keys
// while fetch ran (see unchangedSince); otherwise the items are matched by namespace and name.
//
// before, the store's progress, is read first: every lookup made afterwards may be judged by
// it (see resolve).
func (o *Overlay) merged(fetch func() []interface{}, keep func(interface{}) bool) []interface{} {
	list := o.entries.all()
	before := o.progressOf()
	stale := make([]interface{}, len(list))
	for i, e := range list {
		stale[i], _, _ = o.inner.GetByKey(e.key)
	}
	items := fetch()
	if !o.unchangedSince(list, stale, before) {
		return o.mergeByName(list, items, keep, before)
	}
	var where identitySet
	for i, item := range stale {
		if item != nil && !where.add(item, i) {
			return o.mergeByName(list, items, keep, before)
		}
	}
	created := 0
	for i, e := range list {
		if stale[i] == nil && !e.tombstone() {
			created++
		}
	}
	out := rewritable(items, created)
	seen := make([]bool, len(list))
	for _, it := range items {
		i, ok := where.find(it)
		if !ok {
			out = append(out, it)
			continue
		}
		seen[i] = true
		e := list[i]
		got, found, src := o.resolve(e, it, true, before)
		o.noteRead(e, it, true, src)
		if found && (src == fromInformer || keep == nil || keep(got)) {
			out = append(out, got)
		}
	}
	for i, e := range list {
		if seen[i] {
			continue
		}
		// Not among the items: created by the controller, or (for an index) its informer
		// copy does not match while the newer copy may.
		got, found, src := o.resolve(e, stale[i], stale[i] != nil, before)
		if !found || (keep != nil && !keep(got)) {
			continue
		}
		o.noteRead(e, stale[i], stale[i] != nil, src)
		out = append(out, got)
	}
	return out
}

// unchangedSince tells whether the store held the same copies (stale) for the entries' keys
// while items were fetched. A key with a copy must hold the very same object afterwards (store
// objects are never reused). A key without one proves nothing by itself, as its object may
// have come in between; the store's resourceVersion, which moves with every object the store
// takes in, must then be where it was before (before is read ahead of stale).
func (o *Overlay) unchangedSince(list []*entry, stale []interface{}, before string) bool {
	anyAbsent := false
	for i, e := range list {
		if stale[i] == nil {
			anyAbsent = true
			continue
		}
		item, _, _ := o.inner.GetByKey(e.key)
		if item != stale[i] {
			return false
		}
	}
	return !anyAbsent || (before != "" && o.inner.LastStoreSyncResourceVersion() == before)
}

// mergeByName lays the entries over items by reading each item's namespace and name: always
// right, but it touches every object. before is the store's progress read ahead of items.
func (o *Overlay) mergeByName(list []*entry, items []interface{}, keep func(interface{}) bool, before string) []interface{} {
	// The entries as they were before the store was read, by name: an entry that left since
	// must still be compared with the (older) items fetched while it was there.
	byName := make(map[string][]*entry, len(list))
	var names bitFilter
	for _, e := range list {
		byName[e.name] = append(byName[e.name], e)
		names.add(e.name)
	}
	lookup := func(namespace, name string) *entry {
		for _, e := range byName[name] {
			if e.namespace == namespace {
				return e
			}
		}
		return nil
	}
	out := items[:0]
	seen := make(map[*entry]bool, len(list))
	for _, it := range items {
		m, ok := it.(metav1.Object)
		if !ok {
			out = append(out, it)
			continue
		}
		var e *entry
		if names.mayContain(m.GetName()) {
			e = lookup(m.GetNamespace(), m.GetName())
		}
		if e == nil {
			out = append(out, it)
			continue
		}
		seen[e] = true
		got, found, src := o.resolve(e, it, true, before)
		o.noteRead(e, it, true, src)
		if found && (src == fromInformer || keep == nil || keep(got)) {
			out = append(out, got)
		}
	}
	for _, e := range list {
		if seen[e] {
			continue
		}
		item, exists, err := o.inner.GetByKey(e.key)
		if err != nil {
			continue
		}
		got, found, src := o.resolve(e, item, exists, before)
		if !found || (keep != nil && !keep(got)) {
			continue
		}
		o.noteRead(e, item, exists, src)
		out = append(out, got)
	}
	return out
}

func keysOf(items []interface{}) []string {
	keys := make([]string, 0, len(items))
	for _, it := range items {
		if k, err := cache.MetaNamespaceKeyFunc(it); err == nil {
			keys = append(keys, k)
		}
	}
	return keys
}

// rewritable returns an empty slice to rebuild items into, in place when items has room for up
// to extra more (created objects), so that adding them does not copy the whole list again.
func rewritable(items []interface{}, extra int) []interface{} {
	if cap(items)-len(items) >= extra {
		return items[:0]
	}
	return make([]interface{}, 0, len(items)+extra)
}
