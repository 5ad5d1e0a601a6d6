package writeback

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"
)

// ByIndex returns the served objects whose index values, computed on the served copy, include
// indexedValue.
func (o *Overlay) ByIndex(indexName, indexedValue string) ([]interface{}, error) {
	if o.entries.len() == 0 {
		return o.inner.ByIndex(indexName, indexedValue)
	}
	indexFunc, err := o.indexFunc(indexName)
	if err != nil {
		return nil, err
	}
	var fetchErr error
	fetch := func() []interface{} {
		var items []interface{}
		items, fetchErr = o.inner.ByIndex(indexName, indexedValue)
		return items
	}
	items := o.merged(fetch, func(obj interface{}) bool {
		values, err := indexFunc(obj)
		return err == nil && slices.Contains(values, indexedValue)
	})
	if fetchErr != nil {
		return nil, fetchErr
	}
	return items, nil
}

// Index returns the served objects that share a value of the named index with obj.
func (o *Overlay) Index(indexName string, obj interface{}) ([]interface{}, error) {
	if o.entries.len() == 0 {
		return o.inner.Index(indexName, obj)
	}
	indexFunc, err := o.indexFunc(indexName)
	if err != nil {
		return nil, err
	}
	values, err := indexFunc(obj)
	if err != nil {
		return nil, err
	}
	if len(values) == 1 {
		return o.ByIndex(indexName, values[0])
	}
	var out []interface{}
	seen := sets.New[string]()
	for _, v := range values {
		items, err := o.ByIndex(indexName, v)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			key, err := cache.MetaNamespaceKeyFunc(it)
			if err != nil || seen.Has(key) {
				continue
			}
			seen.Insert(key)
			out = append(out, it)
		}
	}
	return out, nil
}

// IndexKeys returns the keys of ByIndex.
func (o *Overlay) IndexKeys(indexName, indexedValue string) ([]string, error) {
	if o.entries.len() == 0 {
		return o.inner.IndexKeys(indexName, indexedValue)
	}
	items, err := o.ByIndex(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	return keysOf(items), nil
}

// ListIndexFuncValues returns the informer's values of the named index plus those of the copies
// the overlay serves. A value held only by a stale informer copy may still be listed; callers
// that follow up with ByIndex get the exact answer.
func (o *Overlay) ListIndexFuncValues(indexName string) []string {
	values := o.inner.ListIndexFuncValues(indexName)
	if o.entries.len() == 0 {
		return values
	}
	indexFunc, err := o.indexFunc(indexName)
	if err != nil {
		return values
	}
	all := sets.New(values...)
	for _, e := range o.entries.all() {
		served, found, err := o.GetByKey(e.key)
		if err != nil || !found {
			continue
		}
		if vs, err := indexFunc(served); err == nil {
			all.Insert(vs...)
		}
	}
	return sets.List(all)
}

func (o *Overlay) indexFunc(indexName string) (cache.IndexFunc, error) {
	f := o.inner.GetIndexers()[indexName]
	if f == nil {
		return nil, fmt.Errorf("index with name %s does not exist", indexName)
	}
	return f, nil
}

// GetIndexers returns the informer's indexers.
func (o *Overlay) GetIndexers() cache.Indexers { return o.inner.GetIndexers() }

// AddIndexers adds indexers to the informer's indexer; the overlay evaluates them on the
// copies it serves.
func (o *Overlay) AddIndexers(newIndexers cache.Indexers) error {
	return o.inner.AddIndexers(newIndexers)
}
