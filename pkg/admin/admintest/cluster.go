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
	byPod           map[pod]*member // the broker each pod runs now (latest joined)
	podRunning      map[pod]bool
	fault           faultSlot
	brokerFaults    map[pod]*faultSlot
	// pools are the named pools (pool.go), by name; the default pool is the cluster itself.
	pools map[string]*Pool
	// sec is how the cluster's admin API is secured; it never changes.
	sec Security
	// creds is the credential store (users.go), made on first use from sec.
	creds map[string]scramUser
	// adminPort is the first of the cluster's own ports (see AdminPort).
	adminPort int
	// rf is the replication factor of the simulated partitions.
	rf int
	// rfOnDecommission, when positive, becomes rf as the next decommission is accepted
	// (SetReplicationFactorOnDecommission).
	rfOnDecommission int
	// maintenanceDrainTime is how long leadership takes to drain off a broker in maintenance.
	maintenanceDrainTime time.Duration
	// recoveryTime is how long a restarted broker takes to reclaim its load (postRestartProbe).
	recoveryTime time.Duration
	// extraRisks are restart risks SetRestartRisks adds to what preRestartProbe derives, by
	// pod.
	extraRisks map[pod]admin.RestartRisks
	// doubleDecommissions are this cluster's share of Server.DoubleDecommissions.
	doubleDecommissions []string
	// healthReportMissing makes the brokers answer as while the health report cannot be had.
	healthReportMissing bool
	// podVersion and podVolume are what a pod runs when it next joins.
	podVersion map[pod]string
	podVolume  map[pod]string
	// racks and disks are what the broker of a pod reports as its rack and its data disk
	// (placement.go).
	racks map[pod]string
	disks map[pod]diskSpaceJSON
	// leaderNodeID is the controller leader SetControllerLeader chose, -1 for none.
	leaderNodeID int
	// advertiseLoopback: Options.AdvertiseLoopback for this cluster alone.
	advertiseLoopback bool
	// podDown marks pods that stopped for now (Down), not for good (Leave).
	podDown map[pod]bool
	// config is the cluster configuration (clusterconfig.go), made on first use.
	config *clusterConfig
	// activeVersion and originalVersion are the cluster's active logical version and the one it
	// was created at (features.go); 0 until the first broker joins.
	activeVersion, originalVersion int64
	// incompatible marks pods that run a binary the cluster refused to let join (features.go,
	// joinRefusal): the pod runs, its broker is not alive.
	incompatible map[pod]bool
	// recoveries are the slow recoveries of restarted brokers, in the order they began.
	recoveries []Recovery
}

// Recovery is the time a restarted broker took to reclaim its load: from its Join until its
// post_restart_probe reports 100 (a broker at Redpanda 25.1 or later, restarted while the
// cluster's recovery time was set). Pool is the broker's pool, "" for the default pool.
type Recovery struct {
	NodeID, Ordinal int
	Pool            string
	From, To        time.Time
}

// Recoveries returns the slow recoveries so far, in the order they began.
func (c *Cluster) Recoveries() []Recovery {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	return slices.Clone(c.recoveries)
}

// member is one broker's state in the cluster's membership table.
type member struct {
	nodeID     int
	pod        pod
	status     admin.MembershipStatus
	drainStart time.Time
	// decommissioned is set by the first accepted decommission and cleared by a recommission.
	decommissioned bool
	// drained is how much of the drain time has been spent making progress; lastTick is when it
	// was last counted. A drain makes no progress while its replicas have nowhere to go.
	drained  time.Duration
	lastTick time.Time
	// maintenance is set while the broker is in maintenance mode, since maintenanceStart.
	maintenance      bool
	maintenanceStart time.Time
	// version is the Redpanda version the broker runs; volume names its data (may be empty).
	version, volume string
	// restartedAt is when the broker last came back after a restart (a Join of a member), and
	// recoveryTime the cluster's recovery time then: a recovery keeps the time it began with.
	restartedAt  time.Time
	recoveryTime time.Duration
}

// BrokerState is a snapshot of one broker, for tests.
type BrokerState struct {
	NodeID int
	// Pool and Ordinal are the broker's pod: Pool "" is the default pool; Ordinal is -1 for a
	// ghost (AddGhost).
	Pool    string
	Ordinal int
	Status  admin.MembershipStatus
	// PodRunning reports whether the broker's pod is running this broker.
	PodRunning bool
}

