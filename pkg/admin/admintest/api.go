package admintest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin"
)

// Wire shapes of Redpanda's broker.json models, written independently of the client's decoder.
type brokerJSON struct {
	NodeID             int    `json:"node_id"`
	NumCores           int    `json:"num_cores"`
	MembershipStatus   string `json:"membership_status"`
	IsAlive            bool   `json:"is_alive"`
	InternalRPCAddress string `json:"internal_rpc_address"`
	InternalRPCPort    int    `json:"internal_rpc_port"`
}

type partitionJSON struct {
	Namespace string `json:"ns"`
	Topic     string `json:"topic"`
	Partition int    `json:"partition"`
}

type decommissionStatusJSON struct {
	Finished           bool            `json:"finished"`
	ReplicasLeft       int             `json:"replicas_left"`
	AllocationFailures []string        `json:"allocation_failures"`
	Partitions         []partitionJSON `json:"partitions"`
}

// internalRPCPort is Redpanda's default internal RPC port.
const internalRPCPort = 33145

// reply is what a handler decided to answer.
type reply struct {
	status int
	body   any // marshalled as JSON; nil sends an empty body
}

func errorReply(status int, format string, args ...any) reply {
	return reply{status: status, body: map[string]any{"message": fmt.Sprintf(format, args...), "code": status}}
}

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
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		abort(w)
		return
	}
	s.inflight.Add(1)
	s.mu.Unlock()
	defer s.inflight.Done()

	req, ok := parseRequest(hr.URL.Path)
	if !ok {
		s.mu.Lock()
		s.record(Call{Ordinal: -1, Method: hr.Method, Path: hr.URL.Path, NodeID: -1, Status: http.StatusNotFound})
		s.mu.Unlock()
		writeReply(w, errorReply(http.StatusNotFound, "Not found"))
		return
	}
	call := Call{Namespace: req.namespace, Name: req.name, Ordinal: req.ordinal, Method: hr.Method, Path: req.rest, NodeID: req.nodeID}
	log := func(status int, fault string) {
		call.Status, call.Fault = status, fault
		s.mu.Lock()
		s.record(call)
		s.mu.Unlock()
	}

	s.mu.Lock()
	c := s.clusters[clusterKey{req.namespace, req.name}]
	running := c != nil && c.podRunning[req.ordinal]
	var fault Fault
	if running {
		fault = s.pickFault(c, req.ordinal, hr.Method)
	}
	s.mu.Unlock()

	switch {
	case !running:
		log(0, "pod not running")
		refuse(w)
		return
	case fault.Refuse:
		log(0, fault.String())
		refuse(w)
		return
	case fault.Hang:
		notifyHolding(hr, fault, s.closing)
		select {
		case <-hr.Context().Done():
			log(0, fault.String()+", client gave up")
		case <-s.closing:
			log(0, fault.String()+", server closed")
		}
		abort(w)
		return
	}
	if fault.Latency > 0 {
		notifyHolding(hr, fault, s.closing)
		t := time.NewTimer(fault.Latency)
		select {
		case <-t.C:
		case <-hr.Context().Done():
			t.Stop()
			log(0, fault.String()+", client gave up")
			abort(w)
		case <-s.closing:
			t.Stop()
			log(0, fault.String()+", server closed")
			abort(w)
			return
		}
	}
	if fault.Status != 0 {
		log(fault.Status, fault.String())
		writeReply(w, errorReply(fault.Status, "injected fault"))
		return
	}
	if s.opts.Username != "" {
		if u, p, ok := hr.BasicAuth(); !ok || u != s.opts.Username || p != s.opts.Password {
			log(http.StatusUnauthorized, fault.String())
			writeReply(w, errorReply(http.StatusUnauthorized, "Unauthorized"))
			return
		}
	}

	// Act and log under one lock, so the call log orders calls as the cluster applied them.
	s.mu.Lock()
	c.refresh()
	rep := c.handle(req, hr.Method)
	call.Status, call.Fault = rep.status, fault.String()
	seq := s.record(call)
	if req.action == "decommission" && hr.Method == http.MethodPut {
		c.checkDecommission(req, seq)
	}
	s.mu.Unlock()
	writeReply(w, rep)
}

