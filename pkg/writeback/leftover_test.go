package writeback

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// describeEntries tells, for each entry the overlay holds, what it holds and what the
// informer's store has for the key, so that a test failing on left-over entries shows why
// neither an event nor the progress evicted them.
func describeEntries(o *Overlay) []string {
	progress := o.progressOf()
	var out []string
	for _, e := range o.entries.all() {
		store := "absent"
		if item, exists, err := o.inner.GetByKey(e.key); err != nil {
			store = err.Error()
		} else if exists {
			if m, ok := item.(metav1.Object); ok {
				store = fmt.Sprintf("rv %s uid %s", m.GetResourceVersion(), m.GetUID())
			}
		}
		out = append(out, fmt.Sprintf("%s: uid %s rv %s tombstone %v; informer: %s; informer progress %s",
			e.key, e.uid, e.rv, e.tombstone(), store, progress))
	}
	return out
}