// Join makes the pod with this ordinal run a broker and returns its node ID. A pod whose broker
// is still a member (active or draining) keeps it, as a restarted broker keeps its data; otherwise
// a broker with a fresh node ID joins. Node IDs are never reused and never equal the ordinal.
// The broker runs the version and volume set by SetPodVersion and SetPodVolume. A pod that comes
// back with the volume of a broker that was removed is refused, as members_manager.cc refuses it
// ("Preventing decommissioned node ... from joining the cluster", see Server.RefusedJoins): its
// pod runs, but no broker joins, and Join returns -1. So is a pod whose version's logical
// versions do not reach the cluster's active one (joinRefusal, features.go). Pool.Join joins
// a named pool's pod.
func (c *Cluster) Join(ordinal int) int { return c.join(pod{ordinal: ordinal}) }

func (c *Cluster) join(p pod) int {
	if p.ordinal < 0 {
		panic(fmt.Sprintf("admintest: Join(%d): negative ordinal", p.ordinal))
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.refresh()
	c.podRunning[p] = true
	delete(c.podDown, p)
	version := c.podVersion[p]
	if version == "" {
		version = c.s.opts.Version
	}
	volume := c.podVolume[p]
	delete(c.incompatible, p)
	if why := c.joinRefusal(version); why != "" {
		if c.incompatible == nil {
			c.incompatible = map[pod]bool{}
		}
		c.incompatible[p] = true
		c.s.refusals = append(c.s.refusals, fmt.Sprintf("%s/%s: %s (%s, after call #%d)", c.Namespace, c.Name, why, p, len(c.s.calls)))
		return -1
	}
	if m := c.byPod[p]; m != nil && m.status != admin.MembershipRemoved && (volume == "" || volume == m.volume) {
		m.version = version
		m.restartedAt, m.recoveryTime = c.s.clock.Now(), c.recoveryTime
		if m.recoveryTime > 0 && versionAtLeast(version, 25, 1) {
			c.recoveries = append(c.recoveries, Recovery{NodeID: m.nodeID, Ordinal: p.ordinal, Pool: p.pool, From: m.restartedAt, To: m.restartedAt.Add(m.recoveryTime)})
		}
		c.configRestarted(m.nodeID)
		c.advanceActiveVersion()
		return m.nodeID
	}
	if volume != "" {
		for _, m := range c.members {
			if m.volume == volume && m.status == admin.MembershipRemoved {
				c.byPod[p] = m
				c.s.refusals = append(c.s.refusals, fmt.Sprintf("%s/%s: Preventing decommissioned node %d with UUID %s from joining the cluster (%s, after call #%d)",
					c.Namespace, c.Name, m.nodeID, volume, p, len(c.s.calls)))
				return -1
			}
		}
	}
	id := c.nextNodeID
	if id == p.ordinal {
		id++
	}
	c.nextNodeID = id + 1
	m := &member{nodeID: id, pod: p, status: admin.MembershipActive, version: version, volume: volume}
	c.members[id] = m
	c.byPod[p] = m
	c.configRestarted(id)
	c.advanceActiveVersion()
	return id
}

// SetPodVersion sets the Redpanda version the pod with this ordinal runs from its next Join on
// (a restart with a new image). Empty means Options.Version.
func (c *Cluster) SetPodVersion(ordinal int, version string) {
	c.setPodVersion(pod{ordinal: ordinal}, version)
}

func (c *Cluster) setPodVersion(p pod, version string) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.podVersion[p] = version
}

// SetPodVolume names the data volume the pod with this ordinal runs on from its next Join on. A
// new name starts a fresh broker; the name of a removed broker's volume gets the join refused.
// Empty (the default) means "a fresh volume whenever the pod's broker is no longer a member".
func (c *Cluster) SetPodVolume(ordinal int, volume string) {
	c.setPodVolume(pod{ordinal: ordinal}, volume)
}

func (c *Cluster) setPodVolume(p pod, volume string) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.podVolume[p] = volume
}

// AddGhost adds a broker that is an active member but runs in no pod and is never alive: a node
// that died, or whose pod lost its volume mid-decommission. It returns its node ID.
func (c *Cluster) AddGhost() int {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	id := c.nextNodeID
	c.nextNodeID = id + 1
	c.members[id] = &member{nodeID: id, pod: noPod, status: admin.MembershipActive, version: c.s.opts.Version}
	return id
}

