package soak

import (
	"bytes"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"

	"github.com/broker-operator/broker-operator/test/harness"
)

// Proxy stands between one operator process and the apiserver, on an https listener on
// 127.0.0.1 with its own self-signed certificate (CAPEM). The operator's bearer token passes
// through (client-go sends none over plain http). It asks the apiserver for JSON, so that
// it can read the resourceVersion of each write's answer.
type Proxy struct {
	srv  *httptest.Server
	hist *ProcessHistory // nil: no history

	lag   *harness.LagSource
	lagOn atomic.Bool

	mu       sync.Mutex
	requests map[string]int // by verb
	listings map[string]int // by resource: lists and watches with initial events
	gone     int            // 410 Gone answers and watch events
	leases   int            // requests to Leases: leader election
	watches  map[*cutBody]struct{}
	cuts     int
	// watchBytes counts, by resource, the bytes of watch streams forwarded: what the operator
	// decodes beyond its requests' answers.
	watchBytes map[string]int64
}

// ProxyStats is what a Proxy counted.
type ProxyStats struct {
	// Requests counts requests by verb.
	Requests map[string]int
	// Listings counts, by resource, the requests that read a whole collection.
	Listings map[string]int
	// Gone counts 410 Gone answers, whole or inside a watch stream.
	Gone int
	// Leases counts the requests to Leases (leader election), of every verb.
	Leases int
	// WatchesCut counts the watch streams CutWatches ended.
	WatchesCut int
	// WatchBytes counts, by resource, the bytes of watch streams forwarded to the operator.
	WatchBytes map[string]int64
}

// Total sums Requests.
func (s ProxyStats) Total() int {
	return harness.Total(s.Requests)
}

// Work counts the requests that are neither watches nor leader election: what reconciles cost.
func (s ProxyStats) Work() int { return s.Total() - s.Requests["watch"] - s.Leases }

// Relists counts the listings beyond the first of each resource.
func (s ProxyStats) Relists() int {
	n := 0
	for _, c := range s.Listings {
		n += max(c-1, 0)
	}
	return n
}

// StartProxy listens on 127.0.0.1 and forwards to upstream through rt (which must trust the
// apiserver's certificate and add no credentials). lag is the delay of each watch chunk while
// SetLag(true); seed draws the delays. hist, when not nil, records every write (answered or
// not) and every deletion a watch stream delivers (ProcessHistory).
func StartProxy(upstream string, rt http.RoundTripper, lag harness.Lag, seed uint64, hist *ProcessHistory) (*Proxy, error) {
	target, err := url.Parse(upstream)
	if err != nil {
		return nil, err
	}
	p := &Proxy{
		hist:     hist,
		lag:      harness.NewLagSource(lag, seed),
		requests: map[string]int{}, listings: map[string]int{}, watches: map[*cutBody]struct{}{}, watchBytes: map[string]int64{},
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = target.Host
			pr.Out.Header.Set("Accept", "application/json")
			// Left to the upstream transport, which then decompresses: the proxy reads what it
			// forwards (resourceVersions, watch events).
			pr.Out.Header.Del("Accept-Encoding")
		},
		Transport:     harness.RoundTripperFunc(func(r *http.Request) (*http.Response, error) { return p.roundTrip(rt, r) }),
		FlushInterval: -1, // watch events go out as they come
		// Errors reaching the apiserver are the faults at work; the operator sees them as 502s.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	p.srv = httptest.NewUnstartedServer(rp)
	p.srv.EnableHTTP2 = true // as client-go talks to an apiserver
	p.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	p.srv.StartTLS()
	return p, nil
}

// URL is the proxy's address, https://127.0.0.1:PORT.
func (p *Proxy) URL() string { return p.srv.URL }

// CAPEM is the certificate a client must trust to reach the proxy.
func (p *Proxy) CAPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.srv.Certificate().Raw})
}

// Client returns an http.Client that trusts the proxy.
func (p *Proxy) Client() *http.Client { return p.srv.Client() }

// SetLag turns the watch lag on or off; it applies at once to open streams too.
func (p *Proxy) SetLag(on bool) { p.lagOn.Store(on) }

