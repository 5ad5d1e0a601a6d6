package controller

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// The property: no irreversible step (maintenance on, a restart's pod delete, a decommission)
// ever runs while, at the instant of its call, a fact its row in the step table names is false.
// The facts are judged from the simulator's own state and the apiserver's objects at that
// instant, never from what the operator saw.
//
// An adversary may, before any admin call and any status write the operator makes, take any
// broker down or bring it back, fail the next PUT, put a broker's pod into ImagePullBackOff or
// CrashLoopBackOff (its broker down with it) or bring it back, make a broker's pre_restart_probe
// start or stop reporting a partition at risk, move the controller leadership, make the
// restarts that follow reclaim their load slowly (post_restart_probe), or, during a
// scale-down, raise the topic's replication factor above the brokers that would remain (or
// lower it back) right before the operator reads the partitions or writes status. It does not act between the operator's
// last read of a fact and the irreversible call that follows it: no operator can close that
// window, and the rule asks only that nothing of the operator's own lies in it.
//
// It runs 2,000 schedules by default, 200 under -race (defaultPropertySchedules), so make unit
// runs it a second time without -race. To keep schedules cheap, the fake clientsets serve from
// plain trackers (servePlain) and the simulator answers in process (admintest.Server.Transport).
var (
	propertySchedules = flag.Int("controller.property-schedules", defaultPropertySchedules, "random schedules TestIrreversibleStepsHoldTheirFacts runs")
	propertySeed      = flag.Uint64("controller.property-seed", 1, "seed of TestIrreversibleStepsHoldTheirFacts' first schedule; schedule i uses seed+i")
)

// factChunk is how many schedules share one harness: starting informers costs more than a
// schedule, and a chunk keeps the call logs short.
const factChunk = 50

func TestIrreversibleStepsHoldTheirFacts(t *testing.T) {
	total := uint64(*propertySchedules)
	seen := map[string]int{}
	for first := uint64(0); first < total; first += factChunk {
		seed, n := *propertySeed+first, min(factChunk, total-first)
		t.Run(fmt.Sprintf("seeds=%d..%d", seed, seed+n-1), func(t *testing.T) { runFactChunk(t, seed, n, seen) })
		if t.Failed() {
			return
		}
	}
	t.Logf("moves and judged calls: %v", seen)
	// Enough schedules make every move, and the calls they are to test: a run that made none
	// would pass without testing them.
	if total >= 200 {
		for _, what := range []string{"down", "stuck", "risk", "leader", "recovery", "503", "stuck pod deleted", "judged with a risk read", "recovery waited", "rf", "decommission judged",
			"pool move", "change of mind", "decommission judged for joined pools", "pool move with a rollout"} {
			if seen[what] == 0 {
				t.Errorf("%d schedules made no %q", total, what)
			}
		}
	}
}

