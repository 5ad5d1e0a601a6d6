package controller

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// maintenanceCalls lists the successful maintenance calls the simulator received, in order, as
// "on 102" or "off 102".
func (h *harness) maintenanceCalls() []string {
	var out []string
	for _, c := range h.cluster.Calls() {
		if c.Path != fmt.Sprintf("/v1/brokers/%d/maintenance", c.NodeID) || c.Status != 200 {
			continue
		}
		switch c.Method {
		case "PUT":
			out = append(out, fmt.Sprintf("on %d", c.NodeID))
		case "DELETE":
			out = append(out, fmt.Sprintf("off %d", c.NodeID))
		}
	}
	return out
}

// overlappingMaintenance returns the times a broker was put into maintenance while another one
// still was, from the simulator's call log, and the calls the simulator refused.
func (h *harness) overlappingMaintenance() []string {
	var out []string
	on := map[int]bool{}
	for _, c := range h.cluster.Calls() {
		if c.Path != fmt.Sprintf("/v1/brokers/%d/maintenance", c.NodeID) {
			continue
		}
		if c.Status != 200 {
			out = append(out, fmt.Sprintf("refused: %s", c))
			continue
		}
		if c.Method == "DELETE" {
			delete(on, c.NodeID)
			continue
		}
		for other := range on {
			if other != c.NodeID {
				out = append(out, fmt.Sprintf("broker %d into maintenance while %d is", c.NodeID, other))
			}
		}
		on[c.NodeID] = true
	}
	return out
}

// podDeletes lists the pods the controller deleted, in order.
func (h *harness) podDeletes() []string {
	var out []string
	for _, a := range h.kube.Actions() {
		if d, ok := a.(k8stesting.DeleteActionImpl); ok && a.GetResource().Resource == "pods" {
			out = append(out, d.GetName())
		}
	}
	return out
}

func (h *harness) podUIDs() map[string]types.UID {
	out := map[string]types.UID{}
	for _, p := range h.pods() {
		out[p.Name] = p.UID
	}
	return out
}

// checkRestartedOneAtATime checks a finished rolling restart of the brokers ids (ordinal to
// node ID): each went into maintenance once, highest ordinal first, never two at once; its pod
// was deleted in the same order and came back new; and the same brokers run afterwards.
func (h *harness) checkRestartedOneAtATime(ids map[int]int, before map[string]types.UID) {
	h.t.Helper()
	var calls, deletes []string
	for ord := len(ids) - 1; ord >= 0; ord-- {
		calls = append(calls, fmt.Sprintf("on %d", ids[ord]), fmt.Sprintf("off %d", ids[ord]))
		deletes = append(deletes, fmt.Sprintf("redpanda-%d", ord))
	}
	if got := h.maintenanceCalls(); !slices.Equal(got, calls) {
		h.t.Errorf("maintenance calls %v, want %v", got, calls)
	}
	if o := h.overlappingMaintenance(); len(o) > 0 {
		h.t.Errorf("two brokers in maintenance at once: %v", o)
	}
	if got := h.podDeletes(); !slices.Equal(got, deletes) {
		h.t.Errorf("pods deleted %v, want %v (highest ordinal first, once each)", got, deletes)
	}
	after := h.podUIDs()
	for name, uid := range before {
		if after[name] == uid {
			h.t.Errorf("pod %s was not restarted", name)
		}
	}
	if got := h.nodeIDs(); !maps.Equal(got, ids) {
		h.t.Errorf("brokers after the restarts %v, want the same brokers %v", got, ids)
	}
}

// reconcileAfterPoll lets a poll interval pass, the wait of a requeue during which a drain makes
// progress, and reconciles once. An error is logged only: callers judge progress from status.
func (h *harness) reconcileAfterPoll() {
	h.t.Helper()
	h.simClock.Advance(pollInterval)
	if _, err := h.reconcile(); err != nil {
		h.t.Logf("reconcile: %v", err)
	}
}

// rollOut reconciles until no broker is outdated and none is being restarted, checking after
// each reconcile that at most one pod of the cluster is away or replaced at a time.
func (h *harness) rollOut(max int, image string) {
	h.t.Helper()
	for range max {
		h.reconcileAfterPoll()
		bc := h.stored()
		done := bc.Status.Restart == nil && bc.Status.CurrentReplicas == bc.Spec.Replicas
		for _, p := range h.pods() {
			done = done && p.Spec.Containers[0].Image == image
		}
		if done {
			return
		}
	}
	h.t.Fatalf("rollout not done after %d reconciles: status %+v", max, h.stored().Status)
}

