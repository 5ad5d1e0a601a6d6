package soak

import (
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// WriteLog remembers when one operator process's writes succeeded and what resourceVersion each
// produced, so that a read the process logged later can be judged: a reconcile must never read an
// object older than a write the same process had already finished. It is safe for concurrent use.
type WriteLog struct {
	mu     sync.Mutex
	writes map[objectKey][]stamp // in the order they were recorded
	// unparsed counts successful writes whose answer named no object; they are not tracked.
	unparsed int
}

type objectKey struct{ resource, namespace, name string }

type stamp struct {
	at time.Time
	rv string
}

// NewWriteLog returns an empty WriteLog.
func NewWriteLog() *WriteLog { return &WriteLog{writes: map[objectKey][]stamp{}} }

// Record notes that a write to resource namespace/name finished at at with resourceVersion rv.
func (w *WriteLog) Record(resource, namespace, name, rv string, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if name == "" || rv == "" {
		w.unparsed++
		return
	}
	k := objectKey{resource, namespace, name}
	w.writes[k] = append(w.writes[k], stamp{at, rv})
}

// Stale reports whether a read of resource namespace/name that returned resourceVersion rv ("" if
// the read found nothing), logged at at, was older than a write recorded before at; if so it
// returns the newest such write's resourceVersion.
func (w *WriteLog) Stale(resource, namespace, name, rv string, at time.Time) (bool, string) {
	w.mu.Lock()
	stamps := slices.Clone(w.writes[objectKey{resource, namespace, name}])
	w.mu.Unlock()
	newest := ""
	for _, s := range stamps {
		if !s.at.Before(at) {
			continue
		}
		if newest == "" {
			newest = s.rv
		} else if c, err := resourceversion.CompareResourceVersion(s.rv, newest); err == nil && c > 0 {
			newest = s.rv
		}
	}
	if newest == "" {
		return false, ""
	}
	if rv == "" {
		return true, newest // the process had written it, yet the read did not find it
	}
	c, err := resourceversion.CompareResourceVersion(rv, newest)
	return err == nil && c < 0, newest
}

// Unparsed counts the successful writes that could not be tracked.
func (w *WriteLog) Unparsed() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.unparsed
}
