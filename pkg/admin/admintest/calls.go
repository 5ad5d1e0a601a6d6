package admintest

import (
	"fmt"
	"slices"
	"time"
)

// Call is one HTTP request the simulator received, in the order the cluster saw it.
type Call struct {
	// Seq numbers calls from 1 in arrival order across the whole server.
	Seq int
	// At is the simulator clock's time when the call was handled.
	At time.Time
	// Namespace and Name identify the cluster the URL addressed.
	Namespace, Name string
	// Pool and Ordinal are the broker (pod) the URL addressed: Pool "" is the default pool.
	Pool    string
	Ordinal int
	// Method and Path are the request's, Path below the broker prefix (e.g. /v1/brokers).
	Method, Path string
	// NodeID is the node ID in the path, -1 if none.
	NodeID int
	// User is the user name the request authenticated as ("" when anonymous).
	User string
	// Status is the HTTP status sent, 0 when none was (connection closed, client gave up).
	Status int
	// Fault describes the injected fault that shaped the answer ("" if none), or why no answer
	// was sent ("pod not running", "client gave up").
	Fault string
}

// String writes the addressed pod as name[ordinal] for the default pool and name/pool[ordinal]
// for a named one.
func (c Call) String() string {
	name := c.Name
	if c.Pool != "" {
		name += "/" + c.Pool
	}
	s := fmt.Sprintf("#%d %s/%s[%d] %s %s -> %d", c.Seq, c.Namespace, name, c.Ordinal, c.Method, c.Path, c.Status)
	if c.Fault != "" {
		s += " (" + c.Fault + ")"
	}
	return s
}

// record appends a call to the log and returns its sequence number. Callers hold s.mu.
func (s *Server) record(c Call) int {
	c.Seq = len(s.calls) + 1
	c.At = s.clock.Now()
	s.calls = append(s.calls, c)
	return c.Seq
}

// Calls returns every call so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// Calls returns this cluster's calls, in order.
func (c *Cluster) Calls() []Call {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	var out []Call
	for _, call := range c.s.calls {
		if call.Namespace == c.Namespace && call.Name == c.Name {
			out = append(out, call)
		}
	}
	return out
}

// DoubleDecommissions describes this cluster's decommission requests for a broker that was not
// an active member, as Server.DoubleDecommissions does for every cluster.
func (c *Cluster) DoubleDecommissions() []string {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	return slices.Clone(c.doubleDecommissions)
}

// DoubleDecommissions describes every decommission request that reached a cluster for a broker
// that was not an active member at that moment: already draining, already removed, or never a
// member. A broker recommissioned and then decommissioned again is not counted: that is a
// legitimate scale-down, scale-up, scale-down sequence. Requests turned away by an injected fault
// never reached the cluster and are not counted either.
func (s *Server) DoubleDecommissions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.doubleDecommissions)
}

// LeftBeforeDecommission describes every broker whose pod left (Cluster.Leave) while the broker
// was still a member: its decommission was never requested, was called off, or had not finished.
func (s *Server) LeftBeforeDecommission() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.leftBeforeDecommission)
}

// RefusedJoins describes every pod that came back with the data of a removed broker and was
// refused, as members_manager.cc refuses it, and every pod whose binary's logical versions do
// not reach the cluster's active one, as service.cc join_node refuses it.
func (s *Server) RefusedJoins() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.refusals)
}

// Overlaps describes every moment a broker went into maintenance, or its pod down for a
// restart, while another broker of the same cluster was in maintenance or restarting: what a
// rolling restart must never do. A broker whose pod goes down while it is itself in maintenance
// is not counted.
func (s *Server) Overlaps() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.overlaps)
}
