package admintest

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// request is one admin API request, resolved to the broker it addressed.
type request struct {
	namespace, name string
	pod             pod
	rest            string // path below the broker's base URL, starting with "/"
	query           url.Values
	nodeID          int    // -1 unless rest is /v1/brokers/{id}...
	action          string // what follows /v1/brokers/{id}, e.g. "decommission"
	// body is the request body, read only for PUT /v1/cluster_config and the users writes.
	body []byte
	// user is who authenticated, "" for anonymous: what config_multi_property_validation
	// checks against superusers.
	user string
}

// brokerRequest resolves a request to one broker's own listener.
func brokerRequest(namespace, name string, p pod, path string, query url.Values) request {
	r := request{namespace: namespace, name: name, pod: p, rest: path, query: query, nodeID: -1}
	if tail, ok := strings.CutPrefix(r.rest, "/v1/brokers/"); ok {
		idText, action, _ := strings.Cut(tail, "/")
		if id, err := strconv.Atoi(idText); err == nil {
			r.nodeID = id
		}
		r.action = action
	}
	return r
}

// brokerHandler answers one broker's own listener: the pod p of cluster namespace/name.
func (s *Server) brokerHandler(namespace, name string, p pod) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, hr *http.Request) {
		if !s.enter() {
			abort(w)
		}
		defer s.inflight.Done()
		s.serveRequest(w, hr, brokerRequest(namespace, name, p, hr.URL.Path, hr.URL.Query()))
	})
}

// serveRequest applies faults, authenticates, then answers as the addressed broker.
func (s *Server) serveRequest(w http.ResponseWriter, hr *http.Request, req request) {
	call := Call{Namespace: req.namespace, Name: req.name, Pool: req.pod.pool, Ordinal: req.pod.ordinal, Method: hr.Method, Path: req.rest, NodeID: req.nodeID}
	if (req.rest == "/v1/cluster_config" && hr.Method == http.MethodPut) || leaderOnly(req, hr.Method) {
		req.body, _ = io.ReadAll(io.LimitReader(hr.Body, maxConfigBody))
	}
	c, fault, running := s.route(req, hr.Method)
	if !running {
		s.log(call, 0, "pod not running")
		refuse(w)
		return
	}
	if !s.applyFault(w, hr, call, fault) {
		return
	}
	user, authed, denied := c.authenticate(hr, routeLevel(req, hr.Method))
	call.User, req.user = user, authed
	if denied != nil {
		s.log(call, denied.status, fault.String())
		writeReply(w, *denied)
		return
	}
	if fault.Redirect || leaderOnly(req, hr.Method) {
		if loc, ok := s.redirectTarget(c, req); ok {
			s.log(call, http.StatusTemporaryRedirect, fault.String())
			w.Header().Set("Location", loc)
			// server.cc redirect_to_leader: a Retry-After from the second redirect on.
			if n, _ := strconv.Atoi(req.query.Get("redirect")); (n+1)%2 == 0 {
				w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
			}
			writeReply(w, reply{status: http.StatusTemporaryRedirect})
			return
		}
	}
	if fault.Timeout {
		s.timeOut(w, hr, call, fault)
		return
	}

	// Act and log under one lock, so the call log orders calls as the cluster applied them.
	s.mu.Lock()
	c.refresh()
	rep := c.handle(req, hr.Method)
	call.Status, call.Fault = rep.status, fault.String()
	if fault.DropReply {
		call.Status = 0
		call.Fault += fmt.Sprintf(" (the cluster answered %d)", rep.status)
	}
	seq := s.record(call)
	if req.action == "decommission" && hr.Method == http.MethodPut {
		c.checkDecommission(req, rep.status, seq)
	}
	if req.action == "maintenance" && hr.Method == http.MethodPut && rep.status == http.StatusOK {
		c.checkMaintenance(req, seq)
	}
	s.mu.Unlock()
	if fault.DropReply {
		refuse(w)
		return
	}
	writeReply(w, rep)
}

// retryAfterSeconds is server.cc's retry_after_seconds.
const retryAfterSeconds = 1

// redirectTarget is the URL of the same request at the controller leader, as server.cc
// redirect_to_leader builds it (same scheme, the leader's host, the path and query with
// redirect=N counted up); the leader's own listener stands for its host, as each simulated
// broker has its own port. There is none when the addressed broker is the leader, no leader
// runs, or the leader has no listener (an ordinal beyond Options.PortsPerCluster). The leader
// may run in another pool than the addressed broker.
func (s *Server) redirectTarget(c *Cluster, req request) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	leader := c.controllerID()
	if leader < 0 || c.members[leader].pod == req.pod {
		return "", false
	}
	base, ok := c.brokerURL(c.members[leader].pod)
	if !ok {
		return "", false
	}
	q := url.Values{}
	for k, v := range req.query {
		q[k] = v
	}
	n, _ := strconv.Atoi(q.Get("redirect"))
	q.Set("redirect", strconv.Itoa(n+1))
	return base + req.rest + "?" + q.Encode(), true
}