// runFactChunk runs n schedules on one cluster of three brokers, seeds seed to seed+n-1. Each
// schedule starts from a steady cluster and ends when it is steady again.
func runFactChunk(t *testing.T, seed, n uint64, seen map[string]int) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards(), pools: []string{"blue"}})
	h.bringUp(3)
	a := &adversary{t: t, h: h, seen: seen}
	a.install()
	// Patches of one feature release, both with the restart probes (25.1 and later): Redpanda
	// goes up and down between them (upgrade path), and a broker runs its pod's image's version
	// from its next start.
	images := []string{"redpanda:v25.1.2", "redpanda:v25.1.1"}
	for i := range n {
		a.reset(seed + i)
		h.cluster.SetMaintenanceDrainTime(time.Duration(a.rng.IntN(2)) * pollInterval)
		// One schedule in eight moves the brokers to a pool; the others draw as they always did,
		// so that each seed's schedule stays what it was.
		scaleDown, poolMove := a.rng.IntN(4) == 0, i%8 == 7
		scaleDown = scaleDown && !poolMove
		image := images[i%2]
		// A rollout's partitions have a replica on every broker, so that a restart keeps a
		// majority of each while the others are up (at RF 2 it never would, and a broker with
		// the restart probes would never restart); a scale-down's need somewhere to go.
		h.cluster.SetReplicationFactor(3)
		a.setFactor(3)
		switch {
		case scaleDown:
			a.setFactor(2)
			h.cluster.SetReplicationFactor(2)
			image = h.stored().Spec.Image
			h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
		case poolMove && i%16 == 15:
			// A move of two brokers to blue and a new image in one patch: the move goes
			// first, then the default pool's broker that stays restarts, the only one of its
			// pool but not of the cluster, with maintenance mode like any other.
			a.movePools(1, 2)
			h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = image })
			a.seen["pool move"]++
			a.seen["pool move with a rollout"]++
		case poolMove:
			// Every broker of the default pool to pool blue, and a change of mind in one
			// schedule of three: the default pool set back while the move is under way.
			image = h.stored().Spec.Image
			a.movePools(0, 3)
			a.seen["pool move"]++
		default:
			h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = image })
		}
		for o := range 3 {
			h.cluster.SetPodVersion(o, strings.TrimPrefix(image, "redpanda:"))
			h.cluster.Pool("blue").SetPodVersion(o, strings.TrimPrefix(image, "redpanda:"))
		}
		if !a.drive(image) {
			t.Fatalf("seed %d: not done after 60 reconciles: status %+v\n%s", seed+i, h.stored().Status, a.log())
		}
		if t.Failed() {
			t.Fatalf("seed %d broke the rule; rerun it with -run 'TestIrreversibleStepsHoldTheirFacts' -args -controller.property-seed=%d -controller.property-schedules=%d", seed+i, seed, i+1)
		}
		if scaleDown {
			h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 3 })
			h.settle(20)
		}
		if poolMove {
			// Back to the default pool, blue removed, with no adversary: the next schedule
			// starts steady on a cluster without pools.
			h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas, s.Pools = 3, nil })
			for range 40 {
				if _, err := h.reconcile(); err != nil {
					t.Logf("seed %d: back from blue: %v", seed+i, err)
				}
				if bc := h.stored(); !step.HasPools(bc) && bc.Status.CurrentReplicas == 3 && len(h.poolPods("blue")) == 0 {
					break
				}
			}
			if bc := h.stored(); step.HasPools(bc) {
				t.Fatalf("seed %d: blue was not removed: status %+v", seed+i, bc.Status)
			}
			h.settle(20)
		}
	}
}

// movePools sets the default pool to def brokers and pool blue to blue, in one spec change. A
// move to blue is, one time in three, changed back half-way (changeOfMind).
func (a *adversary) movePools(def, blue int32) {
	bp := bluePool(blue)
	bp.NodeSelector = nil
	a.h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas, s.Pools = def, []v1alpha1.BrokerPool{bp} })
	a.changeOfMind = def == 0 && a.rng.IntN(3) == 0
}

// drive reconciles until the cluster is steady with every pod on image, the adversary acting
// meanwhile; false if it is not within 60 reconciles.
func (a *adversary) drive(image string) bool {
	h := a.h
	for i := range 60 {
		h.simClock.Advance(pollInterval)
		if i == 40 {
			// A wait that reads nothing from the brokers (a pool's shrink held while another
			// pool's pod is not Ready) gives the adversary no call to act before: bring every
			// broker back, and end its budget, as the budget's end would.
			a.set(true)
			a.mu.Lock()
			a.budget = 0
			a.mu.Unlock()
			a.restore("after 40 reconciles")
			a.set(false)
			h.syncInformers()
		}
		if a.changeOfMind && i == 4 {
			a.changeOfMind = false
			a.note("change of mind: the default pool back to 3, blue to 0")
			a.seen["change of mind"]++
			bp := bluePool(0)
			bp.NodeSelector = nil
			h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas, s.Pools = 3, []v1alpha1.BrokerPool{bp} })
		}
		a.set(true)
		_, err := h.c.sync(h.ctx, testKey)
		a.set(false)
		if err != nil {
			a.note("reconcile: %v", err)
		}
		h.playStatefulSet()
		h.syncInformers()
		if factScheduleDone(h, image) {
			a.set(true)
			a.restore("after the schedule")
			a.set(false)
			h.syncInformers()
			return true
		}
	}
	return false
}