// CutWatches ends every open watch stream, as a broken connection would, and returns how many.
func (p *Proxy) CutWatches() int {
	p.mu.Lock()
	open := make([]*cutBody, 0, len(p.watches))
	for b := range p.watches {
		open = append(open, b)
	}
	p.cuts += len(open)
	p.mu.Unlock()
	for _, b := range open {
		b.cut()
	}
	return len(open)
}

// Stats returns a copy of the counts so far.
func (p *Proxy) Stats() ProxyStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return ProxyStats{Requests: maps.Clone(p.requests), Listings: maps.Clone(p.listings), Gone: p.gone, Leases: p.leases, WatchesCut: p.cuts, WatchBytes: maps.Clone(p.watchBytes)}
}

// Close stops the listener and ends every open stream.
func (p *Proxy) Close() {
	p.CutWatches()
	p.srv.CloseClientConnections()
	p.srv.Close()
}

func (p *Proxy) delay() time.Duration {
	if !p.lagOn.Load() || p.lag.Lag().IsZero() {
		return 0
	}
	return p.lag.Draw()
}

func (p *Proxy) roundTrip(rt http.RoundTripper, r *http.Request) (*http.Response, error) {
	info := harness.Classify(r)
	p.mu.Lock()
	p.requests[info.Verb]++
	if info.Listing {
		p.listings[info.Resource]++
	}
	if info.Resource == "leases" {
		p.leases++
	}
	p.mu.Unlock()

	if p.hist != nil && info.Writes() {
		return p.recordWrite(rt, r, info)
	}
	return p.forward(rt, r, info)
}

// recordWrite forwards a write and records it, answered or not, in the history.
func (p *Proxy) recordWrite(rt http.RoundTripper, r *http.Request, info harness.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody && r.GetBody == nil {
		body, err := io.ReadAll(r.Body)
		_ = r.Body.Close()
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	e := harness.WriteEvent(r, info)
	e.Start = p.hist.Now()
	resp, err := p.forward(rt, r, info)
	answer := harness.Answer(&e, resp, err)
	e.End = p.hist.Now()
	p.hist.Wrote(e, answer)
	return resp, err
}

// forward sends r upstream and looks at the answer: counts, lag and cuts of watch streams.
func (p *Proxy) forward(rt http.RoundTripper, r *http.Request, info harness.Request) (*http.Response, error) {
	resp, err := rt.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	if resp.StatusCode == http.StatusGone {
		p.mu.Lock()
		p.gone++
		p.mu.Unlock()
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, nil
	}
	if info.Verb == harness.VerbWatch {
		b := &cutBody{src: resp.Body, p: p, resource: info.Resource}
		p.mu.Lock()
		p.watches[b] = struct{}{}
		p.mu.Unlock()
		resp.Body = harness.NewLateBody(b, p.delay, clock.RealClock{})
		if p.hist != nil {
			resp.Body = &deletesBody{src: resp.Body, resource: info.Resource, observed: p.hist.Observed}
		}
	}
	return resp, nil
}

// cutBody is a watch stream of resource that CutWatches can end, and that counts its bytes
// and the 410 Gone events in it.
type cutBody struct {
	src      io.ReadCloser
	p        *Proxy
	resource string
	once     sync.Once
	cutB     atomic.Bool
}

var errCut = errors.New("soak: watch cut")

// goneEvent is how a 410 inside a watch stream reads: an ERROR event carrying a Status.
var goneEvent = []byte(`"code":410`)

func (b *cutBody) Read(buf []byte) (int, error) {
	n, err := b.src.Read(buf)
	if n > 0 {
		gone := bytes.Contains(buf[:n], goneEvent)
		b.p.mu.Lock()
		b.p.watchBytes[b.resource] += int64(n)
		if gone {
			b.p.gone++
		}
		b.p.mu.Unlock()
	}
	if b.cutB.Load() {
		return n, errCut
	}
	return n, err
}

func (b *cutBody) cut() {
	b.cutB.Store(true)
	_ = b.Close()
}

func (b *cutBody) Close() error {
	var err error
	b.once.Do(func() {
		b.p.mu.Lock()
		delete(b.p.watches, b)
		b.p.mu.Unlock()
		err = b.src.Close()
	})
	return err
}
