package race

import (
	"maps"
	"net/http"
	"sync"

	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/utils/clock"

	"github.com/broker-operator/broker-operator/test/harness"
	"github.com/broker-operator/broker-operator/test/history"
)

// RecorderOptions configure a Recorder.
type RecorderOptions struct {
	// Lag delays every watch response the wrapped transport receives. Zero: no delay.
	Lag harness.Lag
	// Seed seeds the delays.
	Seed uint64
	// Clock times the delays. Nil: the real clock.
	Clock clock.Clock
	// History, when set, also records every write in a history for the checker (test/history):
	// its precondition, answered resourceVersion and UID, status code and audit ID. Give it
	// to the controller too (controller.Config.Tracer), so that its reads are recorded.
	History *history.Recorder
}

// Recorder watches one operator's traffic with the apiserver. Wrap its transport with Wrap
// (rest.Config.WrapTransport) and give ReadHook to the controller (controller.Config.ReadHook).
// It counts requests by verb, delays watch streams by Lag, and remembers the resourceVersion of
// the operator's last successful write to each object, so that a reconcile that reads an older
// copy is counted as a stale read. All methods are safe for concurrent use.
type Recorder struct {
	lag     *harness.LagSource
	clock   clock.Clock
	history *history.Recorder

	mu       sync.Mutex
	requests map[string]int
	// lastWrite is the resourceVersion of the newest successful write to each object; "" after
	// a delete.
	lastWrite      map[objectKey]string
	reads, stale   map[string]int
	unparsedWrites int
}

type objectKey struct{ resource, namespace, name string }

// NewRecorder returns a Recorder.
func NewRecorder(opts RecorderOptions) *Recorder {
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	return &Recorder{
		lag:       harness.NewLagSource(opts.Lag, opts.Seed),
		clock:     opts.Clock,
		history:   opts.History,
		requests:  map[string]int{},
		lastWrite: map[objectKey]string{},
		reads:     map[string]int{},
		stale:     map[string]int{},
	}
}

// Wrap returns rt wrapped: the signature of rest.Config.WrapTransport.
func (r *Recorder) Wrap(rt http.RoundTripper) http.RoundTripper {
	return harness.RoundTripperFunc(func(req *http.Request) (*http.Response, error) { return r.roundTrip(rt, req) })
}

func (r *Recorder) roundTrip(rt http.RoundTripper, req *http.Request) (*http.Response, error) {
	info := harness.Classify(req)
	r.mu.Lock()
	r.requests[info.Verb]++
	r.mu.Unlock()

	var hw *historyWrite
	if r.history != nil && info.Writes() {
		hw = r.startHistoryWrite(req, info)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil || resp.StatusCode < 200 || resp.StatusCode > 299 {
		if hw != nil {
			hw.finish(r.history, resp, err)
		}
		return resp, err
	}
	switch {
	case info.Verb == harness.VerbWatch && !r.lag.Lag().IsZero():
		resp.Body = harness.NewLateBody(resp.Body, r.lag.Draw, r.clock)
	case info.Writes():
		if hw != nil {
			hw.finish(r.history, resp, nil)
		}
		obj, ok, readErr := harness.ReadWritten(resp)
		if readErr != nil {
			return resp, readErr
		}
		r.recordWrite(info, obj, ok)
	}
	return resp, nil
}

// recordWrite remembers the resourceVersion a successful write returned; ok is false when its
// answer named no object.
func (r *Recorder) recordWrite(info harness.Request, obj harness.Written, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !ok {
		r.unparsedWrites++
		return
	}
	key := objectKey{info.Resource, obj.Namespace, obj.Name}
	if info.Verb == harness.VerbDelete {
		r.lastWrite[key] = ""
		return
	}
	rv := obj.ResourceVersion
	if prev := r.lastWrite[key]; prev != "" {
		if cmp, err := resourceversion.CompareResourceVersion(rv, prev); err != nil || cmp <= 0 {
			return // an older write's answer arrived late
		}
	}
	r.lastWrite[key] = rv
}

// ReadHook has the signature of controller.Config.ReadHook: it counts a read of resource
// namespace/name at resourceVersion rv ("" when the read found nothing), and counts it as stale
// when the operator had already written a newer version (or had created the object).
func (r *Recorder) ReadHook(resource, namespace, name, rv string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reads[resource]++
	last := r.lastWrite[objectKey{resource, namespace, name}]
	if last == "" {
		return // never written, or deleted by the operator
	}
	if rv == "" {
		r.stale[resource]++ // the operator created it, yet the read did not find it
		return
	}
	if cmp, err := resourceversion.CompareResourceVersion(rv, last); err == nil && cmp < 0 {
		r.stale[resource]++
	}
}

// LastWrite returns the resourceVersion of the operator's newest successful write to an object.
func (r *Recorder) LastWrite(resource, namespace, name string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rv, ok := r.lastWrite[objectKey{resource, namespace, name}]
	return rv, ok
}

// Stats is what a Recorder counted.
type Stats struct {
	// Requests counts requests sent, by verb (see Verbs).
	Requests map[string]int
	// Reads and StaleReads count reconcile reads by resource ("brokerclusters", "statefulsets").
	Reads, StaleReads map[string]int
	// UnparsedWrites counts successful writes whose answer named no object; they are not
	// tracked, so a high count would hide stale reads.
	UnparsedWrites int
}

// TotalRequests sums Requests.
func (s Stats) TotalRequests() int {
	return harness.Total(s.Requests)
}

// TotalStaleReads sums StaleReads.
func (s Stats) TotalStaleReads() int {
	return harness.Total(s.StaleReads)
}

// Stats returns a copy of the counts so far.
func (r *Recorder) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Stats{Requests: maps.Clone(r.requests), Reads: maps.Clone(r.reads), StaleReads: maps.Clone(r.stale), UnparsedWrites: r.unparsedWrites}
}
