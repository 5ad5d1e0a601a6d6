package brokers

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// Recovery after a restart: once R's broker is back, its own GET /v1/broker/post_restart_probe
// says how much of its load it has reclaimed, and the restart finishes only when that reaches
// spec.rollout.recoveredPercent (step.Recovery). A 404 means a broker older than Redpanda 25.1:
// being back is then enough. Any other failure keeps the restart waiting, as Redpanda's
// operator fails closed (redpanda-data/redpanda-operator operator/CHANGELOG.md, v26.2.1).

// Defaults of spec.rollout, also the CRD's.
const (
	DefaultRecoveredPercent = 100
	DefaultRecoveryTimeout  = 30 * time.Minute
)

// recoveryTracker remembers since when each cluster's restarted broker has been back without
// having reclaimed its load, between reconciles. A new leader starts counting afresh.
type recoveryTracker struct {
	mu    sync.Mutex
	since map[string]recoveryWait
}

type recoveryWait struct {
	broker int32
	since  time.Time
}

// waited returns how long broker of cluster key has been waiting, counting from now if it is
// new.
func (t *recoveryTracker) waited(key string, broker int32, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	w, ok := t.since[key]
	if !ok || w.broker != broker {
		w = recoveryWait{broker: broker, since: now}
		t.since[key] = w
	}
	return now.Sub(w.since)
}

func (t *recoveryTracker) forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.since, key)
}

// observeRecovery asks R's broker, once back, how far it has recovered.
func (a *Admin) observeRecovery(ctx context.Context, client admin.Client, bc *v1alpha1.BrokerCluster, o *step.Observation) {
	key := bc.Namespace + "/" + bc.Name
	r := o.Rollout.Restart
	if r == nil || !o.Rollout.Back {
		a.recoveries.forget(key)
		return
	}
	rc := step.Recovery{Asked: true, Wanted: DefaultRecoveredPercent, Timeout: DefaultRecoveryTimeout}
	if spec := bc.Spec.Rollout; spec != nil {
		if spec.RecoveredPercent > 0 {
			rc.Wanted = int(spec.RecoveredPercent)
		}
		if spec.RecoveryTimeout != nil {
			rc.Timeout = spec.RecoveryTimeout.Duration
		}
	}
	pc, err := client.PostRestartProbe(ctx, int(r.Ordinal))
	switch {
	case errors.Is(err, admin.ErrNotFound):
		rc.NoProbe, rc.Reclaimed = true, -1
	case err != nil:
		rc.Reclaimed, rc.Problem = -1, err.Error()
	default:
		rc.Reclaimed = pc
	}
	if rc.Done() {
		a.recoveries.forget(key)
	} else {
		rc.Waited = a.recoveries.waited(key, r.NodeID, a.cfg.Clock.Now())
		rc.Overdue = rc.Waited >= rc.Timeout
	}
	o.Rollout.Recovery = rc
}
