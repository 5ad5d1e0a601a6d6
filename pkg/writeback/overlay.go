package writeback

import (
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// DefaultTTL is how long an entry may wait for the informer before the overlay reports the
// informer as stalled. It is generous on purpose: entries normally leave within milliseconds.
const DefaultTTL = 5 * time.Minute

// Options tune an Overlay. The zero value is ready to use.
type Options struct {
	// TTL is how long the informer may take to catch up with a write before the overlay
	// reports it as stalled (writeback_stalled_entries and an error log line). Entries are
	// never dropped for their age. Zero means DefaultTTL.
	TTL time.Duration
	// Clock reads the time for the TTL and the lag histogram. Nil means the real clock.
	Clock clock.PassiveClock
	// Metrics receives this overlay's measurements. Nil means no metrics.
	Metrics *Metrics
	// Logger receives the overlay's log lines: -v=4 each record and eviction, -v=5 each read the
	// overlay changed. The zero value means klog.Background(). Whether -v=5 is on is looked up
	// when the overlay is made and again at each write and informer event, not on every read.
	Logger klog.Logger
}

// Overlay is the write-back store for one resource. It implements cache.Indexer by laying the
// results of the controller's own writes over an informer's indexer, so a generated lister
// built on it (listers.NewStatefulSetLister(overlay)) reads its own writes.
//
// The overlay is read-only from the Store interface's point of view: Add, Update, Delete and
// Replace return an error. Writes enter through Record and RecordDelete (normally called by a
// Client from Wrap), and leave when the informer observes them (see Observe).
type Overlay struct {
	resource string
	inner    cache.Indexer
	ttl      time.Duration
	clock    clock.PassiveClock
	metrics  *resourceMetrics
	logger   klog.Logger

	// entries are read without locks on every read.
	entries entries
	// mu serialises writers: recording and eviction. The fields below are guarded by it.
	// Lock order: mu, then the informer's store (see locking.go).
	mu sync.Mutex
	// pending orders the entries with comparable resourceVersions for eviction by progress.
	pending pendingIndex
	// aging links the entries in the order they were recorded, for the stall check.
	aging entryList[agingLinks]
	// progress is the highest resourceVersion the informer's store has reported.
	progress string
	// stalled counts the entries that outlived the TTL.
	stalled int
	// queued are the log lines made under mu, written once it is released (see unlock).
	queued []logLine

	// logReads caches whether the logger logs reads (-v=5): asking costs a read a sixth.
	logReads atomic.Bool

	// asStored, when set, turns a recorded copy into the type the informer holds (unstructured
	// or metadata-only; NewDynamic and NewMetadata set it), so that its listers can serve it.
	asStored func(runtime.Object) (runtime.Object, error)
}

var _ cache.Indexer = &Overlay{}

// NewOverlay lays an empty overlay over informerIndexer. resource names the resource in
// metrics and logs (for example "statefulsets"). A nil indexer panics: there is nothing to
// overlay.
func NewOverlay(resource string, informerIndexer cache.Indexer, opts Options) *Overlay {
	if informerIndexer == nil {
		panic("writeback.NewOverlay: informerIndexer is nil")
	}
	o := &Overlay{
		resource: resource,
		inner:    informerIndexer,
		ttl:      opts.TTL,
		clock:    opts.Clock,
		metrics:  opts.Metrics.forResource(resource),
	}
	if o.ttl <= 0 {
		o.ttl = DefaultTTL
	}
	if o.clock == nil {
		o.clock = clock.RealClock{}
	}
	o.logger = opts.Logger
	if o.logger.GetSink() == nil {
		o.logger = klog.Background()
	}
	o.logger = o.logger.WithValues("resource", resource)
	o.logReads.Store(o.logger.V(5).Enabled())
	o.entries.init()
	return o
}

// Len is the number of entries (writes and tombstones) the informer has not caught up with.
// It changes nothing and logs nothing: an entry whose write the informer's progress has passed
// without an event for its key (a watch bookmark) is counted until the next informer event,
// write or Sweep evicts it.
func (o *Overlay) Len() int { return o.entries.len() }

// Sweep evicts the entries the informer's progress has passed since its last event (a watch
// bookmark moves it without any), and reports the entries that outlived the TTL as stalled.
// Informer events and writes do the same; Sweep is for a caller that wants the overlay's
// state up to date without either, for example before reading Len or the metrics.
func (o *Overlay) Sweep() {
	if o.entries.len() == 0 {
		return
	}
	o.mu.Lock()
	defer o.unlock()
	now := o.clock.Now()
	o.catchUpLocked(now)
	o.sweepLocked(now)
}

// Resource is the name given to NewOverlay.
func (o *Overlay) Resource() string { return o.resource }

// putLocked publishes e for its key and files it for eviction and the stall check; the entry
// it replaces leaves the eviction index and the aging list at once, so that the overlay holds
// one copy per key however often the key is written. Callers hold o.mu.
func (o *Overlay) putLocked(e *entry, now time.Time) {
	old := o.entries.putLocked(e)
	e.lateIndex = -1
	if e.rvComparable {
		o.pending.push(e)
	}
	o.aging.pushBack(e)
	if old != nil {
		o.untrackLocked(old, now)
	} else if o.metrics != nil {
		o.metrics.entries.Inc()
	}
}