// adversary changes the brokers between the operator's calls, and checks each irreversible
// call against the simulator's state when it is made.
type adversary struct {
	t      *testing.T
	h      *harness
	mu     sync.Mutex
	rng    *rand.Rand
	budget int  // changes left; then every broker comes back and the adversary stops
	active bool // only while a reconcile runs
	trace  []string
	// risky are the ordinals whose pre_restart_probe the adversary made report a risk.
	risky map[int]bool
	// seen counts the moves made and the calls judged, by kind, over the whole test.
	seen map[string]int
	// rf is the schedule's replication factor; raised: the adversary raised it above.
	rf     int
	raised bool
	// changeOfMind: the schedule's move to blue is to be changed back a few reconciles in.
	changeOfMind bool
}

// setFactor sets the schedule's replication factor.
func (a *adversary) setFactor(rf int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rf, a.raised = rf, false
}

func (a *adversary) reset(seed uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rng = rand.New(rand.NewPCG(seed, 0x5eed))
	a.budget = 1 + a.rng.IntN(6)
	a.trace = []string{fmt.Sprintf("seed %d", seed)}
	a.h.cluster.SetFault(admintest.Fault{})
	a.h.cluster.SetRecoveryTime(0)
	a.h.cluster.SetControllerLeader(-1)
}

func factScheduleDone(h *harness, image string) bool {
	bc := h.stored()
	st := bc.Status
	if st.Restart != nil || st.DecommissioningBroker != nil || st.CurrentReplicas != bc.Spec.Replicas {
		return false
	}
	for _, p := range bc.Spec.Pools {
		if i := slices.IndexFunc(st.Pools, func(e v1alpha1.PoolStatus) bool { return e.Name == p.Name }); (i < 0 && p.Replicas > 0) || (i >= 0 && st.Pools[i].Replicas != p.Replicas) {
			return false
		}
	}
	for _, p := range h.pods() {
		if p.Spec.Containers[0].Image != image {
			return false
		}
	}
	return true
}

// install hooks the adversary in front of every admin call (the admin client's transport) and
// every status write and pod delete (fake clientset reactors). The admin calls reach the
// simulator in process, with no loopback connection.
func (a *adversary) install() {
	sim := a.h.sim.Transport()
	a.h.c.brokers.SetTransport(roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if irreversibleAdminCall(req) {
			a.checkAdmin(req)
		} else {
			a.act("before " + req.Method + " " + req.URL.Path)
		}
		resp, err := sim.RoundTrip(req)
		if err == nil && strings.HasSuffix(req.URL.Path, "/post_restart_probe") {
			a.noteRecovery(resp)
		}
		return resp, err
	}))
	a.h.brokers.PrependReactor("patch", "brokerclusters", func(action k8stesting.Action) (bool, runtime.Object, error) {
		a.act("before a status write")
		return false, nil, nil
	})
	a.h.kube.PrependReactor("delete", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		a.checkPodDelete(action.(k8stesting.DeleteAction).GetName())
		return false, nil, nil
	})
}