func TestRolloutRestartsOneBrokerAtATime(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	ids := h.nodeIDs()
	before := h.podUIDs()
	h.events()

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = "redpanda:v25.2.1" })
	h.rollOut(30, "redpanda:v25.2.1")

	h.checkRestartedOneAtATime(ids, before)
	st := h.stored().Status
	if st.UpdatedReplicas != 3 || st.Restart != nil || st.UpdateRevision == "" {
		t.Errorf("status after the rollout: updated %d, restart %+v, revision %q", st.UpdatedReplicas, st.Restart, st.UpdateRevision)
	}
	if meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionRestarting) {
		t.Error("Restarting condition still true after the rollout")
	}
	if d := h.sim.DoubleDecommissions(); len(d) > 0 || len(h.decommissionCalls()) > 0 {
		t.Errorf("a rollout decommissioned brokers: %v %v", h.decommissionCalls(), d)
	}
	events := strings.Join(h.events(), "\n")
	for _, e := range []string{"StartRestart", "RestartPod", "FinishRestart"} {
		if strings.Count(events, e) != 3 {
			t.Errorf("%d %s events, want 3:\n%s", strings.Count(events, e), e, events)
		}
	}
}

func TestRolloutWaitsForTheHealthGate(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	ids := h.nodeIDs()
	h.cluster.Down(0) // broker of ordinal 0 stops; its pod still looks Ready to Kubernetes

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = "redpanda:v25.2.1" })
	for range 3 {
		if _, err := h.reconcile(); err != nil {
			t.Fatal(err)
		}
	}
	st := h.stored().Status
	degraded := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded)
	if degraded == nil || degraded.Status != "True" || degraded.Reason != ReasonClusterUnhealthy ||
		!strings.Contains(degraded.Message, fmt.Sprintf("brokers down: [%d]", ids[0])) {
		t.Fatalf("Degraded %+v, want ClusterUnhealthy naming broker %d", degraded, ids[0])
	}
	if c := h.maintenanceCalls(); len(c) > 0 || len(h.podDeletes()) > 0 || st.Restart != nil {
		t.Fatalf("a restart started on an unhealthy cluster: maintenance %v, deletes %v, restart %+v", c, h.podDeletes(), st.Restart)
	}
	if !slices.ContainsFunc(h.events(), func(e string) bool { return strings.HasPrefix(e, "Warning WaitForHealthyCluster") }) {
		t.Error("no Warning event for the closed health gate")
	}

	// The emergency override opens the gate, but never waives "every other broker up": broker 0
	// is still down, so no broker goes into maintenance.
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.UnsafeSkipHealthGate = true })
	for range 3 {
		h.reconcileAfterPoll()
	}
	if c := h.maintenanceCalls(); len(c) > 0 {
		t.Fatalf("with the gate overridden and broker %d down, maintenance calls %v, want none", ids[0], c)
	}

	// With every broker up but the partitions under-replicated (a replication factor above the
	// broker count), the override lets the rollout go on.
	h.cluster.Join(0)
	h.cluster.SetReplicationFactor(4)
	for range 3 {
		h.reconcileAfterPoll()
	}
	if !slices.Contains(h.maintenanceCalls(), fmt.Sprintf("on %d", ids[2])) {
		t.Fatalf("maintenance %v with the gate overridden, want broker %d restarted", h.maintenanceCalls(), ids[2])
	}
}

func TestScaleDownWaitsForTheHealthGate(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	ids := h.nodeIDs()
	h.cluster.Down(1)

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	for range 3 {
		if _, err := h.reconcile(); err != nil {
			t.Fatal(err)
		}
	}
	st := h.stored().Status
	if calls := h.decommissionCalls(); len(calls) > 0 || st.DecommissioningBroker != nil {
		t.Fatalf("decommissioned %v on an unhealthy cluster", calls)
	}
	degraded := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded)
	if degraded == nil || degraded.Reason != ReasonClusterUnhealthy || !strings.Contains(degraded.Message, fmt.Sprintf("brokers down: [%d]", ids[1])) {
		t.Fatalf("Degraded %+v, want ClusterUnhealthy naming broker %d", degraded, ids[1])
	}

	h.cluster.Join(1) // the broker is back
	h.settle(10)
	if calls := h.decommissionCalls(); !slices.Equal(calls, []int{ids[2]}) {
		t.Fatalf("decommission calls %v, want [%d]", calls, ids[2])
	}
}

