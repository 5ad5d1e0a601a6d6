package brokers

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
	{admin.ErrTLS, "tls"},
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

// Values of the result label besides the error kinds.
const (
	resultSuccess = "success"
	resultError   = "error"
)

// ExportZeros starts admin_requests_total at 0 for every operation with result "success", so
// that rates start at 0 instead of appearing with the first call.
func ExportZeros(requests *prometheus.CounterVec) {
	for _, op := range Operations {
		requests.WithLabelValues(op, resultSuccess)
	}
}

// Operations are the values of the operation label, one per admin.Client,
// admin.ClusterConfigClient and admin.UsersClient method.
var Operations = []string{
	"brokers", "brokers_from", "broker", "health_overview", "decommission", "recommission",
	"decommission_status", "enable_maintenance", "disable_maintenance", "node_config",
	"patch_cluster_config", "cluster_config", "cluster_config_status", "post_restart_probe", "pre_restart_probe", "features", "cluster_partitions",
	"users", "create_user", "update_user", "delete_user",
}
