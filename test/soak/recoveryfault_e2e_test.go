//go:build e2e

package soak

import (
	"context"
	"fmt"
	"time"
)

// injectSlowRecovery waits (up to two fault intervals) for a cluster restarting a broker, then
// makes the brokers of that cluster that come back reclaim their load over twice the fault
// window (admintest.Cluster.SetRecoveryTime: their post_restart_probe reports
// load_reclaimed_pc rising from 0 to 100), until one did or the step's time is up; the
// operator must not restart the next broker before the restarted one has recovered.
func injectSlowRecovery(ctx context.Context, h *rig) (string, error) {
	bc := h.awaitRestarting(ctx, 2*h.s.faultEvery)
	if bc == nil {
		return "no restart under way within two fault intervals; nothing slowed", nil
	}
	slow := 2 * h.s.faultWindow
	c := h.sim.Cluster(h.ns, bc.Name)
	before := len(c.Recoveries())
	c.SetRecoveryTime(slow)
	defer c.SetRecoveryTime(0) // a recovery under way keeps its time
	deadline := time.NewTimer(h.s.stepTimeout)
	defer deadline.Stop()
	for {
		changed := h.world.pods.Changes()
		if rs := c.Recoveries(); len(rs) > before {
			r := rs[before]
			return fmt.Sprintf("%s: node %d (ordinal %d) back from its restart, reclaiming its load over %s", bc.Name, r.NodeID, r.Ordinal, slow), nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			return fmt.Sprintf("%s restarting ordinal %d: no broker came back within %s", bc.Name, bc.Status.Restart.Ordinal, h.s.stepTimeout), nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}