// timeOut holds the request for node_management_operation_timeout_ms by the simulator's clock,
// then answers 504 as throw_on_error does for cluster::errc::timeout. The cluster does not act.
func (s *Server) timeOut(w http.ResponseWriter, hr *http.Request, call Call, f Fault) {
	done := after(s.clock, s.opts.NodeOperationTimeout)
	s.signalHolding(hr, f)
	select {
	case <-done:
		s.log(call, http.StatusGatewayTimeout, f.String())
		writeReply(w, errorReply(http.StatusGatewayTimeout, "Timeout: Timeout occurred while processing request"))
	case <-hr.Context().Done():
		s.log(call, 0, f.String()+s.whyAborted())
		abort(w)
	case <-s.closing:
		s.log(call, 0, f.String()+", server closed")
		abort(w)
	}
}

// enter counts a handler in, unless the server is closing.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.inflight.Add(1)
	return true
}

// log records a call that ended before reaching the cluster.
func (s *Server) log(call Call, status int, fault string) {
	call.Status, call.Fault = status, fault
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record(call)
}

// route finds the cluster, whether the addressed pod runs, and the fault that applies.
func (s *Server) route(req request, method string) (*Cluster, Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.clusters[clusterKey{req.namespace, req.name}]
	if c == nil || !c.podRunning[req.pod] {
		return nil, Fault{}, false
	}
	return c, s.pickFault(c, req.pod, method), true
}

// pickFault returns the most specific fault that applies. Callers hold s.mu.
func (s *Server) pickFault(c *Cluster, p pod, method string) Fault {
	if slot := c.brokerFaults[p]; slot != nil {
		if f, ok := slot.take(method); ok {
			return f
		}
	}
	if f, ok := c.fault.take(method); ok {
		return f
	}
	f, _ := s.fault.take(method)
	return f
}

// applyFault plays the fault out and reports whether the request should go on to the cluster.
func (s *Server) applyFault(w http.ResponseWriter, hr *http.Request, call Call, f Fault) bool {
	switch {
	case f.Refuse:
		s.log(call, 0, f.String())
		refuse(w)
		return false
	case f.Hang:
		s.hold(w, hr, call, f, nil)
		return false
	}
	if f.Latency > 0 {
		t := time.NewTimer(f.Latency)
		defer t.Stop()
		s.hold(w, hr, call, f, t.C)
	}
	if f.Status != 0 {
		s.log(call, f.Status, f.String())
		writeReply(w, errorReply(f.Status, "injected fault"))
		return false
	}
	return true
}

// hold keeps the request until done fires (nil: never), aborting it if the client gives up or
// the server closes first.
func (s *Server) hold(w http.ResponseWriter, hr *http.Request, call Call, f Fault, done <-chan time.Time) {
	s.signalHolding(hr, f)
	select {
	case <-done:
		return
	case <-hr.Context().Done():
		s.log(call, 0, f.String()+s.whyAborted())
	case <-s.closing:
		s.log(call, 0, f.String()+", server closed")
	}
	abort(w)
}

// signalHolding tells f.Holding that the request is held. The send wins whenever the receiver
// is ready, even if the client has already given up or the server is closing (a select would
// pick among them at random): a test that waits on Holding hears of every held request.
func (s *Server) signalHolding(hr *http.Request, f Fault) {
	if f.Holding == nil {
		return
	}
	select {
	case f.Holding <- struct{}{}:
		return
	default:
	}
	select {
	case f.Holding <- struct{}{}:
	case <-hr.Context().Done():
	case <-s.closing:
	}
}

// whyAborted names what ended a held request whose context is done: Close closes s.closing
// before it cuts the connections, so a closed s.closing means the server, not the client.
func (s *Server) whyAborted() string {
	select {
	case <-s.closing:
		return ", server closed"
	default:
		return ", client gave up"
	}
}

// refuse closes the connection without an answer, the closest one server can come to a broker
// that refuses connections.
func refuse(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	abort(w)
}

// abort ends the handler without a response; net/http closes the connection.
func abort(http.ResponseWriter) { panic(http.ErrAbortHandler) }
