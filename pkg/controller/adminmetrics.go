package controller

import (
	"context"
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/broker-operator/broker-operator/pkg/admin"
)

// adminResultKinds maps the admin package's error kinds to values of the result label of
// admin_requests_total. An error matches at most one kind.
var adminResultKinds = []struct {
	kind  error
	label string
}{
	{admin.ErrBrokerNotFound, "broker_not_found"},
	{admin.ErrAlreadyDecommissioned, "already_decommissioned"},
	{admin.ErrNotDecommissioning, "not_decommissioning"},
	{admin.ErrInvalidStateTransition, "invalid_state_transition"},
	{admin.ErrBadRequest, "bad_request"},
	{admin.ErrNotFound, "path_not_found"},
	{admin.ErrUnavailable, "unavailable"},
	{admin.ErrUnauthorized, "unauthorized"},
	{admin.ErrForbidden, "forbidden"},
	{admin.ErrBadResponse, "bad_response"},
}

// adminResult is the result label of a call that returned err.
func adminResult(err error) string {
	if err == nil {
		return resultSuccess
	}
	for _, k := range adminResultKinds {
		if errors.Is(err, k.kind) {
			return k.label
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "canceled" // the reconcile's context ended (shutdown), not the API's fault
	}
	return resultError
}

// adminOperations are the values of the operation label, one per admin.Client method.
var adminOperations = []string{
	"brokers", "broker", "health_overview", "decommission", "recommission",
	"decommission_status", "enable_maintenance", "disable_maintenance", "node_config",
}

// countingAdminClient counts every call of the admin client it wraps in admin_requests_total.
// It embeds the client only so that a method added to admin.Client later still compiles;
// TestCountingAdminClientCountsEveryMethod fails until that method is counted here too.
type countingAdminClient struct {
	admin.Client
	requests *prometheus.CounterVec
}

func (c countingAdminClient) count(op string, err error) {
	c.requests.WithLabelValues(op, adminResult(err)).Inc()
}

func (c countingAdminClient) Brokers(ctx context.Context) ([]admin.Broker, error) {
	b, err := c.Client.Brokers(ctx)
	c.count("brokers", err)
	return b, err
}

func (c countingAdminClient) Broker(ctx context.Context, nodeID int) (admin.Broker, error) {
	b, err := c.Client.Broker(ctx, nodeID)
	c.count("broker", err)
	return b, err
}

func (c countingAdminClient) HealthOverview(ctx context.Context) (admin.HealthOverview, error) {
	h, err := c.Client.HealthOverview(ctx)
	c.count("health_overview", err)
	return h, err
}

func (c countingAdminClient) Decommission(ctx context.Context, nodeID int) error {
	err := c.Client.Decommission(ctx, nodeID)
	c.count("decommission", err)
	return err
}

func (c countingAdminClient) Recommission(ctx context.Context, nodeID int) error {
	err := c.Client.Recommission(ctx, nodeID)
	c.count("recommission", err)
	return err
}

func (c countingAdminClient) DecommissionStatus(ctx context.Context, nodeID int) (admin.DecommissionStatus, error) {
	s, err := c.Client.DecommissionStatus(ctx, nodeID)
	c.count("decommission_status", err)
	return s, err
}

func (c countingAdminClient) EnableMaintenance(ctx context.Context, nodeID int) error {
	err := c.Client.EnableMaintenance(ctx, nodeID)
	c.count("enable_maintenance", err)
	return err
}

func (c countingAdminClient) DisableMaintenance(ctx context.Context, nodeID int) error {
	err := c.Client.DisableMaintenance(ctx, nodeID)
	c.count("disable_maintenance", err)
	return err
}

func (c countingAdminClient) NodeConfig(ctx context.Context, ordinal int) (admin.NodeConfig, error) {
	n, err := c.Client.NodeConfig(ctx, ordinal)
	c.count("node_config", err)
	return n, err
}
