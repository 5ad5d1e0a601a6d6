package race

import (
	"maps"
	"net/http"
	"sync"

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
	// to the controller too (controller.Config.Tracer), so that its reads are recorded; the
	// checker judges the stale reads (history.Report.StaleReads).
	History *history.Recorder
}

// Recorder watches one operator's traffic with the apiserver. Wrap its transport with Wrap
// (rest.Config.WrapTransport). It counts requests by verb, delays watch streams by Lag, and
// records every write in the operator's history. All methods are safe for concurrent use.
type Recorder struct {
	lag     *harness.LagSource
	clock   clock.Clock
	history *history.Recorder

	mu       sync.Mutex
	requests map[string]int
	// byResource counts requests by verb and resource, "get configmaps", for the log.
	byResource map[string]int
}

// NewRecorder returns a Recorder.
func NewRecorder(opts RecorderOptions) *Recorder {
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	return &Recorder{
		lag:        harness.NewLagSource(opts.Lag, opts.Seed),
		clock:      opts.Clock,
		history:    opts.History,
		requests:   map[string]int{},
		byResource: map[string]int{},
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
	r.byResource[info.Verb+" "+info.Resource]++
	r.mu.Unlock()

	var hw *historyWrite
	if r.history != nil && info.Writes() {
		hw = r.startHistoryWrite(req, info)
	}
	resp, err := rt.RoundTrip(req)
	if hw != nil {
		hw.finish(r.history, resp, err)
	}
	if err == nil && resp.StatusCode >= 200 && resp.StatusCode <= 299 && info.Verb == harness.VerbWatch && !r.lag.Lag().IsZero() {
		resp.Body = harness.NewLateBody(resp.Body, r.lag.Draw, r.clock)
	}
	return resp, err
}

// Stats is what one row counted.
type Stats struct {
	// Requests counts requests sent, by verb (see Verbs).
	Requests map[string]int
	// StaleReads counts, by resource ("brokerclusters", "statefulsets"), the reads older than
	// the operator's own finished write, as the history checker judged them
	// (history.Report.StaleReads).
	StaleReads map[string]int
}

// TotalRequests sums Requests.
func (s Stats) TotalRequests() int {
	return harness.Total(s.Requests)
}

// TotalStaleReads sums StaleReads.
func (s Stats) TotalStaleReads() int {
	return harness.Total(s.StaleReads)
}

// RequestsByResource returns a copy of the request counts so far by verb and resource, such
// as "get configmaps".
func (r *Recorder) RequestsByResource() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.byResource)
}

// Requests returns a copy of the request counts so far.
func (r *Recorder) Requests() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.requests)
}