// noteRecovery counts a post_restart_probe answer below 100: the operator asked a broker that
// had not reclaimed its load yet.
func (a *adversary) noteRecovery(resp *http.Response) {
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var r struct {
		PC *int `json:"load_reclaimed_pc"`
	}
	if err == nil && json.Unmarshal(body, &r) == nil && r.PC != nil && *r.PC < 100 {
		a.mu.Lock()
		a.seen["recovery waited"]++
		a.mu.Unlock()
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

func irreversibleAdminCall(req *http.Request) bool {
	return req.Method == http.MethodPut &&
		(strings.HasSuffix(req.URL.Path, "/maintenance") || strings.HasSuffix(req.URL.Path, "/decommission"))
}

func (a *adversary) set(active bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.active = active
}

func (a *adversary) note(format string, args ...any) {
	a.trace = append(a.trace, fmt.Sprintf(format, args...))
}

func (a *adversary) log() string { return "  " + strings.Join(a.trace, "\n  ") }

// act may change one thing: take a running broker down or make its pod unable to start, bring
// a stopped one back, make the next PUT fail with 503, toggle a risk in a broker's
// pre_restart_probe, move the controller leadership, set how long the next restarted brokers
// take to reclaim their load, or, in a scale-down, raise the topic's replication factor above
// the brokers that would remain or lower it back. When its budget is spent it brings every broker
// back and clears the risks and the raised factor, once.
func (a *adversary) act(where string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.active || a.budget == 0 || a.rng.IntN(3) != 0 {
		return
	}
	a.budget--
	down, up := a.brokersByState()
	// A scale-down's own move, drawn only there, so that the other schedules' moves stay as
	// they were.
	if a.budget > 0 && a.rf < 3 && (where == "before GET /v1/cluster/partitions" || where == "before a status write") && a.rng.IntN(3) == 0 {
		a.toggleFactor(where)
		a.seen["rf"]++
		return
	}
	switch k := a.rng.IntN(9); {
	case a.budget == 0:
		a.restoreLocked(where)
	case k == 0:
		a.h.cluster.SetFault(admintest.Fault{Status: http.StatusServiceUnavailable, Method: http.MethodPut, Times: 1})
		a.note("%s: the next PUT fails with 503", where)
		a.seen["503"]++
	case k <= 2 && len(down) > 0:
		a.bringUp(down[a.rng.IntN(len(down))], where)
	case k == 3 && len(up) > 0:
		o := up[a.rng.IntN(len(up))]
		reason := []string{"ImagePullBackOff", "CrashLoopBackOff"}[a.rng.IntN(2)]
		a.h.cluster.Down(o)
		a.setPodStuck(o, reason)
		a.note("%s: ordinal %d's pod in %s", where, o, reason)
		a.seen["stuck"]++
	case k == 4 && len(up) > 0:
		o := up[a.rng.IntN(len(up))]
		a.toggleRisk(o, where)
		a.seen["risk"]++
	case k == 5 && len(up) > 0:
		o := up[a.rng.IntN(len(up))]
		a.h.cluster.SetControllerLeader(o)
		a.note("%s: controller leadership to ordinal %d", where, o)
		a.seen["leader"]++
	case k == 6:
		d := time.Duration(a.rng.IntN(4)) * pollInterval
		a.h.cluster.SetRecoveryTime(d)
		a.note("%s: restarted brokers reclaim their load over %s", where, d)
		a.seen["recovery"]++
	case len(up) > 0:
		o := up[a.rng.IntN(len(up))]
		a.h.cluster.Down(o)
		a.setPodReady(o, false)
		a.note("%s: ordinal %d down", where, o)
		a.seen["down"]++
	}
}

// restore brings every stopped broker back.
func (a *adversary) restore(where string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.restoreLocked(where)
}

func (a *adversary) restoreLocked(where string) {
	down, _ := a.brokersByState()
	for _, o := range down {
		a.bringUp(o, where)
	}
	for o := range a.risky {
		a.toggleRisk(o, where)
	}
	if a.raised {
		a.toggleFactor(where)
	}
}

// toggleFactor raises the topic's replication factor to 3, above the two brokers a scale-down
// leaves, or lowers it back.
func (a *adversary) toggleFactor(where string) {
	rf := 3
	if a.raised {
		rf = a.rf
	}
	a.raised = !a.raised
	a.h.cluster.SetReplicationFactor(rf)
	a.note("%s: replication factor %d", where, rf)
}

// toggleRisk makes the ordinal's pre_restart_probe report an acks=1 partition at risk, or stop
// reporting it.
func (a *adversary) toggleRisk(ordinal int, where string) {
	if a.risky == nil {
		a.risky = map[int]bool{}
	}
	if a.risky[ordinal] {
		delete(a.risky, ordinal)
		a.h.cluster.SetRestartRisks(ordinal, admin.RestartRisks{})
		a.note("%s: ordinal %d's pre_restart_probe reports no added risk", where, ordinal)
		return
	}
	a.risky[ordinal] = true
	a.h.cluster.SetRestartRisks(ordinal, admin.RestartRisks{Acks1DataLoss: []string{"kafka/orders/0"}})
	a.note("%s: ordinal %d's pre_restart_probe reports acks=1 data at risk", where, ordinal)
}

func (a *adversary) bringUp(ordinal int, where string) {
	a.h.cluster.Join(ordinal)
	a.setPodReady(ordinal, true)
	a.note("%s: ordinal %d back", where, ordinal)
}

// brokersByState lists the ordinals of the default pool's member brokers whose pods are stopped
// and running: the adversary acts on the default pool's brokers, which a move takes away or
// brings back.
func (a *adversary) brokersByState() (down, up []int) {
	for _, b := range a.h.cluster.Brokers() {
		switch {
		case b.Pool != "" || b.Status == admin.MembershipRemoved:
		case b.PodRunning:
			up = append(up, b.Ordinal)
		default:
			down = append(down, b.Ordinal)
		}
	}
	return down, up
}

// setPodReady sets the Ready condition of the ordinal's pod in the apiserver, as the kubelet
// does when the broker's readiness probe fails or passes again.
func (a *adversary) setPodReady(ordinal int, ready bool) {
	gvr := corev1.SchemeGroupVersion.WithResource("pods")
	name := fmt.Sprintf("%s-%d", testName, ordinal)
	obj, err := a.h.kubeTrack.Get(gvr, testNamespace, name)
	if err != nil {
		return // being replaced: the new pod starts Ready
	}
	pod := obj.(*corev1.Pod).DeepCopy()
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
		pod.Status.Phase, pod.Status.ContainerStatuses = corev1.PodRunning, nil
	}
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
	if err := a.h.kubeTrack.Update(gvr, pod, testNamespace, metav1.UpdateOptions{}); err != nil {
		a.t.Errorf("set pod %s ready=%v: %v", name, ready, err)
	}
}

// setPodStuck makes the ordinal's pod one that cannot start by itself, as the kubelet reports a
// container waiting in reason (brokerpod.Stuck): not Ready, Pending for an image pull.
func (a *adversary) setPodStuck(ordinal int, reason string) {
	gvr := corev1.SchemeGroupVersion.WithResource("pods")
	name := fmt.Sprintf("%s-%d", testName, ordinal)
	obj, err := a.h.kubeTrack.Get(gvr, testNamespace, name)
	if err != nil {
		return
	}
	pod := obj.(*corev1.Pod).DeepCopy()
	phase := corev1.PodRunning
	if reason == "ImagePullBackOff" {
		phase = corev1.PodPending
	}
	pod.Status.Phase = phase
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: pod.Spec.Containers[0].Name, Image: pod.Spec.Containers[0].Image, RestartCount: 3,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: "set by the adversary"}}}}
	if err := a.h.kubeTrack.Update(gvr, pod, testNamespace, metav1.UpdateOptions{}); err != nil {
		a.t.Errorf("set pod %s stuck: %v", name, err)
	}
}

