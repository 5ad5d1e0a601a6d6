package controller

import (
	"context"
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/broker-operator/broker-operator/pkg/admin"
)

// The operation label of admin_requests_total: one value per admin.Client method.
const (
	adminOpBrokers            = "brokers"
	adminOpDecommission       = "decommission"
	adminOpRecommission       = "recommission"
	adminOpDecommissionStatus = "decommission_status"
)

var adminOperations = []string{adminOpBrokers, adminOpDecommission, adminOpRecommission, adminOpDecommissionStatus}

// adminResults are the values of the result label, in the order adminResult tests for them.
var adminResults = []string{
	resultSuccess, "not_found", "already_decommissioned", "not_decommissioning",
	"unavailable", "unauthorized", "bad_response", "canceled", resultError,
}

// adminResultKinds maps the admin package's sentinel errors to result labels.
var adminResultKinds = []struct {
	kind  error
	label string
}{
	{admin.ErrBrokerNotFound, "not_found"},
	{admin.ErrAlreadyDecommissioned, "already_decommissioned"},
	{admin.ErrNotDecommissioning, "not_decommissioning"},
	{admin.ErrUnavailable, "unavailable"},
	{admin.ErrUnauthorized, "unauthorized"},
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

// countingAdminClient counts every call of the admin client it wraps in admin_requests_total.
type countingAdminClient struct {
	client   admin.Client
	requests *prometheus.CounterVec
}

var _ admin.Client = countingAdminClient{}

func (c countingAdminClient) count(op string, err error) {
	c.requests.WithLabelValues(op, adminResult(err)).Inc()
}

func (c countingAdminClient) Brokers(ctx context.Context) ([]admin.Broker, error) {
	b, err := c.client.Brokers(ctx)
	c.count(adminOpBrokers, err)
	return b, err
}

func (c countingAdminClient) Decommission(ctx context.Context, nodeID int) error {
	err := c.client.Decommission(ctx, nodeID)
	c.count(adminOpDecommission, err)
	return err
}

func (c countingAdminClient) Recommission(ctx context.Context, nodeID int) error {
	err := c.client.Recommission(ctx, nodeID)
	c.count(adminOpRecommission, err)
	return err
}

func (c countingAdminClient) DecommissionStatus(ctx context.Context, nodeID int) (admin.DecommissionStatus, error) {
	s, err := c.client.DecommissionStatus(ctx, nodeID)
	c.count(adminOpDecommissionStatus, err)
	return s, err
}
