package admintest

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin"
)

// firstNodeID is where node IDs start; far from small ordinals so that a test mixing the two
// fails loudly.
const firstNodeID = 100

// Cluster is one simulated broker cluster. All of its methods are safe for concurrent use.
type Cluster struct {
	s               *Server
	Namespace, Name string
	drainTime       time.Duration
	nextNodeID      int
	members         map[int]*member // by node ID, removed ones included: IDs are never reused
	byOrdinal       map[int]*member // the broker each pod ordinal runs now (latest joined)
	podRunning      map[int]bool
	fault           faultSlot
	brokerFaults    map[int]*faultSlot
}

// member is one broker's state in the cluster's membership table.
type member struct {
	nodeID, ordinal int
	status          admin.MembershipStatus
	drainStart      time.Time
	// decommissioned is set by the first accepted decommission and cleared by a recommission.
	decommissioned bool
	// maintenance is set while the broker is in maintenance mode.
	maintenance bool
}

// BrokerState is a snapshot of one broker, for tests.
type BrokerState struct {
	NodeID  int
	Ordinal int
	Status  admin.MembershipStatus
	// PodRunning reports whether the pod of this broker's ordinal is running this broker.
	PodRunning bool
}

// Join makes the pod with this ordinal run a broker and returns its node ID. A pod whose broker
// is still a member (active or draining) keeps it, as a restarted broker keeps its data; otherwise
// a broker with a fresh node ID joins. Node IDs are never reused and never equal the ordinal.
func (c *Cluster) Join(ordinal int) int {
	if ordinal < 0 {
		panic(fmt.Sprintf("admintest: Join(%d): negative ordinal", ordinal))
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.refresh()
	c.podRunning[ordinal] = true
	if m := c.byOrdinal[ordinal]; m != nil && m.status != admin.MembershipRemoved {
		return m.nodeID
	}
	id := c.nextNodeID
	if id == ordinal {
		id++
	}
	c.nextNodeID = id + 1
	m := &member{nodeID: id, ordinal: ordinal, status: admin.MembershipActive}
	c.members[id] = m
	c.byOrdinal[ordinal] = m
	return id
}

// Leave says the pod with this ordinal is gone for good (the StatefulSet shrank). If its broker is
// still a member, that is recorded as a violation (see Server.LeftBeforeDecommission); the broker
// stays listed as not alive, as a real cluster would list it.
func (c *Cluster) Leave(ordinal int) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.refresh()
	delete(c.podRunning, ordinal)
	m := c.byOrdinal[ordinal]
	if m == nil || m.status == admin.MembershipRemoved {
		return
	}
	why := "its decommission was never requested"
	switch {
	case m.status == admin.MembershipDraining:
		why = fmt.Sprintf("it was still draining (decommission requested at %s)", m.drainStart.Format(time.RFC3339Nano))
	case m.decommissioned:
		why = "its decommission was called off"
	}
	c.s.leftBeforeDecommission = append(c.s.leftBeforeDecommission,
		fmt.Sprintf("%s/%s: broker node %d (ordinal %d) left while %s, after call #%d", c.Namespace, c.Name, m.nodeID, m.ordinal, why, len(c.s.calls)))
}

// Down says the pod with this ordinal stopped for now (crash, restart): connections to it are
// refused and its broker is listed as not alive. Join brings it back. Nothing is recorded.
func (c *Cluster) Down(ordinal int) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	delete(c.podRunning, ordinal)
}

// SetDrainTime sets how long a decommission drains before the broker leaves the member list.
// It applies to drains in progress too.
func (c *Cluster) SetDrainTime(d time.Duration) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.drainTime = d
}

// FinishDrains completes every drain in progress now, whatever the clock says.
func (c *Cluster) FinishDrains() {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	for _, m := range c.members {
		if m.status == admin.MembershipDraining {
			m.status = admin.MembershipRemoved
		}
	}
}

// NodeID returns the node ID of the member broker that the pod with this ordinal runs.
func (c *Cluster) NodeID(ordinal int) (int, bool) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.refresh()
	m := c.byOrdinal[ordinal]
	if m == nil || m.status == admin.MembershipRemoved {
		return 0, false
	}
	return m.nodeID, true
}