// checkAdmin judges a maintenance-on or decommission call by the simulator's state now.
func (a *adversary) checkAdmin(req *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.active {
		return
	}
	var id int
	var what string
	if _, err := fmt.Sscanf(req.URL.Path[strings.Index(req.URL.Path, "/v1/brokers/"):], "/v1/brokers/%d/%s", &id, &what); err != nil {
		a.t.Errorf("cannot parse %s", req.URL.Path)
		return
	}
	a.note("%s %s", req.Method, req.URL.Path)
	for _, b := range a.h.cluster.Brokers() {
		if b.Status == admin.MembershipRemoved {
			continue
		}
		if !b.PodRunning {
			a.violation("%s for broker %d while broker %d (ordinal %d) is down", what, id, b.NodeID, b.Ordinal)
		}
		if what == "decommission" && b.NodeID != id && b.Status == admin.MembershipDraining {
			a.violation("decommission of broker %d while broker %d is draining", id, b.NodeID)
		}
	}
	if what == "decommission" {
		for _, on := range a.inMaintenance() {
			a.violation("decommission of broker %d while broker %d is in maintenance", id, on)
		}
		a.checkFits(id)
		a.checkJoined(id)
	}
	if what == "maintenance" {
		a.checkRisk("maintenance on", id)
	}
}

// checkFits judges a decommission by the partitions the simulator holds at that instant
// (FactDataFits): none may have more replicas than spec.replicas brokers would remain.
func (a *adversary) checkFits(id int) {
	a.seen["decommission judged"]++
	spec := a.h.stored().Spec
	target := int(spec.Replicas)
	for _, p := range spec.Pools {
		target += int(p.Replicas) // the brokers every pool keeps remain
	}
	for name, replicas := range a.h.cluster.PartitionReplicas() {
		if len(replicas) > target {
			a.violation("decommission of broker %d while partition %s has %d replicas and %d brokers would remain", id, name, len(replicas), target)
			return
		}
	}
}

