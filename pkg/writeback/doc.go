// Package writeback lets a client-go controller read its own writes.
//
// Informer caches are eventually consistent: right after a controller patches an object, its
// lister may still return the old copy, and a decision made on that copy is made on the past.
// This package keeps the result of every successful write the controller makes in an Overlay
// laid over the informer's indexer, and serves whichever copy is newer, at the cost of a map
// lookup and with no extra API call and no waiting. It knows nothing about any particular
// resource: it works for any type with generated typed clients and listers, and for the
// dynamic and metadata clients.
//
// # Use
//
//	informer := factory.Apps().V1().StatefulSets().Informer()
//	overlay, overlaySynced, err := writeback.NewObserving("statefulsets", informer, writeback.Options{Metrics: metrics})
//	lister := appslisters.NewStatefulSetLister(overlay)                          // reads
//	client := writeback.Wrap(clientset.AppsV1().StatefulSets(ns), ns, overlay) // writes
//
// NewObserving is NewOverlay and Observe in one call; it returns the HasSynced of the
// observer's registration, to wait for beside the informer's. ExampleNewObserving shows a
// sample-controller-style controller adopting it, and examples/configmap-counter is a whole
// one.
//
// Controllers over many kinds: NewDynamic takes a dynamicinformer factory and a resource, and
// reads go through dynamiclister.New(overlay, gvr) (*unstructured.Unstructured), writes through
// WrapDynamic; NewMetadata takes a metadatainformer factory, reads go through
// metadatalister.New(overlay, gvr) (*metav1.PartialObjectMetadata), writes through
// WrapMetadata (Patch and Delete, all the metadata API has). Both overlays convert a write
// result of another type (a typed client's, wrapped with Wrap) to what their informer holds.
// A NewDynamic overlay gives a typed result the apiVersion of its resource and the object's
// kind (its Go type's name when the object names none), as every informer copy has them, so
// that a dynamic controller that writes back what it read sends a whole object; it refuses a
// *metav1.PartialObjectMetadata result (logged as an error, not recorded), which has no spec
// or data and would be served as a copy the server never held. A NewMetadata overlay keeps
// the metadata of any result.
// The contract below holds for all three; the same contract tests run over each
// (TestContractDynamic, TestContractMetadata).
//
// # The contract
//
// Keys are namespace/name (the name alone for cluster-scoped objects); an entry also remembers
// the object's UID. The informer's progress
// is its store's LastStoreSyncResourceVersion: the resourceVersion up to which the store
// reflects the server, moved by every event, relist and watch bookmark.
//
//   - Record: a successful write's returned object is stored if its resourceVersion is newer than
//     what the overlay holds for the key, than the informer's copy, and than the informer's
//     progress. A late or out-of-order result never rolls the overlay back. A successful Delete
//     stores a tombstone: key, UID and the last resourceVersion known for the object.
//   - Get: the informer's copy and the entry are compared and the newer resourceVersion wins. An
//     entry with no informer copy (just created) is returned, unless the informer's progress,
//     read before its store was searched, had already reached the write (then the object was
//     deleted, or left the informer's selector, after the write). That order makes "not found"
//     impossible for a read racing the informer's delivery of the controller's own create. A
//     tombstone hides the informer's copy of the deleted UID and any older copy; a copy with
//     another UID and a newer resourceVersion (the object was re-created) wins over it.
//   - List, ListKeys, ByIndex, Index, IndexKeys and the generated namespaced listers: the
//     informer's answer with each item replaced by a newer entry, created objects added,
//     tombstoned ones removed, judged as Get judges them with the progress read before the
//     scan. Label selectors and index functions are evaluated on the copy that is returned.
//     ListIndexFuncValues is weaker: it may also list a value held only by a stale informer
//     copy; a ByIndex that follows gives the exact answer.
//   - The Overlay is a read-only cache.Indexer: Add, Update, Delete and Replace return
//     ErrReadOnly; writes enter only through Record and RecordDelete.
//   - Eviction by progress: once the informer's progress reaches an entry's resourceVersion,
//     the store holds the key's state at or after the write, whatever events came for the key,
//     and the entry goes (reason "observed"). A tombstone goes once the progress has reached it
//     and the store no longer shows the deleted object ("deleted"), or shows a re-created one
//     ("recreated") or the terminating one after the delete ("observed"); otherwise it goes
//     with the delete event. Eviction runs in the informer event handler (Observe), in Record
//     and RecordDelete, and in Sweep; evict.go holds all of it. Record and RecordDelete look
//     at the store again after publishing, so an entry never waits for an event its handler
//     has already handled. Therefore, once the informer has caught up with every write and
//     a Sweep has run (or an event, or a write, came after the last progress), Len is 0. Len
//     itself only counts: it neither evicts nor logs. Reads always compare, so correctness
//     does not depend on eviction or on handler order.
//   - Memory is bounded by the keys written, not by the writes: a newer write of a key
//     replaces its entry, and the replaced copy is released at once, however long the
//     informer makes no progress (TestStalledWritesOfOneKeyHoldOneCopy).
//   - An entry is never dropped for its age or to make room: there is no size bound. The TTL
//     (default five minutes) means "the informer made no progress past this write for that
//     long": a stalled watch. Such an entry is still served, because dropping it would roll
//     reads back to the informer's stale copy; it is counted in writeback_stalled_entries and
//     logged as an error, and its recovery is logged when the informer catches up. The TTL is
//     checked on each write the overlay records, on informer events and in Sweep; reads never
//     look at the clock. Options.TTL sets it (0: DefaultTTL), Options.Clock the clock.
//   - Monotonic reads: once a read returned resourceVersion R for a key, no later read returns
//     an older one.
//   - ResourceVersions are compared as etcd revisions with
//     k8s.io/apimachinery/pkg/util/resourceversion.CompareResourceVersion, never as strings.
//     An entry whose resourceVersion cannot be compared is served until the informer delivers
//     any event for its key, which evicts it.
//   - ResourceVersions that go back: when the informer's progress falls below the highest one
//     the overlay has seen (etcd restored from a backup, then the informer relisted), every
//     entry belongs to a history that no longer exists and is dropped (reason "reset", logged
//     as an error), at the first informer event, write or Sweep after the relist. A write whose
//     result is at or below the informer's progress at the time is not held: between a restore
//     and the informer's relist, reads show the informer's state.
//   - client-go's AtomicFIFO feature gate (on by default since 1.36) must stay on: with it
//     off the store reports no progress, and Observe fails with ErrAtomicFIFODisabled, naming
//     the gate. Observe also fails for a nil informer, or one whose indexer is not the one the
//     overlay was built on. NewOverlay with a nil indexer, and Wrap, WrapDynamic or
//     WrapMetadata with a nil client or overlay, panic: those are programming errors.
//   - Everything returned is shared read-only, as listers' objects are. Record deep-copies the
//     write result once; the read path never copies.
//
// Deletes: Delete returns no object, so the tombstone takes its UID from
// DeleteOptions.Preconditions.UID when set, otherwise from the copy reads serve. When reads
// serve nothing for the key, or serve another UID than the precondition names, nothing known
// can be hidden and no tombstone is stored. The guarantee against resurrection therefore
// assumes the controller deletes what it reads; a UID precondition taken from the lister's copy
// makes the server enforce it. DeleteCollection is not captured.
//
// Objects held by finalizers keep existing with a deletionTimestamp. Their tombstone hides them
// until the informer delivers the delete, or a copy with a deletionTimestamp and a
// resourceVersion newer than the tombstone's; from then on reads show the terminating object.
// A tombstone of an object that stays terminating without further updates leaves with the
// delete event once the finalizers are gone; if that takes longer than the TTL, it is
// reported as stalled like any other entry.
//
// # Capture
//
// Wrap returns a Client: a generic struct over the object, list and apply-configuration types
// that embeds the original typed client and overrides its write methods (Create, Update,
// UpdateStatus, Patch, Apply, ApplyStatus, Delete) to record their results. A dry run
// (DryRun set in the options) changed nothing on the server and is not recorded. Its method
// set is that of a generated <Type>Interface with an empty expansion (as for a custom
// resource), so a clientset that returns it needs one line of glue per resource,
// and it works the same over the real and the generated fake clientset. It was chosen because
// the compiler checks it, and because it sees typed results: a rest.Interface or round-tripper
// hook would have to decode response bodies and guess which requests are writes of which
// resource, and fake reactors exist only in tests. Wrap takes the namespace the typed client
// was made for, because a Delete returns no object and its tombstone needs a key.
//
// Built-in interfaces with extra methods (StatefulSetInterface has GetScale, UpdateScale and
// ApplyScale) get a small per-type struct in the consumer that embeds the Client and forwards
// the extra methods to the original client; capture_compile_test.go shows one. Built-in
// interfaces that lack one of the standard methods do not fit Interface as they are:
// ServiceInterface has no DeleteCollection (the Service API has none), so a consumer embeds it
// in a struct whose DeleteCollection returns a MethodNotSupported error, and wraps that.
//
// Subresources: Patch records its answer when the answer is the object itself: no
// subresource (or an empty argument, as helpers forward it), status, and the core
// subresources that answer with their object (pods/resize, pods/ephemeralcontainers,
// certificatesigningrequests/approval). Writes through scale (UpdateScale, ApplyScale, Patch
// with the "scale" subresource) are not captured: their result is an autoscaling/v1.Scale, not
// the object, so there is nothing to serve; a minimum-resourceVersion marker could only make
// reads refuse or wait, which this package never does. A controller that needs to read its own
// replica changes writes spec.replicas with Update, Patch or Apply, which are captured.
//
// WrapDynamic and WrapMetadata capture the same way: every write method of
// dynamic.ResourceInterface (Create, Update and Patch with a subresource whose answer is the
// object, UpdateStatus, Apply, ApplyStatus, Delete) and of metadata.ResourceInterface (Patch,
// Delete); dry runs and other subresources (a create of pods/eviction, say) go through
// unrecorded; DeleteCollection is not captured.
//
// # Tests
//
// Besides a test per rule, three tests search for interleavings. TestReadRacingDeliveryOfOwnCreate
// and its siblings deliver an event after every single call the overlay makes into the
// informer's store, for every way of reading and writing. TestWritebackAgainstModel checks
// random schedules of own and external writes, deletes, late results, late deliveries and
// handlers, relists that skip whole lives, and bookmarks against a model, including "the
// overlay is empty once the informer has caught up": 1,000 schedules by default, more with
// -rapid.checks=100000. TestFreeRunningInformerAgainstModel runs a real SharedIndexInformer
// freely beside writers and readers: 1,000 writes by default, more with
// -writeback.schedules=100000.
//
// # Locking
//
// Reads take no lock. Writers (Record, RecordDelete, Sweep, the informer event handler)
// serialise on the overlay's mutex, and the lock order is: the overlay's mutex, then the
// informer's store. Under the mutex nothing blocks: metrics are atomic, and log lines are
// written after it is released (TestNoLogUnderTheOverlaysLock), so a slow log sink never
// holds up a writer or the informer.
//
// # Observability
//
// NewMetrics registers, with the label "resource": writeback_reads_served_from_overlay_total
// (each a stale read prevented; reads hidden by a tombstone count too),
// writeback_overlay_entries, writeback_observation_lag_seconds (from Record to the informer
// catching up), writeback_evictions_total{reason="observed|deleted|recreated|reset"} (EvictObserved, EvictDeleted,
// EvictRecreated, EvictReset) and
// writeback_stalled_entries (entries older than the TTL: a stalled watch; alert on it). The logger
// (Options.Logger, by default klog's) gets each record and eviction at -v=4, and each read the
// overlay changed, with both resourceVersions, at -v=5.
//
// # Cost
//
// GetByKey neither allocates nor copies (TestGetByKeyDoesNotAllocate) and takes no lock of
// its own. With no pending write it adds one atomic load to the informer's GetByKey; for a key
// without an entry, a counter test in a small filter as well; for a key with an entry, a hash
// lookup besides the informer's, and a comparison of resourceVersions only the first time a
// read meets a given informer copy: the entry remembers the copy it was found newer than, and
// a read that finds that very object again (store objects are immutable, so an equal
// interface value is the same object) serves the entry at once. The package uses no unsafe.
//
// Entries live in a hash table that readers search without locks and writers change in place
// under one mutex. Writers also file each entry whose resourceVersion can be compared in
// resourceVersion order, for eviction by progress: a result newer than the last one filed joins
// the end of a queue, and one that arrives after a newer one goes to a heap of such late
// results. A list in record order serves the TTL check. An entry that leaves, or is replaced by a
// newer write of its key, is taken out of each of them at once. The work of a write or an
// eviction therefore does not grow with the number of pending entries, on average (the table is
// rebuilt, larger, as it fills), except for a late result, which costs the logarithm of the
// number of late results pending.
//
// List finds the stale informer copies of pending keys by interface equality (one hash
// lookup per item), without reading the other objects, when every pending key has an informer
// copy that stayed put during the list; otherwise (for example while a create is pending and
// the store moved) it matches items by namespace and name, which reads every object. Either
// way it works on the entries as they were before it read the store.
//
// make bench measures these costs against the informer's own indexer and client-go's
// MutationCache; the repository's docs/writeback-bench.md has the figures, and
// docs/writeback-changes.md the changes in behaviour between versions.
package writeback
