//go:build e2e

package soak

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/test/harness"
	"github.com/broker-operator/broker-operator/test/history"
)

// injectBrokerDownDuringRestart waits (up to two fault intervals) for a BrokerCluster whose status
// records a restart, then takes another running broker of it down in the simulator for the fault
// window, as a broker that crashes in the middle of a rolling restart: connections to it are
// refused and the admin API lists it as not alive, while its pod stays Ready.
func injectBrokerDownDuringRestart(ctx context.Context, h *rig) (string, error) {
	bc := h.awaitRestarting(ctx, 2*h.s.faultEvery)
	if bc == nil {
		return "no restart under way within two fault intervals; nothing taken down", nil
	}
	restarting := int(bc.Status.Restart.Ordinal)
	c := h.sim.Cluster(h.ns, bc.Name)
	ordinal, node, ok := otherRunningBroker(c, restarting)
	if !ok {
		return fmt.Sprintf("%s restarting ordinal %d, no other broker running", bc.Name, restarting), nil
	}
	// Down once the restarting broker is in maintenance: a down that lands between the
	// operator's last fact read and its maintenance call cannot be seen by any read, and the
	// invariant judges calls, not reads.
	if !awaitMaintenanceOn(ctx, c, int(bc.Status.Restart.NodeID), h.s.faultWindow) {
		return fmt.Sprintf("%s restarting ordinal %d: its broker not in maintenance within %s; nothing taken down", bc.Name, restarting, h.s.faultWindow), nil
	}
	before := len(h.sim.Calls())
	from := time.Now()
	c.Down(ordinal)
	i := h.addOutage(bc.Name, Outage{NodeID: node, From: from, Injected: true, Ordinal: ordinal, CallsBefore: before, CallsAfter: len(h.sim.Calls())})
	go h.bringBack(ctx, bc.Name, c, ordinal, node, i)
	return fmt.Sprintf("%s restarting ordinal %d (%s): node %d (ordinal %d) down for %s",
		bc.Name, restarting, bc.Status.Restart.Step, node, ordinal, h.s.faultWindow), nil
}

// awaitMaintenanceOn waits up to limit until node is in maintenance mode: the last maintenance
// call for it the simulator answered 200 is a PUT (on), not a DELETE (off).
func awaitMaintenanceOn(ctx context.Context, c *admintest.Cluster, node int, limit time.Duration) bool {
	path := fmt.Sprintf("/v1/brokers/%d/maintenance", node)
	err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, limit, true, func(context.Context) (bool, error) {
		on := false
		for _, call := range c.Calls() {
			if call.Path == path && call.Status == http.StatusOK {
				on = call.Method == http.MethodPut
			}
		}
		return on, nil
	})
	return err == nil
}

// otherRunningBroker returns an active broker whose pod runs it, other than the one of ordinal.
func otherRunningBroker(c *admintest.Cluster, ordinal int) (int, int, bool) {
	for _, b := range c.Brokers() {
		if b.Ordinal != ordinal && b.Ordinal >= 0 && b.PodRunning && b.Status == admin.MembershipActive {
			return b.Ordinal, b.NodeID, true
		}
	}
	return 0, 0, false
}

// bringBack brings the broker of ordinal up again after the fault window (or when ctx ends), if
// its pod is still Ready, and records when it was up again: then, or earlier if the pod sync joined it first (it
// joins every Ready pod when a cluster's Ready pods change, as during a restart).
func (h *rig) bringBack(ctx context.Context, name string, c *admintest.Cluster, ordinal, node, i int) {
	window := time.NewTimer(h.s.faultWindow)
	defer window.Stop()
	due := false
	for {
		changed := h.world.pods.Changes()
		if brokerRunning(c, node) {
			h.endOutage(name, i)
			return
		}
		if due && slices.Contains(h.world.pods.Running(h.ns, name), ordinal) {
			c.Join(ordinal)
			h.endOutage(name, i)
			return
		}
		select {
		case <-changed:
		case <-window.C:
			due = true
		case <-ctx.Done():
			// The faults are over: bring it back now rather than leave it down.
			if slices.Contains(h.world.pods.Running(h.ns, name), ordinal) {
				c.Join(ordinal)
			}
			h.endOutage(name, i)
			return
		}
	}
}

