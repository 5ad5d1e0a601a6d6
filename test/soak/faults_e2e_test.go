//go:build e2e

package soak

import (
	"context"
	"fmt"
	"net/http"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// faultKind is one kind of trouble the soak injects. inject does it and says what it did; it may
// return before the trouble is over (a window of lag or of admin faults ends by itself).
type faultKind struct {
	name, what string
	inject     func(ctx context.Context, h *rig) (string, error)
}

// faultKinds are the kinds injected, in report order. New kinds plug in here.
func faultKinds() []faultKind {
	return []faultKind{
		{"apiserver-restart", "kube-apiserver killed with SIGKILL and started again on the same port, kwok restarted with it; every watch breaks and resumes against a fresh watch cache", injectAPIServerRestart},
		{"watch-cut-compact", "etcd compacted to its current revision, then every watch stream of the operator cut at the proxy", injectWatchCut},
		{"leader-sigkill", "the leading operator killed with SIGKILL while a broker is being decommissioned; the standby takes the Lease over", injectLeaderKill},
		{"sigterm-restart", "the leading operator sent SIGTERM (it finishes its reconciles, releases the Lease and exits; its replica starts again)", injectSigterm},
		{"watch-lag", "every chunk of the operator's watch streams delayed by 0-100 ms for a window", injectLag},
		{"admin-5xx", "the admin API of a few clusters answers 500 to its next requests", injectAdmin5xx},
		{"admin-timeout", "the admin API of a few clusters holds its next requests unanswered until the operator's client gives up", injectAdminTimeout},
		{"slow-drain", "decommissions of a few clusters drain for 10 s instead of the usual time, for a window", injectSlowDrain},
		{"admin-redirect", "the admin API of a few clusters answers its next 3 requests with 307 to the controller leader's URL, without acting", injectAdminRedirect},
		{"admin-504", "the admin API of a few clusters holds its next 2 requests for node_management_operation_timeout (1 s here), then answers 504 without acting", injectAdmin504},
		{"health-missing", "a few clusters answer GET /v1/brokers with 503 \"Unable to get cluster health\" while their health report is missing, for a window", injectHealthMissing},
		{"broker-down-during-restart", "waits for a cluster restarting a broker (status.restart set) whose broker is in maintenance mode, then takes another of its brokers down in the simulator for the fault window (connections refused, listed as not alive, its pod still Ready), then brings it back", injectBrokerDownDuringRestart},
		{"bad-image-rollout", "the next step of a cluster is a rollout of a bad image: the restarted broker's new pod stays in ImagePullBackOff (every other time, the first included; on a cluster of at least 3 brokers) or CrashLoopBackOff; after the fault window the fix (a good image) is rolled out", injectBadImageRollout},
		{"slow-recovery", "waits for a cluster restarting a broker, then makes its brokers that come back reclaim their load (post_restart_probe) over twice the fault window, until one did", injectSlowRecovery},
		{"stuck-drain", "the next scale-down of a cluster begins with a replication factor as large as its brokers, so the drain has nowhere to move replicas and stays stuck with allocation failures; after the window the harness scales the cluster up by one, and the factor goes back to 1 once the drain ended or the scale-up converged", injectStuckDrain},
	}
}

func injectAPIServerRestart(ctx context.Context, h *rig) (string, error) {
	start := time.Now()
	if err := h.cp.RestartAPIServer(ctx); err != nil {
		return "", err
	}
	return fmt.Sprintf("apiserver and kwok back in %s", time.Since(start).Round(time.Millisecond)), nil
}

func injectWatchCut(ctx context.Context, h *rig) (string, error) {
	rev, err := h.cp.CompactEtcd(ctx)
	if err != nil {
		return "", err
	}
	cut := 0
	for _, r := range h.replicas {
		if p := r.current(); p != nil {
			cut += p.proxy.CutWatches()
		}
	}
	return fmt.Sprintf("compacted at revision %d, cut %d watches", rev, cut), nil
}

func injectLeaderKill(ctx context.Context, h *rig) (string, error) {
	// Wait (up to two fault intervals) for a decommission in progress, so that the standby must
	// take it over.
	var mid string
	if bc := h.awaitDecommissioning(ctx, 2*h.s.faultEvery); bc != nil {
		mid = fmt.Sprintf(" while %s decommissioned node %s", bc.Name, nodeString(bc.Status.DecommissioningBroker))
	}
	p := h.leader(30 * time.Second)
	if p == nil {
		return "", fmt.Errorf("no operator leads")
	}
	p.signal(syscall.SIGKILL)
	<-p.exited
	return fmt.Sprintf("killed %s%s", p.name, mid), nil
}

func injectSigterm(ctx context.Context, h *rig) (string, error) {
	p := h.leader(30 * time.Second)
	if p == nil {
		return "", fmt.Errorf("no operator leads")
	}
	start := time.Now()
	p.signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(time.Minute):
		return "", fmt.Errorf("%s did not exit within a minute of SIGTERM", p.name)
	}
	return fmt.Sprintf("%s exited %s after SIGTERM", p.name, time.Since(start).Round(time.Millisecond)), nil
}

func injectLag(ctx context.Context, h *rig) (string, error) {
	h.setLag(true)
	go func() {
		select {
		case <-time.After(h.s.faultWindow):
		case <-ctx.Done():
		}
		h.setLag(false)
	}()
	return fmt.Sprintf("lag %s for %s", h.s.lag, h.s.faultWindow), nil
}