// SetReplicationFactor sets the replication factor of the cluster's partitions. A drain makes
// progress only while at least that many other brokers are active (members_backend cannot
// place the replicas otherwise: the decommission status then lists allocation failures), and
// health_overview reports partitions under-replicated while fewer brokers are alive.
func (c *Cluster) SetReplicationFactor(rf int) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.refresh()
	c.rf = max(rf, 1)
	c.rfOnDecommission = 0
}

// SetReplicationFactorOnDecommission raises the partitions' replication factor to rf as the next
// decommission is accepted: a topic created with a large factor just after the scale-down's
// pre-flight read the partitions, which no read before the call can see coming. The drain then
// stalls with allocation failures, as SetReplicationFactor describes.
func (c *Cluster) SetReplicationFactorOnDecommission(rf int) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.rfOnDecommission = rf
}

// SetMaintenanceDrainTime sets how long leadership takes to move off a broker in maintenance
// mode; until then its maintenance status says transferring and not finished. Zero: at once.
func (c *Cluster) SetMaintenanceDrainTime(d time.Duration) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.maintenanceDrainTime = d
}

// SetRecoveryTime sets how long a restarted broker takes to reclaim its load after it comes back
// (Join of a member): its post_restart_probe reports load_reclaimed_pc growing evenly from 0 to 100
// over d on the simulator's clock. Zero (the default) reclaims it at once. It applies to the
// restarts that follow; a recovery under way keeps its time (see Recoveries).
func (c *Cluster) SetRecoveryTime(d time.Duration) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.recoveryTime = d
}

// SetRestartRisks adds risks to what the pre_restart_probe of the broker the pod with this
// ordinal runs derives from the cluster (preRestartProbe): the partitions a test names, such as
// acks=1 data the broker leads and its followers have not replicated yet, which the simulator's
// uniform partitions cannot show by themselves. The zero value removes them.
func (c *Cluster) SetRestartRisks(ordinal int, risks admin.RestartRisks) {
	c.setRestartRisks(pod{ordinal: ordinal}, risks)
}

func (c *Cluster) setRestartRisks(p pod, risks admin.RestartRisks) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if c.extraRisks == nil {
		c.extraRisks = map[pod]admin.RestartRisks{}
	}
	c.extraRisks[p] = risks
}

// SetControllerLeader moves controller leadership to the broker the pod with this ordinal runs
// (while it is an alive member); a negative ordinal goes back to the default, the lowest alive
// member. The leader is what health_overview's controller_id, the controller partition and a
// Redirect fault name.
func (c *Cluster) SetControllerLeader(ordinal int) {
	c.setControllerLeader(pod{ordinal: ordinal})
}

func (c *Cluster) setControllerLeader(p pod) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.leaderNodeID = -1
	if m := c.byPod[p]; p.ordinal >= 0 && m != nil {
		c.leaderNodeID = m.nodeID
	}
}

// SetAdvertiseLoopback makes this cluster's brokers advertise 127.0.0.1 as their internal RPC
// address, as Options.AdvertiseLoopback does for every cluster.
func (c *Cluster) SetAdvertiseLoopback(on bool) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.advertiseLoopback = on
}

// SetHealthReportMissing makes the cluster answer as while its health report cannot be had:
// GET /v1/brokers is 503 (server.cc get_brokers) and health_overview says "no_health_report".
func (c *Cluster) SetHealthReportMissing(missing bool) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.healthReportMissing = missing
}

// Leave says the pod with this ordinal is gone for good (the StatefulSet shrank). If its broker is
// still a member, that is recorded as a violation (see Server.LeftBeforeDecommission); the broker
// stays listed as not alive, as a real cluster would list it.
func (c *Cluster) Leave(ordinal int) { c.leave(pod{ordinal: ordinal}) }

func (c *Cluster) leave(p pod) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.refresh()
	delete(c.podRunning, p)
	delete(c.podDown, p)
	delete(c.incompatible, p)
	m := c.byPod[p]
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
		fmt.Sprintf("%s/%s: broker node %d (%s) left while %s, after call #%d", c.Namespace, c.Name, m.nodeID, m.pod, why, len(c.s.calls)))
}

// Down says the pod with this ordinal stopped for now (crash, restart): connections to it are
// refused and its broker is listed as not alive. Join brings it back. Nothing is recorded.
func (c *Cluster) Down(ordinal int) { c.down(pod{ordinal: ordinal}) }

func (c *Cluster) down(p pod) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.refresh()
	if c.podRunning[p] {
		c.checkOverlap(p, "restarting")
	}
	delete(c.podRunning, p)
	delete(c.incompatible, p)
	c.podDown[p] = true
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
			m.maintenance = false
		}
	}
}

