// Package writeback lets a client-go controller read its own writes.
//
// Informer caches are eventually consistent: right after a controller patches an object, its
// lister may still return the old copy, and a decision made on that copy is made on the past.
// This package keeps the result of every successful write the controller makes in an Overlay
// laid over the informer's indexer, and serves whichever copy is newer, at the cost of a map
// lookup and with no extra API call and no waiting. It knows nothing about any particular
// resource: it works for any type with generated typed clients and listers.
//
// # Use
//
//	informer := factory.Apps().V1().StatefulSets()
//	overlay := writeback.NewOverlay("statefulsets", informer.Informer().GetIndexer(), writeback.Options{Metrics: metrics})
//	if _, err := overlay.Observe(informer.Informer()); err != nil { ... }
//	lister := appslisters.NewStatefulSetLister(overlay)                 // reads
//	client := writeback.Wrap(clientset.AppsV1().StatefulSets(ns), ns, overlay) // writes
//
// # The contract
//
// Keys are namespace/name; an entry also remembers the object's UID.
//
//   - Record: a successful write's returned object is stored if its resourceVersion is newer than
//     what the overlay holds for the key and newer than what the informer holds. A late or
//     out-of-order result never rolls the overlay back. A successful Delete stores a tombstone
//     (key, UID and the last resourceVersion known for the object).
//   - Get: the informer's copy and the entry are compared and the newer resourceVersion wins. An
//     entry with no informer copy (just created) is returned, unless the informer has already
//     processed events past the write (then the object was deleted, or left the informer's
//     selector, after the write). A tombstone hides the informer's copy of the same UID; a copy
//     with another UID (the object was re-created) wins over it.
//   - List, ByIndex, Index, IndexKeys and the generated namespaced listers: the informer's answer
//     with each item replaced by a newer entry, created objects added, tombstoned ones removed.
//     Label selectors and index functions are evaluated on the copy that is returned.
//   - Eviction by observation: an informer event handler (Observe) drops an entry when the
//     informer delivers its resourceVersion or a newer one, the delete of the object, or (for a
//     tombstone) a copy with another UID. When nothing is in flight the overlay is empty. Reads
//     always compare, so correctness does not depend on the order in which handlers run. An
//     entry is never dropped to make room: there is no size bound. The only safety net is a
//     generous TTL (default five minutes); reads ignore expired entries, and each one dropped
//     is counted in writeback_evictions_total{reason="ttl"}.
//   - Monotonic reads: once a read returned resourceVersion R for a key, no later read returns
//     an older one (until an entry outlives its TTL, which the metric reports).
//   - ResourceVersions are compared as etcd revisions with
//     k8s.io/apimachinery/pkg/util/resourceversion.CompareResourceVersion, never as strings.
//     An entry whose resourceVersion cannot be compared is served until the informer delivers
//     any event for its key, which evicts it.
//   - Everything returned is shared read-only, as listers' objects are. Record deep-copies the
//     write result once; the read path never copies.
//
// Deletes of objects held by finalizers: the object keeps existing with a deletionTimestamp.
// Its tombstone hides it until the informer delivers the delete, a copy with another UID, or a
// copy with a deletionTimestamp whose resourceVersion is newer than the tombstone's; reads then
// show the terminating object. Delete returns no object, so the tombstone takes its UID from
// DeleteOptions.Preconditions.UID when set, otherwise from the copy reads serve; when reads
// serve nothing for the key there is nothing to hide and no tombstone is stored.
// DeleteCollection is not captured.
//
// # Capture
//
// Wrap returns a Client: a generic struct over the object, list and apply-configuration types
// that embeds the original typed client and overrides its write methods (Create, Update,
// UpdateStatus, Patch with any subresource, Apply, ApplyStatus, Delete) to record their
// results. Its method set is that of a generated <Type>Interface with an empty expansion (as
// for a custom resource), so a clientset that returns it needs one line of glue per resource,
// and it works the same over the real and the generated fake clientset. This was chosen over
// the alternatives because it is checked by the compiler: a rest.Interface or round-tripper
// hook would have to decode response bodies and guess which requests are writes of which
// resource, and client-go's fake reactors exist only in tests. Wrap takes the namespace the
// typed client was made for, because a Delete returns no object and its tombstone needs a key.
//
// Built-in interfaces with extra methods (StatefulSetInterface has GetScale, UpdateScale and
// ApplyScale) get a small per-type struct in the consumer that embeds the Client and forwards
// the extra methods to the original client.
//
// Scale subresource: writes through scale (UpdateScale, ApplyScale, Patch with the "scale"
// subresource) are not captured. Their result is an autoscaling/v1.Scale, not the object, so
// there is nothing to serve; a minimum-resourceVersion marker could only make reads refuse or
// wait, which this package never does. A controller that needs to read its own replica
// changes writes spec.replicas with Update, Patch or Apply, which are captured.
//
// # Observability
//
// NewMetrics registers, with the label "resource": writeback_reads_served_from_overlay_total
// (each a stale read prevented), writeback_overlay_entries, writeback_observation_lag_seconds
// (from Record to the informer's event) and writeback_evictions_total{reason}. klog -v=5 logs
// each read the overlay changed, with both resourceVersions; -v=4 each record and eviction.
//
// # Cost
//
// GetByKey neither allocates nor copies. With no pending writes it adds one atomic load to the
// informer's GetByKey; for a key without an entry, a bit test in a small filter as well.
package writeback