func brokerRunning(c *admintest.Cluster, node int) bool {
	for _, b := range c.Brokers() {
		if b.NodeID == node {
			return b.PodRunning
		}
	}
	return false
}

// addOutage records an injected outage of a cluster's broker and returns its index.
func (h *rig) addOutage(name string, o Outage) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.outages[name] = append(h.outages[name], o)
	return len(h.outages[name]) - 1
}

func (h *rig) endOutage(name string, i int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.outages[name][i].To = time.Now()
}

// awaitRestarting waits up to limit for a BrokerCluster whose status records a restart.
func (h *rig) awaitRestarting(ctx context.Context, limit time.Duration) *v1alpha1.BrokerCluster {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		changed := h.world.Changes()
		if bc := h.world.restarting(); bc != nil {
			return bc
		}
		select {
		case <-changed:
		case <-deadline.C:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

// restarting returns a cluster whose status records a broker being restarted, if any.
func (w *world) restarting() *v1alpha1.BrokerCluster {
	list, err := w.Lister().List(labels.Everything())
	if err != nil {
		return nil
	}
	slices.SortFunc(list, func(a, b *v1alpha1.BrokerCluster) int { return strings.Compare(a.Name, b.Name) })
	for _, bc := range list {
		if bc.Status.Restart != nil {
			return bc
		}
	}
	return nil
}

// judgeRestarts adds a cluster's restarts and injected outages to res, and returns each restart
// the operator began while another of its brokers was unavailable (see Unavailability).
//
// A restart lasts until its broker is back and has reclaimed its load (OwnOutages): a pod that
// cannot start (the pull failer's spans) and a slow recovery (the simulator's) extend it. The
// spans so used go to the history checker too (h.unavailable).
func (h *rig) judgeRestarts(res *Result, name string, c *admintest.Cluster) []string {
	outages := MaintenanceOutages(c.Calls())
	res.Restarts += len(outages)
	h.mu.Lock()
	injected := slices.Clone(h.outages[name])
	h.mu.Unlock()
	res.InjectedDown += len(injected)
	res.MaintenanceCalls += harness.MaintenanceCalls(c.Calls())
	_, own := Unavailability(name, outages)
	res.MaintenanceOverlaps += len(own)
	cannotStart := h.pulls.cannotStart(name)
	var recoveries []Outage
	for _, r := range c.Recoveries() {
		recoveries = append(recoveries, Outage{NodeID: r.NodeID, Ordinal: r.Ordinal, From: r.From, To: r.To, Why: WhyRecovering})
	}
	res.CannotStart += len(cannotStart)
	res.SlowRecoveries += len(recoveries)
	restarts, used := OwnOutages(outages, cannotStart, recoveries)
	key := history.Key{Resource: "brokerclusters", Namespace: h.ns, Name: name}
	h.mu.Lock()
	for _, u := range used {
		h.unavailable = append(h.unavailable, history.Outage{Key: key, Broker: strconv.Itoa(u.NodeID), From: u.From, To: u.To, Why: u.Why})
	}
	h.mu.Unlock()
	most, overlaps := Unavailability(name, append(restarts, injected...))
	res.MostUnavailable = max(res.MostUnavailable, most)
	res.RestartOverlaps += len(overlaps)
	return overlaps
}

// judgePodDowns returns the simulator's own overlaps the operator caused (PodDownOverlaps).
func (h *rig) judgePodDowns(res *Result) []string {
	h.mu.Lock()
	injected := maps.Clone(h.outages)
	h.mu.Unlock()
	out := PodDownOverlaps(h.sim.Overlaps(), injected)
	res.PodDownOverlaps = len(out)
	return out
}