func injectAdmin5xx(ctx context.Context, h *rig) (string, error) {
	return h.adminFault(ctx, admintest.Fault{Status: http.StatusInternalServerError, Times: 3}, "500 to the next 3 requests")
}

func injectAdminTimeout(ctx context.Context, h *rig) (string, error) {
	return h.adminFault(ctx, admintest.Fault{Hang: true, Times: 2}, "the next 2 requests held until the client gives up")
}

// adminFault sets f on a few clusters drawn at random, and clears what is left of it after the
// fault window.
func (h *rig) adminFault(ctx context.Context, f admintest.Fault, what string) (string, error) {
	names := h.pick(max(1, len(h.names)/4))
	for _, name := range names {
		h.sim.Cluster(h.ns, name).SetFault(f)
	}
	go func() {
		select {
		case <-time.After(h.s.faultWindow):
		case <-ctx.Done():
		}
		for _, name := range names {
			h.sim.Cluster(h.ns, name).SetFault(admintest.Fault{})
		}
	}()
	return fmt.Sprintf("%v: %s", names, what), nil
}

func injectSlowDrain(ctx context.Context, h *rig) (string, error) {
	const slow = 10 * time.Second
	names := h.pick(max(1, len(h.names)/4))
	for _, name := range names {
		h.sim.Cluster(h.ns, name).SetDrainTime(slow)
	}
	go func() {
		select {
		case <-time.After(h.s.faultWindow):
		case <-ctx.Done():
		}
		for _, name := range names {
			h.sim.Cluster(h.ns, name).SetDrainTime(h.s.drain)
		}
	}()
	return fmt.Sprintf("%v drain for %s", names, slow), nil
}

func injectAdminRedirect(ctx context.Context, h *rig) (string, error) {
	return h.adminFault(ctx, admintest.Fault{Redirect: true, Times: 3}, "307 to the leader for the next 3 requests")
}

func injectAdmin504(ctx context.Context, h *rig) (string, error) {
	return h.adminFault(ctx, admintest.Fault{Timeout: true, Times: 2}, "504 after 1 s for the next 2 requests")
}

func injectHealthMissing(ctx context.Context, h *rig) (string, error) {
	names := h.pick(max(1, len(h.names)/4))
	for _, name := range names {
		h.sim.Cluster(h.ns, name).SetHealthReportMissing(true)
	}
	go func() {
		select {
		case <-time.After(h.s.faultWindow):
		case <-ctx.Done():
		}
		for _, name := range names {
			h.sim.Cluster(h.ns, name).SetHealthReportMissing(false)
		}
	}()
	return fmt.Sprintf("%v: health report missing for %s", names, h.s.faultWindow), nil
}

func injectStuckDrain(ctx context.Context, h *rig) (string, error) {
	var trap trappedDrain
	select {
	case trap = <-h.drainTraps:
	case <-time.After(2 * h.s.faultEvery):
		return "no scale-down began to stick", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
	c := h.sim.Cluster(h.ns, trap.name)
	restore := func() { c.SetReplicationFactor(1) }
	select {
	case <-time.After(h.s.faultWindow):
	case <-ctx.Done():
		restore()
		return "", ctx.Err()
	}
	// The operator may not have started the decommission within the window (the apiserver may be
	// down); then the step goes on at factor 1, and this fault stuck nothing.
	node, ok := drainingBroker(c)
	if !ok {
		restore()
		return fmt.Sprintf("%s: no drain had begun within %s of its scale-down", trap.name, h.s.faultWindow), nil
	}
	// The driver scales the cluster up by one and, once that converged, restores the factor;
	// the factor goes back as soon as the drain ended (finished, or called off by the
	// operator's recommission for the scale-up), too: the scale-up changes the seed
	// list and so starts a rollout, whose restarts a factor as large as the cluster holds back
	// (every broker's pre_restart_probe reports its partitions unavailable).
	select {
	case h.nudges[trap.name] <- restore:
		go restoreWhenDrainEnds(ctx, c, node, h.s.stepTimeout, restore)
	case <-time.After(h.s.stepTimeout):
		restore()
		return fmt.Sprintf("%s: drain of node %d stuck at replication factor %d; its driver took no scale-up", trap.name, node, trap.brokers), nil
	case <-ctx.Done():
		restore()
		return "", ctx.Err()
	}
	return fmt.Sprintf("%s: drain of node %d stuck at replication factor %d for %s, then a scale-up", trap.name, node, trap.brokers, h.s.faultWindow), nil
}

// awaitDecommissioning waits up to limit for a BrokerCluster whose status records a decommission
// in progress.
func (h *rig) awaitDecommissioning(ctx context.Context, limit time.Duration) *v1alpha1.BrokerCluster {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		changed := h.world.Changes()
		if bc, ok := h.world.decommissioning(); ok {
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

// restoreWhenDrainEnds calls restore once node is no longer draining (it left the cluster, or
// was recommissioned), or after limit.
func restoreWhenDrainEnds(ctx context.Context, c *admintest.Cluster, node int, limit time.Duration, restore func()) {
	_ = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, limit, true, func(context.Context) (bool, error) {
		for _, b := range c.Brokers() {
			if b.NodeID == node {
				return b.Status != admin.MembershipDraining, nil
			}
		}
		return true, nil
	})
	restore()
}

// drainingBroker returns the node ID of a broker the simulator has draining, if any.
func drainingBroker(c *admintest.Cluster) (int, bool) {
	for _, b := range c.Brokers() {
		if b.Status == admin.MembershipDraining {
			return b.NodeID, true
		}
	}
	return 0, false
}