// checkJoined judges a decommission in a cluster with pools: every other pool's brokers below
// its current count are active, running members at that instant (a move's new brokers join
// before an old one leaves).
func (a *adversary) checkJoined(id int) {
	st := a.h.stored().Status
	pool := ""
	for _, b := range a.h.cluster.Brokers() {
		if b.NodeID == id {
			pool = b.Pool
		}
	}
	for _, p := range st.Pools {
		name := p.Name
		if name == v1alpha1.DefaultPoolName {
			name = ""
		}
		if name == pool {
			continue
		}
		joined := 0
		for _, b := range a.h.cluster.Brokers() {
			if b.Pool == name && b.Ordinal < int(p.Replicas) && b.Status == admin.MembershipActive && b.PodRunning {
				joined++
			}
		}
		a.seen["decommission judged for joined pools"]++
		if joined < int(p.Replicas) {
			a.violation("decommission of broker %d while pool %s has %d of its %d brokers joined", id, p.Name, joined, p.Replicas)
		}
	}
}

// checkRisk judges a restart's call (maintenance on, or its pod's delete) by what the broker's
// own pre_restart_probe answers at that instant (FactRestartSafe; the property test's clusters
// never block on RF 1 partitions).
func (a *adversary) checkRisk(what string, id int) {
	for _, b := range a.h.cluster.Brokers() {
		if b.NodeID != id || b.Status == admin.MembershipRemoved {
			continue
		}
		r, ok := a.h.cluster.RestartRisks(b.Ordinal)
		if ok {
			a.seen["judged with a risk read"]++
		}
		if ok && len(r.Unavailable)+len(r.FullAcksProduceUnavailable)+len(r.Acks1DataLoss) > 0 {
			a.violation("%s for broker %d while its pre_restart_probe reports %+v", what, id, r)
		}
	}
}

// checkPodDelete judges a pod delete the operator makes: a restart's delete needs every other
// broker up and the pod itself Ready.
func (a *adversary) checkPodDelete(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.active {
		return // the StatefulSet's own deletes (playStatefulSet)
	}
	a.note("DELETE pod %s", name)
	for _, b := range a.h.cluster.Brokers() {
		if b.Status != admin.MembershipRemoved && !b.PodRunning && fmt.Sprintf("%s-%d", testName, b.Ordinal) != name {
			a.violation("pod %s deleted while broker %d (ordinal %d) is down", name, b.NodeID, b.Ordinal)
		}
	}
	obj, err := a.h.kubeTrack.Get(corev1.SchemeGroupVersion.WithResource("pods"), testNamespace, name)
	if err != nil {
		return
	}
	pod := obj.(*corev1.Pod)
	ordinal, _ := brokerpod.Ordinal(pod, testName)
	own, _ := a.h.cluster.NodeID(ordinal)
	if _, stuck := brokerpod.Stuck(pod, time.Now()); stuck {
		// ReplaceStuckPod: the pod is unavailable already; no other broker may be draining or
		// in maintenance.
		a.note("  (pod %s cannot start)", name)
		a.seen["stuck pod deleted"]++
		for _, b := range a.h.cluster.Brokers() {
			if b.Status == admin.MembershipDraining && b.NodeID != own {
				a.violation("stuck pod %s deleted while broker %d is draining", name, b.NodeID)
			}
		}
		for _, on := range a.inMaintenance() {
			if on != own {
				a.violation("stuck pod %s deleted while broker %d is in maintenance", name, on)
			}
		}
		return
	}
	if !brokerpod.IsReady(pod) {
		a.violation("pod %s deleted while it is not Ready", name)
	}
	a.checkRisk("delete of pod "+name, own)
}

// inMaintenance lists the brokers the simulator's call log shows in maintenance now.
func (a *adversary) inMaintenance() []int {
	on := map[int]bool{}
	for _, c := range a.h.cluster.Calls() {
		if c.Path != fmt.Sprintf("/v1/brokers/%d/maintenance", c.NodeID) || c.Status != http.StatusOK {
			continue
		}
		on[c.NodeID] = c.Method == http.MethodPut
	}
	var out []int
	for id, yes := range on {
		if yes {
			out = append(out, id)
		}
	}
	return out
}

func (a *adversary) violation(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	a.note("VIOLATION: %s", msg)
	a.t.Errorf("%s\nschedule so far:\n%s", msg, a.log())
}
