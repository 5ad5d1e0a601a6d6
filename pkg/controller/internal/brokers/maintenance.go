package brokers

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
	"github.com/broker-operator/broker-operator/pkg/controller/trace"
)

// readHealth asks the brokers for GET /v1/cluster/health_overview.
func readHealth(ctx context.Context, client admin.Client) (step.Health, error) {
	h, err := client.HealthOverview(ctx)
	if err != nil {
		return step.Health{Controller: -1}, err
	}
	return step.Assess(step.HealthReport{IsHealthy: h.IsHealthy, UnhealthyReasons: h.UnhealthyReasons, NodesDown: h.NodesDown,
		LeaderlessCount: h.LeaderlessCount, UnderReplicatedCount: h.UnderReplicatedCount, ControllerID: h.ControllerID}), nil
}

// readMaintenance asks GET /v1/brokers/{id} for a broker's maintenance mode. draining is
// maintenance mode itself and stays true once the drain has finished (Redpanda's broker.json,
// maintenance_status).
func readMaintenance(ctx context.Context, client admin.Client, id int32) (step.Maintenance, error) {
	b, err := client.Broker(ctx, int(id))
	if err != nil {
		return step.MaintenanceUnknown, err
	}
	switch m := b.MaintenanceStatus; {
	case !m.Draining:
		return step.MaintenanceOff, nil
	case m.Finished:
		return step.MaintenanceDrained, nil
	}
	return step.MaintenanceDraining, nil
}

// SetMaintenance turns a broker's maintenance mode on or off. Both are idempotent in Redpanda
// (members_table.cc applies a repeated command as a success). A broker that is no longer a
// member has nothing to drain.
func (a *Admin) SetMaintenance(ctx context.Context, bc *v1alpha1.BrokerCluster, id int32, on bool) error {
	client, err := a.Client(ctx, bc)
	if err != nil {
		return err
	}
	call, what := client.DisableMaintenance, "off"
	if on {
		call, what = client.EnableMaintenance, "on"
	}
	start := a.hooks().Start()
	err = call(ctx, int(id))
	traced := trace.MaintenanceOff
	if on {
		traced = trace.MaintenanceOn
	}
	a.hooks().Call(ctx, traced, id, start, err)
	switch {
	case err == nil:
		klog.FromContext(ctx).V(2).Info("Maintenance mode", "broker", id, "mode", what)
		return nil
	case errors.Is(err, admin.ErrBrokerNotFound):
		klog.FromContext(ctx).V(2).Info("Maintenance mode for a broker that is not a member", "broker", id, "mode", what)
		return nil
	}
	return fmt.Errorf("maintenance mode %s for broker %d of %s: %w", what, id, bc.Namespace+"/"+bc.Name, err)
}