// notifyHolding tells the fault's Holding channel, if any, that a request is being held.
func notifyHolding(hr *http.Request, f Fault, closing <-chan struct{}) {
	if f.Holding == nil {
		return
	}
	select {
	case f.Holding <- struct{}{}:
	case <-hr.Context().Done():
	case <-closing:
	}
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

// handle applies one admin API request to the cluster, as Redpanda's admin server does.
// Callers hold s.mu.
func (c *Cluster) handle(req request, method string) reply {
	switch {
	case req.rest == "/v1/brokers" && method == http.MethodGet:
		return c.listBrokers()
	case !strings.HasPrefix(req.rest, "/v1/brokers/"):
		return errorReply(http.StatusNotFound, "Not found")
	case req.nodeID < 0:
		return errorReply(http.StatusBadRequest, "Broker id: %s, must be an integer", strings.SplitN(strings.TrimPrefix(req.rest, "/v1/brokers/"), "/", 2)[0])
	}
	m := c.members[req.nodeID]
	if m != nil && m.status == admin.MembershipRemoved && !(req.action == "decommission" && method == http.MethodGet) {
		m = nil // removed brokers are no longer members
	}
	switch {
	case req.action == "decommission" && method == http.MethodPut:
		if m == nil {
			return errorReply(http.StatusNotFound, "broker with id %d not found", req.nodeID)
		}
		if m.status != admin.MembershipActive {
			return errorReply(http.StatusBadRequest, "can not update broker %d state, invalid state transition requested", req.nodeID)
		}
		m.status = admin.MembershipDraining
		m.drainStart = c.s.clock.Now()
		m.decommissioned = true
		return reply{status: http.StatusOK}
	case req.action == "recommission" && method == http.MethodPut:
		if m == nil {
			return errorReply(http.StatusNotFound, "broker with id %d not found", req.nodeID)
		}
		if m.status != admin.MembershipDraining {
			return errorReply(http.StatusBadRequest, "can not update broker %d state, invalid state transition requested", req.nodeID)
		}
		m.status = admin.MembershipActive
		return reply{status: http.StatusOK}
	case req.action == "decommission" && method == http.MethodGet:
		return c.decommissionStatus(req.nodeID, m)
	default:
		return errorReply(http.StatusNotFound, "Not found")
	}
}

func (c *Cluster) listBrokers() reply {
	list := make([]brokerJSON, 0, len(c.members))
	for _, b := range c.brokersLocked() {
		if b.status == admin.MembershipRemoved {
			continue
		}
		list = append(list, brokerJSON{
			NodeID: b.nodeID, NumCores: 1, MembershipStatus: string(b.status), IsAlive: c.alive(b),
			InternalRPCAddress: c.stableAddress(b.ordinal), InternalRPCPort: internalRPCPort,
		})
	}
	return reply{status: http.StatusOK, body: list}
}

func (c *Cluster) decommissionStatus(nodeID int, m *member) reply {
	switch {
	case m == nil:
		return errorReply(http.StatusNotFound, "Node %d does not exists", nodeID)
	case m.status == admin.MembershipRemoved:
		return reply{status: http.StatusOK, body: decommissionStatusJSON{Finished: true, AllocationFailures: []string{}, Partitions: []partitionJSON{}}}
	case m.status != admin.MembershipDraining:
		return errorReply(http.StatusBadRequest, "Node %d is not decommissioning", nodeID)
	}
	left := c.replicasLeft(m)
	st := decommissionStatusJSON{ReplicasLeft: left, AllocationFailures: []string{}, Partitions: make([]partitionJSON, 0, left)}
	for p := range left {
		st.Partitions = append(st.Partitions, partitionJSON{Namespace: "kafka", Topic: "simulated", Partition: p})
	}
	return reply{status: http.StatusOK, body: st}
}

// checkDecommission records a decommission request that reached the cluster for a broker that
// was not active just before it. Callers hold s.mu; the request has been applied already, so the
// reply status tells what the broker was.
func (c *Cluster) checkDecommission(req request, seq int) {
	call := c.s.calls[seq-1]
	var was string
	switch call.Status {
	case http.StatusOK:
		return
	case http.StatusBadRequest:
		if c.members[req.nodeID] == nil {
			return // a malformed ID, not a decision about a broker
		}
		was = "already draining"
	case http.StatusNotFound:
		if m := c.members[req.nodeID]; m != nil {
			was = "already removed (its decommission had finished)"
		} else {
			was = "never a member"
		}
	default:
		return
	}
	c.s.doubleDecommissions = append(c.s.doubleDecommissions,
		fmt.Sprintf("%s/%s: call #%d decommissioned node %d (via ordinal %d) but it was %s", c.Namespace, c.Name, seq, req.nodeID, req.ordinal, was))
}

func writeReply(w http.ResponseWriter, r reply) {
	w.Header().Set("Content-Type", "application/json")
	if r.body == nil {
		w.WriteHeader(r.status)
		return
	}
	data, err := json.Marshal(r.body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(r.status)
	_, _ = w.Write(data)
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
