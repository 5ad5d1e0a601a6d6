package brokers

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// DrainStallPolls is how many poll intervals replicas_left may stay the same before the drain is
// reported stalled. Moving a large partition can take a few polls.
const DrainStallPolls = 3

// drainProgress is what was last seen of one cluster's drain.
type drainProgress struct {
	broker       int32
	replicasLeft int
	changedAt    time.Time // when replicasLeft last went down (or the drain was first seen)
}

// drainTracker remembers each cluster's drain between reconciles.
type drainTracker struct {
	mu     sync.Mutex
	drains map[string]*drainProgress
}

func (d *drainTracker) forget(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.drains, key)
}

// drainReport is one look at a drain, for the status and an event.
type drainReport struct {
	status admin.DecommissionStatus
	// stalled: allocation failures, or no progress for DrainStallPolls polls.
	stalled bool
}

// pollDrain asks Redpanda how the drain of broker id goes. It returns nil when the status
// cannot be had: the drain goes on, and the next poll looks again.
func (a *Admin) pollDrain(ctx context.Context, bc *v1alpha1.BrokerCluster, id int32) *drainReport {
	client, err := a.Client(ctx, bc)
	if err != nil {
		return nil
	}
	st, err := client.DecommissionStatus(ctx, int(id))
	if err != nil {
		klog.FromContext(ctx).V(4).Info("No decommission status", "broker", id, "err", err)
		return nil
	}
	now := a.cfg.Clock.Now()
	key := bc.Namespace + "/" + bc.Name
	a.drains.mu.Lock()
	defer a.drains.mu.Unlock()
	p := a.drains.drains[key]
	if p == nil || p.broker != id || st.ReplicasLeft < p.replicasLeft {
		p = &drainProgress{broker: id, replicasLeft: st.ReplicasLeft, changedAt: now}
		a.drains.drains[key] = p
	}
	stalled := len(st.AllocationFailures) > 0 || now.Sub(p.changedAt) >= DrainStallPolls*a.cfg.PollInterval
	return &drainReport{status: st, stalled: stalled}
}

// describe says how far the drain is, in a sentence that stays the same while the drain does,
// so that a stalled drain does not rewrite the status on every poll.
func (r *drainReport) describe(id int32) string {
	st := r.status
	msg := fmt.Sprintf("the drain of broker %d makes no progress: %d partition replicas left to move, %d moving now", id, st.ReplicasLeft, st.MovingPartitions)
	if n := len(st.AllocationFailures); n > 0 {
		shown := st.AllocationFailures[:min(n, 5)]
		msg += fmt.Sprintf(", %d cannot be placed on another broker (allocation failures: %s", n, strings.Join(shown, ", "))
		if n > len(shown) {
			msg += ", ..."
		}
		msg += ")"
	}
	return msg + "; raise spec.replicas to recommission the broker, or add brokers or lower replication factors"
}

// CheckDrain asks how the drain of broker id goes and shows a stalled one in next, the status
// about to be written: Redpanda's numbers go into the Scaling condition, and the cluster is
// Degraded (DrainStalled) while it lasts. It returns the message to tell as a Warning event when
// the status bc was read with did not show the drain stalled yet. A drain that progresses
// changes nothing, so polls write no status.
func (a *Admin) CheckDrain(ctx context.Context, bc *v1alpha1.BrokerCluster, id int32, next *v1alpha1.BrokerClusterStatus) (string, bool) {
	r := a.pollDrain(ctx, bc, id)
	if r == nil || !r.stalled {
		return "", false
	}
	msg := r.describe(id)
	if cond := meta.FindStatusCondition(next.Conditions, v1alpha1.ConditionScaling); cond != nil {
		cond.Message += ": " + msg
	}
	meta.SetStatusCondition(&next.Conditions, metav1.Condition{
		Type: v1alpha1.ConditionDegraded, Status: metav1.ConditionTrue, Reason: step.ReasonDrainStalled,
		Message: msg, ObservedGeneration: bc.Generation, LastTransitionTime: metav1.NewTime(a.cfg.Clock.Now()),
	})
	return msg, step.ConditionBegan(&bc.Status, next, v1alpha1.ConditionDegraded)
}