func TestScaleDownMidRestartWaitsForTheRestart(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	ids := h.nodeIDs()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = "redpanda:v25.2.1" })
	if _, err := h.reconcile(); err != nil {
		t.Fatal(err)
	}
	if r := h.stored().Status.Restart; r == nil {
		t.Fatal("no restart started")
	}
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	h.settle(20)

	// Broker 2's restart ran to maintenance off before its decommission began.
	var order []string
	for _, c := range h.cluster.Calls() {
		if c.NodeID == ids[2] && c.Method != "GET" && c.Status == 200 {
			order = append(order, c.Method+" "+c.Path[strings.LastIndex(c.Path, "/")+1:])
		}
	}
	if want := []string{"PUT maintenance", "DELETE maintenance", "PUT decommission"}; !slices.Equal(order, want) {
		t.Errorf("calls for broker %d: %v, want %v", ids[2], order, want)
	}
	h.rollOut(30, "redpanda:v25.2.1")
	if o := h.overlappingMaintenance(); len(o) > 0 {
		t.Errorf("two brokers in maintenance at once: %v", o)
	}
}

// While the informer lags behind every status write, no step is repeated: never two brokers in
// maintenance, never a pod deleted twice, never the replacement pod deleted.
func TestRolloutNeverRepeatsAStepOnAStaleRead(t *testing.T) {
	for _, tt := range []struct {
		name     string
		strategy ReadStrategy
		guards   Guards
	}{
		{"cache with the precondition", ReadCache, DefaultGuards()},
		{"writeback", ReadWriteback, DefaultGuards()},
		{"writeback without guards", ReadWriteback, noGuards},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOptions{strategy: tt.strategy, guards: tt.guards, hold: true})
			h.bringUp(3)
			h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Image = "redpanda:v25.2.1" })
			h.holding = true
			for range 40 {
				h.reconcileAfterPoll()
			}
			if o := h.overlappingMaintenance(); len(o) > 0 {
				t.Errorf("two brokers in maintenance at once: %v", o)
			}
			deletes := h.podDeletes()
			seen := map[string]bool{}
			for _, d := range deletes {
				if seen[d] {
					t.Errorf("pod %s deleted twice: %v", d, deletes)
				}
				seen[d] = true
			}
			if tt.strategy == ReadWriteback && h.counter("broker_operator_guard_fired_total", "guard", guardPrecondition) != 0 {
				t.Error("the precondition fired although the write-back cache served every write")
			}
			h.holding = false
			h.syncInformers()
			h.rollOut(30, "redpanda:v25.2.1")
			if o := h.overlappingMaintenance(); len(o) > 0 {
				t.Errorf("two brokers in maintenance at once: %v", o)
			}
		})
	}
}

func TestGhostBrokersAreReportedAndDecommissionedOnlyOptIn(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	ghost := h.cluster.Join(7) // a broker no pod of the cluster runs
	h.cluster.Down(7)
	h.events()

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 4 }) // a new pod: the admin API is asked
	h.settle(10)
	for range 2 {
		if _, err := h.reconcile(); err != nil {
			t.Fatal(err)
		}
	}
	st := h.stored().Status
	if !slices.Equal(st.GhostBrokers, []int32{int32(ghost)}) {
		t.Fatalf("status.ghostBrokers %v, want [%d]", st.GhostBrokers, ghost)
	}
	if c := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionGhostBrokers); c == nil || c.Status != "True" || !strings.Contains(c.Message, fmt.Sprint(ghost)) {
		t.Fatalf("GhostBrokers condition %+v", c)
	}
	if events := h.events(); slices.IndexFunc(events, func(e string) bool { return strings.HasPrefix(e, "Warning GhostBrokers") }) < 0 {
		t.Errorf("no GhostBrokers event in %v", events)
	}
	if g := h.gauge("broker_operator_ghost_brokers"); g != 1 {
		t.Errorf("ghost gauge %v, want 1", g)
	}
	if calls := h.decommissionCalls(); len(calls) > 0 {
		t.Fatalf("a ghost was decommissioned by default: %v", calls)
	}

	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.DecommissionGhostBrokers = true })
	for range 3 {
		if _, err := h.reconcile(); err != nil {
			t.Fatal(err)
		}
	}
	if calls := h.decommissionCalls(); !slices.Equal(calls, []int{ghost}) {
		t.Fatalf("decommission calls %v, want the ghost %d once", calls, ghost)
	}
}

// gauge reads a single-series gauge from the registry.
func (h *harness) gauge(name string) float64 {
	h.t.Helper()
	if m := h.singleSeries(name); m != nil {
		return m.GetGauge().GetValue()
	}
	return -1
}
