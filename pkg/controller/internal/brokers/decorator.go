package brokers

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/broker-operator/broker-operator/pkg/admin"
)

// Every admin call of one reconcile shares one deadline (Config.AdminDeadline), set by sync.
// Each request still has its own timeout; the deadline bounds their sum, so a cluster whose
// brokers time out one after another holds a worker for AdminDeadline at most. Every call is
// also counted in admin_requests_total. One decorator does both, around every method.

type adminDeadlineKey struct{}

// withAdminDeadline records the deadline of the admin calls made under ctx.
func WithDeadline(ctx context.Context, deadline time.Time) context.Context {
	return context.WithValue(ctx, adminDeadlineKey{}, deadline)
}

// boundByDeadline returns client, bound by the deadline recorded in ctx, if any.
func BoundByDeadline(ctx context.Context, client admin.Client) admin.Client {
	deadline, ok := ctx.Value(adminDeadlineKey{}).(time.Time)
	if !ok {
		return client
	}
	d, ok := client.(decoratedAdmin)
	if !ok {
		d = decoratedAdmin{inner: client}
	}
	d.deadline = deadline
	return d
}

// decoratedAdmin runs every call of inner under a context that ends at deadline (unless it is
// zero), and counts it in requests (unless nil). It does not embed admin.Client: a method
// added to the interface does not compile until it is decorated here, and
// TestCountingAdminClientCountsEveryMethod checks that each one is counted.
type decoratedAdmin struct {
	inner    admin.Client
	deadline time.Time
	requests *prometheus.CounterVec
}

var _ admin.Client = decoratedAdmin{}

// decorate runs call as operation op (a value of Operations) under d's deadline and counts it.
func decorate[T any](ctx context.Context, d decoratedAdmin, op string, call func(context.Context) (T, error)) (T, error) {
	if !d.deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.deadline)
		defer cancel()
	}
	v, err := call(ctx)
	if d.requests != nil {
		d.requests.WithLabelValues(op, adminResult(err)).Inc()
	}
	return v, err
}

// decorateErr is decorate for a call that returns only an error.
func decorateErr(ctx context.Context, d decoratedAdmin, op string, call func(context.Context) error) error {
	_, err := decorate(ctx, d, op, func(ctx context.Context) (struct{}, error) { return struct{}{}, call(ctx) })
	return err
}

func (d decoratedAdmin) Brokers(ctx context.Context) ([]admin.Broker, error) {
	return decorate(ctx, d, "brokers", d.inner.Brokers)
}

func (d decoratedAdmin) BrokersFrom(ctx context.Context, ordinal int) ([]admin.Broker, error) {
	return decorate(ctx, d, "brokers_from", func(ctx context.Context) ([]admin.Broker, error) { return d.inner.BrokersFrom(ctx, ordinal) })
}

func (d decoratedAdmin) Broker(ctx context.Context, nodeID int) (admin.Broker, error) {
	return decorate(ctx, d, "broker", func(ctx context.Context) (admin.Broker, error) { return d.inner.Broker(ctx, nodeID) })
}

func (d decoratedAdmin) HealthOverview(ctx context.Context) (admin.HealthOverview, error) {
	return decorate(ctx, d, "health_overview", d.inner.HealthOverview)
}

func (d decoratedAdmin) Decommission(ctx context.Context, nodeID int) error {
	return decorateErr(ctx, d, "decommission", func(ctx context.Context) error { return d.inner.Decommission(ctx, nodeID) })
}

func (d decoratedAdmin) Recommission(ctx context.Context, nodeID int) error {
	return decorateErr(ctx, d, "recommission", func(ctx context.Context) error { return d.inner.Recommission(ctx, nodeID) })
}

func (d decoratedAdmin) DecommissionStatus(ctx context.Context, nodeID int) (admin.DecommissionStatus, error) {
	return decorate(ctx, d, "decommission_status", func(ctx context.Context) (admin.DecommissionStatus, error) {
		return d.inner.DecommissionStatus(ctx, nodeID)
	})
}

func (d decoratedAdmin) ClusterPartitions(ctx context.Context) ([]admin.Partition, error) {
	return decorate(ctx, d, "cluster_partitions", func(ctx context.Context) ([]admin.Partition, error) { return d.inner.ClusterPartitions(ctx) })
}

func (d decoratedAdmin) EnableMaintenance(ctx context.Context, nodeID int) error {
	return decorateErr(ctx, d, "enable_maintenance", func(ctx context.Context) error { return d.inner.EnableMaintenance(ctx, nodeID) })
}

func (d decoratedAdmin) DisableMaintenance(ctx context.Context, nodeID int) error {
	return decorateErr(ctx, d, "disable_maintenance", func(ctx context.Context) error { return d.inner.DisableMaintenance(ctx, nodeID) })
}

func (d decoratedAdmin) NodeConfig(ctx context.Context, ordinal int) (admin.NodeConfig, error) {
	return decorate(ctx, d, "node_config", func(ctx context.Context) (admin.NodeConfig, error) { return d.inner.NodeConfig(ctx, ordinal) })
}

func (d decoratedAdmin) PostRestartProbe(ctx context.Context, ordinal int) (int, error) {
	return decorate(ctx, d, "post_restart_probe", func(ctx context.Context) (int, error) { return d.inner.PostRestartProbe(ctx, ordinal) })
}

func (d decoratedAdmin) PreRestartProbe(ctx context.Context, ordinal int) (admin.RestartRisks, error) {
	return decorate(ctx, d, "pre_restart_probe", func(ctx context.Context) (admin.RestartRisks, error) { return d.inner.PreRestartProbe(ctx, ordinal) })
}

func (d decoratedAdmin) Features(ctx context.Context, ordinal int) (admin.Features, error) {
	return decorate(ctx, d, "features", func(ctx context.Context) (admin.Features, error) { return d.inner.Features(ctx, ordinal) })
}
