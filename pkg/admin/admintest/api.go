package admintest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

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
// status the cluster answered tells what the broker was.
func (c *Cluster) checkDecommission(req request, status, seq int) {
	var was string
	switch status {
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
