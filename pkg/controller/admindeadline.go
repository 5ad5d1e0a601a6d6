package controller

import (
	"context"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin"
)

// Every admin call of one reconcile shares one deadline (Config.AdminDeadline), set by sync.
// Each request still has its own timeout; the deadline bounds their sum, so a cluster whose
// brokers time out one after another holds a worker for AdminDeadline at most.

type adminDeadlineKey struct{}

// withAdminDeadline records the deadline of the admin calls made under ctx.
func withAdminDeadline(ctx context.Context, deadline time.Time) context.Context {
	return context.WithValue(ctx, adminDeadlineKey{}, deadline)
}

// boundByDeadline returns client, bound by the deadline recorded in ctx, if any.
func boundByDeadline(ctx context.Context, client admin.Client) admin.Client {
	deadline, ok := ctx.Value(adminDeadlineKey{}).(time.Time)
	if !ok {
		return client
	}
	return deadlineClient{inner: client, deadline: deadline}
}

// deadlineClient runs every call of inner under a context that ends at deadline.
type deadlineClient struct {
	inner    admin.Client
	deadline time.Time
}

var _ admin.Client = deadlineClient{}

func (d deadlineClient) Brokers(ctx context.Context) ([]admin.Broker, error) {
	ctx, cancel := context.WithDeadline(ctx, d.deadline)
	defer cancel()
	return d.inner.Brokers(ctx)
}

func (d deadlineClient) Broker(ctx context.Context, nodeID int) (admin.Broker, error) {
	ctx, cancel := context.WithDeadline(ctx, d.deadline)
	defer cancel()
	return d.inner.Broker(ctx, nodeID)
}

func (d deadlineClient) HealthOverview(ctx context.Context) (admin.HealthOverview, error) {
	ctx, cancel := context.WithDeadline(ctx, d.deadline)
	defer cancel()
	return d.inner.HealthOverview(ctx)
}

func (d deadlineClient) Decommission(ctx context.Context, nodeID int) error {
	ctx, cancel := context.WithDeadline(ctx, d.deadline)
	defer cancel()
	return d.inner.Decommission(ctx, nodeID)
}

func (d deadlineClient) Recommission(ctx context.Context, nodeID int) error {
	ctx, cancel := context.WithDeadline(ctx, d.deadline)
	defer cancel()
	return d.inner.Recommission(ctx, nodeID)
}

func (d deadlineClient) DecommissionStatus(ctx context.Context, nodeID int) (admin.DecommissionStatus, error) {
	ctx, cancel := context.WithDeadline(ctx, d.deadline)
	defer cancel()
	return d.inner.DecommissionStatus(ctx, nodeID)
}

func (d deadlineClient) EnableMaintenance(ctx context.Context, nodeID int) error {
	ctx, cancel := context.WithDeadline(ctx, d.deadline)
	defer cancel()
	return d.inner.EnableMaintenance(ctx, nodeID)
}

func (d deadlineClient) DisableMaintenance(ctx context.Context, nodeID int) error {
	ctx, cancel := context.WithDeadline(ctx, d.deadline)
	defer cancel()
	return d.inner.DisableMaintenance(ctx, nodeID)
}

func (d deadlineClient) NodeConfig(ctx context.Context, ordinal int) (admin.NodeConfig, error) {
	ctx, cancel := context.WithDeadline(ctx, d.deadline)
	defer cancel()
	return d.inner.NodeConfig(ctx, ordinal)
}
