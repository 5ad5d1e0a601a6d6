package writeback

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// GetByKey returns the newer of the informer's copy and the overlay's entry for key. With no
// entry for key it costs one atomic load and a bit test more than the informer's own GetByKey.
// It neither allocates nor copies.
func (o *Overlay) GetByKey(key string) (interface{}, bool, error) {
	e := o.snap.Load().get(key)
	if e == nil {
		return o.inner.GetByKey(key)
	}
	item, exists, err := o.inner.GetByKey(key)
	if err != nil {
		return item, exists, err
	}
	if o.expired(e) {
		return item, exists, nil
	}
	got, found, src := o.resolve(e, item, exists)
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
	if v := klog.V(5); v.Enabled() {
		informerRV := ""
		if m, ok := item.(metav1.Object); ok && exists {
			informerRV = m.GetResourceVersion()
		}
		v.InfoS("Write-back served a read", "resource", o.resource, "key", e.key, "served", src.String(), "overlayRV", e.rv, "informerRV", informerRV, "informerHasCopy", exists)
	}
}

// List returns the informer's objects with each one replaced by a newer overlay copy, objects
// created by the controller added, and deleted ones removed.
func (o *Overlay) List() []interface{} {
	s := o.snap.Load()
	items := o.inner.List()
	if s.len() == 0 {
		return items
	}
	return o.merge(s, items, nil)
}

// ListKeys returns the keys of List.
func (o *Overlay) ListKeys() []string {
	if o.snap.Load().len() == 0 {
		return o.inner.ListKeys()
	}
	return keysOf(o.List())
}

// merge rewrites items, a fresh slice from the informer's store, into what reads should see.
// keep, when not nil, filters the copies that come from entries (selectors and index values
// must be judged on the copy that is served, not on the stale one).
func (o *Overlay) merge(s *snapshot, items []interface{}, keep func(interface{}) bool) []interface{} {
	out := items[:0]
	var seen map[*entry]bool
	for _, it := range items {
		m, ok := it.(metav1.Object)
		if !ok {
			out = append(out, it)
			continue
		}
		e := s.lookup(m.GetNamespace(), m.GetName())
		if e == nil {
			out = append(out, it)
			continue
		}
		if seen == nil {
			seen = make(map[*entry]bool, s.len())
		}
		seen[e] = true
		if o.expired(e) {
			out = append(out, it)
			continue
		}
		got, found, src := o.resolve(e, it, true)
		o.noteRead(e, it, true, src)
		if found && (src == fromInformer || keep == nil || keep(got)) {
			out = append(out, got)
		}
	}
	for _, e := range s.byKey {
		if seen[e] || o.expired(e) {
			continue
		}
		// Not in the informer's answer: created by the controller, or (for an index) its
		// informer copy did not match while the newer copy may.
		item, exists, err := o.inner.GetByKey(e.key)
		if err != nil {
			continue
		}
		got, found, src := o.resolve(e, item, exists)
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