// Brokers returns every broker that ever joined, removed ones included, by node ID.
func (c *Cluster) Brokers() []BrokerState {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.refresh()
	out := make([]BrokerState, 0, len(c.members))
	for _, m := range c.brokersLocked() {
		out = append(out, BrokerState{NodeID: m.nodeID, Ordinal: m.ordinal, Status: m.status, PodRunning: c.alive(m)})
	}
	return out
}

// brokersLocked returns every member, removed ones included, by node ID. Callers hold s.mu.
func (c *Cluster) brokersLocked() []*member {
	out := make([]*member, 0, len(c.members))
	for _, id := range slices.Sorted(maps.Keys(c.members)) {
		out = append(out, c.members[id])
	}
	return out
}

// SetFault sets the fault for every broker of this cluster; the zero Fault clears it.
func (c *Cluster) SetFault(f Fault) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.fault.f = f
}

// SetBrokerFault sets the fault for the broker with this pod ordinal; the zero Fault clears it.
func (c *Cluster) SetBrokerFault(ordinal int, f Fault) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.brokerFaults[ordinal] = &faultSlot{f: f}
}

// URLs returns the admin API base URLs of brokers 0 to replicas-1.
func (c *Cluster) URLs(replicas int) []string {
	urls := make([]string, replicas)
	for i := range urls {
		urls[i] = c.s.BrokerURL(c.Namespace, c.Name, i)
	}
	return urls
}

// Config returns a client configuration for brokers 0 to replicas-1 of this cluster, carrying
// the server's credentials.
func (c *Cluster) Config(replicas int) admin.Config {
	return admin.Config{URLs: c.URLs(replicas), Username: c.s.opts.Username, Password: c.s.opts.Password}
}

// refresh finishes the drains whose time has come. Callers hold s.mu.
func (c *Cluster) refresh() {
	now := c.s.clock.Now()
	for _, m := range c.members {
		if m.status == admin.MembershipDraining && !now.Before(m.drainStart.Add(c.drainTime)) {
			m.status = admin.MembershipRemoved
		}
	}
}

// alive reports whether m is running in its pod. Callers hold s.mu.
func (c *Cluster) alive(m *member) bool {
	return c.podRunning[m.ordinal] && c.byOrdinal[m.ordinal] == m
}

// replicasLeft is how many replicas a draining broker still holds, falling linearly to zero
// over the drain time. Callers hold s.mu.
func (c *Cluster) replicasLeft(m *member) int {
	total := c.s.opts.ReplicasPerBroker
	if m.status != admin.MembershipDraining || c.drainTime <= 0 {
		return 0
	}
	remaining := m.drainStart.Add(c.drainTime).Sub(c.s.clock.Now())
	// Round up: a drain is not finished while any fraction of a replica is left.
	left := math.Ceil(float64(total) * remaining.Seconds() / c.drainTime.Seconds())
	return int(min(max(left, 0), float64(total)))
}

// SyncPods brings the simulated pods in line with what a StatefulSet of the given replica count
// runs: an ordinal in running whose pod was not running before joins (see Join); a pod that was
// running and is no longer listed left for good if its ordinal is at or above replicas (the
// StatefulSet shrank, see Leave), and is merely down otherwise (see Down). A pod that keeps
// running is left alone: a broker that finished its decommission stays out of the cluster while
// its pod waits to be removed, as a real one does. A test harness calls it on every pod event.
func (c *Cluster) SyncPods(running []int, replicas int) {
	c.s.mu.Lock()
	wasRunning := maps.Clone(c.podRunning)
	c.s.mu.Unlock()
	listed := make(map[int]bool, len(running))
	for _, ordinal := range running {
		listed[ordinal] = true
		if !wasRunning[ordinal] {
			c.Join(ordinal)
		}
	}
	c.s.mu.Lock()
	var gone []int
	for ordinal, up := range c.podRunning {
		if up && !listed[ordinal] {
			gone = append(gone, ordinal)
		}
	}
	c.s.mu.Unlock()
	slices.Sort(gone)
	for _, ordinal := range gone {
		if ordinal >= replicas {
			c.Leave(ordinal)
		} else {
			c.Down(ordinal)
		}
	}
}