// NodeID returns the node ID of the member broker that the pod with this ordinal runs.
func (c *Cluster) NodeID(ordinal int) (int, bool) { return c.nodeID(pod{ordinal: ordinal}) }

func (c *Cluster) nodeID(p pod) (int, bool) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.refresh()
	m := c.byPod[p]
	if m == nil || m.status == admin.MembershipRemoved {
		return 0, false
	}
	return m.nodeID, true
}

// Brokers returns every broker of every pool that ever joined, removed ones included, by node
// ID.
func (c *Cluster) Brokers() []BrokerState {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.refresh()
	out := make([]BrokerState, 0, len(c.members))
	for _, m := range c.brokersLocked() {
		out = append(out, BrokerState{NodeID: m.nodeID, Pool: m.pod.pool, Ordinal: m.pod.ordinal, Status: m.status, PodRunning: c.alive(m)})
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
func (c *Cluster) SetBrokerFault(ordinal int, f Fault) { c.setBrokerFault(pod{ordinal: ordinal}, f) }

func (c *Cluster) setBrokerFault(p pod, f Fault) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.brokerFaults[p] = &faultSlot{f: f}
}

// Config returns a client configuration for brokers 0 to replicas-1 of this cluster (their own
// listeners), carrying the cluster's superuser credentials and the server's CA; a cluster that
// requires client certificates needs one added (ClientCertPEM, ClientKeyPEM).
func (c *Cluster) Config(replicas int) admin.Config { return c.clientConfig(c.URLs(replicas)) }

func (c *Cluster) clientConfig(urls []string) admin.Config {
	cfg := admin.Config{URLs: urls, Username: c.sec.Username, Password: c.sec.Password}
	if c.sec.TLS || c.s.opts.TLS {
		cfg.CACertPEM = c.s.caPEM
	}
	return cfg
}

// refresh counts drain progress and finishes the drains whose time has come. Callers hold s.mu.
func (c *Cluster) refresh() {
	now := c.s.clock.Now()
	for _, id := range slices.Sorted(maps.Keys(c.members)) {
		m := c.members[id]
		if m.status != admin.MembershipDraining {
			continue
		}
		if c.canPlace(m) && now.After(m.lastTick) {
			m.drained += now.Sub(m.lastTick)
		}
		m.lastTick = now
		if m.drained >= c.drainTime {
			m.status = admin.MembershipRemoved
			m.maintenance = false
		}
	}
	c.advanceActiveVersion()
}

// canPlace reports whether a draining broker's replicas have somewhere to go: at least rf
// active brokers besides it. Callers hold s.mu.
func (c *Cluster) canPlace(m *member) bool {
	others := 0
	for _, o := range c.members {
		if o != m && o.status == admin.MembershipActive {
			others++
		}
	}
	return others >= c.rf
}

// alive reports whether m is running in its pod. Callers hold s.mu.
func (c *Cluster) alive(m *member) bool {
	return c.podRunning[m.pod] && c.byPod[m.pod] == m && !c.incompatible[m.pod]
}

// replicasLeft is how many replicas a draining broker still holds, falling linearly to zero
// over the drain time. Callers hold s.mu.
func (c *Cluster) replicasLeft(m *member) int {
	total := c.s.opts.ReplicasPerBroker
	if m.status != admin.MembershipDraining || c.drainTime <= 0 {
		return 0
	}
	remaining := c.drainTime - m.drained
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
func (c *Cluster) SyncPods(running []int, replicas int) { c.syncPods("", running, replicas) }

// syncPods is SyncPods for the pods of one pool; the other pools' pods are not its concern.
func (c *Cluster) syncPods(pool string, running []int, replicas int) {
	c.s.mu.Lock()
	wasRunning := maps.Clone(c.podRunning)
	c.s.mu.Unlock()
	listed := make(map[int]bool, len(running))
	for _, ordinal := range running {
		listed[ordinal] = true
		if p := (pod{pool, ordinal}); !wasRunning[p] {
			c.join(p)
		}
	}
	c.s.mu.Lock()
	var gone []int
	for p, up := range c.podRunning {
		if up && p.pool == pool && !listed[p.ordinal] {
			gone = append(gone, p.ordinal)
		}
	}
	c.s.mu.Unlock()
	slices.Sort(gone)
	for _, ordinal := range gone {
		if ordinal >= replicas {
			c.leave(pod{pool, ordinal})
		} else {
			c.down(pod{pool, ordinal})
		}
	}
}
