package admintest

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"

	"github.com/broker-operator/broker-operator/pkg/admin"
)

// A cluster's brokers run in pools: the default pool, StatefulSet <cluster> with pods
// <cluster>-<ordinal>, and named pools, StatefulSet <cluster>-<pool> with pods
// <cluster>-<pool>-<ordinal>. Ordinals repeat across pools, so a pod is known by its pool and
// its ordinal together. Membership (node IDs, draining, removed) stays the cluster's: Redpanda
// knows nothing of pools, and its controller hands out the next ID that is neither a member nor
// a removed node, cluster-wide (redpanda-data/redpanda src/v/cluster/members_manager.cc,
// get_or_assign_node_id).

// pod names one broker pod: its pool ("" for the default pool) and its ordinal in that pool's
// StatefulSet. A ghost broker runs in none: ordinal -1.
type pod struct {
	pool    string
	ordinal int
}

// noPod is where a ghost broker runs.
var noPod = pod{ordinal: -1}

// String names the pod in reports; a default-pool pod as it was named before pools.
func (p pod) String() string {
	if p.pool == "" {
		return "ordinal " + strconv.Itoa(p.ordinal)
	}
	return fmt.Sprintf("pool %s ordinal %d", p.pool, p.ordinal)
}

// Pool is one pool of a simulated cluster: the pods of one StatefulSet and their listeners.
// Cluster.Pool returns it; its methods are the Cluster's pod methods for this pool's pods, and
// are safe for concurrent use.
type Pool struct {
	c    *Cluster
	name string
	// adminPort is the first of the pool's own ports; it never changes.
	adminPort int
}

// poolName is what a pool may be called: a DNS label that starts with a letter, as the
// BrokerCluster CRD has it (pkg/apis/brokers/v1alpha1 BrokerPool.Name).
var poolName = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

// Pool returns the pool of this name, reserving Options.PortsPerCluster ports for its
// listeners on first use, as Server.Cluster does for a cluster; "" is the default pool. It
// panics on a name that is not a DNS label starting with a letter, on "default" (the name
// status.pools gives the default pool, which no named pool may take), and when no ports are
// free. Declare a pool before rendering BrokerAddressTemplate or AddressTemplateFor: a
// template names only the pools that exist when it is made.
func (c *Cluster) Pool(name string) *Pool {
	if name == "" {
		return &Pool{c: c, adminPort: c.adminPort}
	}
	if !ValidPoolName(name) {
		panic(fmt.Sprintf("admintest: %s/%s: %q is not a pool name: a DNS label starting with a letter, not \"default\"", c.Namespace, c.Name, name))
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if p := c.pools[name]; p != nil {
		return p
	}
	p := &Pool{c: c, name: name}
	if err := c.s.listenPool(c, p); err != nil {
		panic(err)
	}
	c.pools[name] = p
	return p
}

// ValidPoolName reports whether Cluster.Pool takes name for a named pool.
func ValidPoolName(name string) bool {
	return name != "default" && len(name) <= 63 && poolName.MatchString(name)
}

// Pools returns the names of the cluster's named pools, sorted; the default pool is not listed.
func (c *Cluster) Pools() []string {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	return slices.Sorted(maps.Keys(c.pools))
}

// Name is the pool's name, "" for the default pool.
func (p *Pool) Name() string { return p.name }

// StatefulSet is the name of the pool's StatefulSet and headless Service: the cluster's name
// for the default pool, <cluster>-<pool> for a named one. An address template renders the
// pool's brokers with this as .Name.
func (p *Pool) StatefulSet() string { return p.c.setName(p.name) }

// AdminPort is the first of the pool's ports: the broker with ordinal O listens on AdminPort+O.
// The default pool's is the cluster's AdminPort.
func (p *Pool) AdminPort() int { return p.adminPort }

// URLs returns the admin API base URLs of the pool's brokers 0 to replicas-1, each its own
// listener. It panics when replicas exceeds Options.PortsPerCluster.
func (p *Pool) URLs(replicas int) []string { return p.c.urls(p.adminPort, p.name, replicas) }

// Config returns a client configuration for the pool's brokers 0 to replicas-1, as
// Cluster.Config does for the default pool's.
func (p *Pool) Config(replicas int) admin.Config { return p.c.clientConfig(p.URLs(replicas)) }

// Join makes the pool's pod with this ordinal run a broker, as Cluster.Join does for the
// default pool's, and returns its node ID: unique across every pool of the cluster.
func (p *Pool) Join(ordinal int) int { return p.c.join(p.pod(ordinal)) }

// Leave says the pool's pod with this ordinal is gone for good, as Cluster.Leave.
func (p *Pool) Leave(ordinal int) { p.c.leave(p.pod(ordinal)) }

// Down says the pool's pod with this ordinal stopped for now, as Cluster.Down.
func (p *Pool) Down(ordinal int) { p.c.down(p.pod(ordinal)) }

// NodeID returns the node ID of the member broker the pool's pod with this ordinal runs.
func (p *Pool) NodeID(ordinal int) (int, bool) { return p.c.nodeID(p.pod(ordinal)) }

// SyncPods brings the pool's pods in line with what its StatefulSet of the given replica
// count runs, as Cluster.SyncPods does for the default pool; other pools' pods are left alone.
func (p *Pool) SyncPods(running []int, replicas int) { p.c.syncPods(p.name, running, replicas) }

// SetPodVersion sets the version the pool's pod with this ordinal runs from its next Join on.
func (p *Pool) SetPodVersion(ordinal int, version string) {
	p.c.setPodVersion(p.pod(ordinal), version)
}

// SetPodVolume names the data volume the pool's pod with this ordinal runs on from its next
// Join on, as Cluster.SetPodVolume.
func (p *Pool) SetPodVolume(ordinal int, volume string) { p.c.setPodVolume(p.pod(ordinal), volume) }

// SetBrokerFault sets the fault for the pool's broker with this ordinal; the zero Fault clears it.
func (p *Pool) SetBrokerFault(ordinal int, f Fault) { p.c.setBrokerFault(p.pod(ordinal), f) }

// SetRack sets the rack the broker of the pool's pod with this ordinal reports.
func (p *Pool) SetRack(ordinal int, rack string) { p.c.setRack(p.pod(ordinal), rack) }

// SetDisk sets the data disk the broker of the pool's pod with this ordinal reports.
func (p *Pool) SetDisk(ordinal int, free, total int64) { p.c.setDisk(p.pod(ordinal), free, total) }

// SetControllerLeader moves controller leadership to the broker the pool's pod with this
// ordinal runs, as Cluster.SetControllerLeader.
func (p *Pool) SetControllerLeader(ordinal int) { p.c.setControllerLeader(p.pod(ordinal)) }

// SetRestartRisks adds risks to the pre_restart_probe of the pool's pod with this ordinal, as
// Cluster.SetRestartRisks.
func (p *Pool) SetRestartRisks(ordinal int, risks admin.RestartRisks) {
	p.c.setRestartRisks(p.pod(ordinal), risks)
}

// RestartRisks returns what the pre_restart_probe of the pool's pod with this ordinal answers
// now, as Cluster.RestartRisks.
func (p *Pool) RestartRisks(ordinal int) (admin.RestartRisks, bool) {
	return p.c.restartRisksOf(p.pod(ordinal))
}

func (p *Pool) pod(ordinal int) pod { return pod{pool: p.name, ordinal: ordinal} }

// setName is the StatefulSet of a pool: the cluster's name for the default pool.
func (c *Cluster) setName(pool string) string {
	if pool == "" {
		return c.Name
	}
	return c.Name + "-" + pool
}
