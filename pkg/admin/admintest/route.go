package admintest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// request is a parsed simulator URL: /namespace/name/ordinal/rest.
type request struct {
	namespace, name string
	ordinal         int
	rest            string // path below the broker prefix, starting with "/"
	nodeID          int    // -1 unless rest is /v1/brokers/{id}...
	action          string // what follows /v1/brokers/{id}, e.g. "decommission"
}

func parseRequest(path string) (request, bool) {
	parts := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 4)
	if len(parts) < 3 || parts[0] == "" || parts[1] == "" {
		return request{}, false
	}
	ordinal, err := strconv.Atoi(parts[2])
	if err != nil || ordinal < 0 {
		return request{}, false
	}
	r := request{namespace: parts[0], name: parts[1], ordinal: ordinal, rest: "/", nodeID: -1}
	if len(parts) == 4 {
		r.rest = "/" + parts[3]
	}
	if tail, ok := strings.CutPrefix(r.rest, "/v1/brokers/"); ok {
		idText, action, _ := strings.Cut(tail, "/")
		if id, err := strconv.Atoi(idText); err == nil {
			r.nodeID = id
		}
		r.action = action
	}
	return r, true
}

// serve routes a request to the broker its path names, applies faults, then answers.
func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	if !s.enter() {
		abort(w)
	}
	defer s.inflight.Done()

	req, ok := parseRequest(hr.URL.Path)
	if !ok {
		s.log(Call{Ordinal: -1, Method: hr.Method, Path: hr.URL.Path, NodeID: -1}, http.StatusNotFound, "")
		writeReply(w, errorReply(http.StatusNotFound, "Not found"))
		return
	}
	call := Call{Namespace: req.namespace, Name: req.name, Ordinal: req.ordinal, Method: hr.Method, Path: req.rest, NodeID: req.nodeID}
	c, fault, running := s.route(req, hr.Method)
	if !running {
		s.log(call, 0, "pod not running")
		refuse(w)
		return
	}
	if !s.applyFault(w, hr, call, fault) {
		return
	}
	if s.opts.Username != "" {
		if u, p, ok := hr.BasicAuth(); !ok || u != s.opts.Username || p != s.opts.Password {
			s.log(call, http.StatusUnauthorized, fault.String())
			writeReply(w, errorReply(http.StatusUnauthorized, "Unauthorized"))
			return
		}
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
	s.mu.Unlock()
	if fault.DropReply {
		refuse(w)
		return
	}
	writeReply(w, rep)
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
	if c == nil || !c.podRunning[req.ordinal] {
		return nil, Fault{}, false
	}
	return c, s.pickFault(c, req.ordinal, method), true
}

// pickFault returns the most specific fault that applies. Callers hold s.mu.
func (s *Server) pickFault(c *Cluster, ordinal int, method string) Fault {
	if slot := c.brokerFaults[ordinal]; slot != nil {
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
	if f.Holding != nil {
		select {
		case f.Holding <- struct{}{}:
		case <-hr.Context().Done():
		case <-s.closing:
		}
	}
	select {
	case <-done:
		return
	case <-hr.Context().Done():
		s.log(call, 0, f.String()+", client gave up")
	case <-s.closing:
		s.log(call, 0, f.String()+", server closed")
	}
	abort(w)
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
