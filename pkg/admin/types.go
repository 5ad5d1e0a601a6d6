package admin

import "context"

// MembershipStatus is a broker's membership state as the admin API reports it.
// Values the package does not know are kept as given.
type MembershipStatus string

// Membership states Redpanda reports (model::membership_state).
const (
	MembershipActive   MembershipStatus = "active"
	MembershipDraining MembershipStatus = "draining"
	MembershipRemoved  MembershipStatus = "removed"
)

// Broker is one entry of GET /v1/brokers.
type Broker struct {
	NodeID           int
	MembershipStatus MembershipStatus
	IsAlive          bool
	// InternalRPCAddress is usually the broker's host name; for a broker run by a StatefulSet it is
	// the pod's stable host name (see StableHostName and OrdinalFromAddress).
	InternalRPCAddress string
	InternalRPCPort    int
}

// DecommissionStatus is the answer of GET /v1/brokers/{id}/decommission.
type DecommissionStatus struct {
	// Finished is true once the broker has been drained and removed from the cluster.
	Finished bool
	// ReplicasLeft counts partition replicas still hosted by the broker.
	ReplicasLeft int
	// AllocationFailures names partitions ("ns/topic/partition") that could not be placed elsewhere.
	AllocationFailures []string
	// MovingPartitions counts partitions currently moving away from the broker.
	MovingPartitions int
}

// Client is what the controller depends on. Every call honours ctx and the configured timeout,
// and makes at most one request per broker URL: retries belong to the caller's workqueue.
type Client interface {
	// Brokers lists the cluster's members (removed brokers are not listed).
	Brokers(ctx context.Context) ([]Broker, error)
	// Decommission starts draining a broker. ErrAlreadyDecommissioned: it is draining already;
	// ErrBrokerNotFound: no such member (never existed, or already removed).
	Decommission(ctx context.Context, nodeID int) error
	// Recommission stops a drain in progress. ErrNotDecommissioning: the broker is not draining.
	Recommission(ctx context.Context, nodeID int) error
	// DecommissionStatus reports drain progress; Finished once the broker has been removed.
	// ErrNotDecommissioning: the broker is an active member.
	DecommissionStatus(ctx context.Context, nodeID int) (DecommissionStatus, error)
}
