package admin

import (
	"context"
	"encoding/json"
)

// ClusterConfigClient reads and writes the cluster configuration: the calls of
// `rpk cluster config` (redpanda-data/common-go rpadmin/api_config.go: PatchClusterConfig,
// ClusterConfigStatus, Config). NewClusterConfigClient returns one.
type ClusterConfigClient interface {
	// PatchClusterConfig sets the upserted properties and resets the removed ones to their
	// defaults (PUT /v1/cluster_config). Redpanda validates every property first and changes
	// nothing when one is refused: the error is then a *ConfigValidationError.
	PatchClusterConfig(ctx context.Context, patch ConfigPatch) (ConfigWriteResult, error)
	// ClusterConfig is the cluster configuration one broker has (GET /v1/cluster_config), with
	// defaults or only the properties set away from them.
	ClusterConfig(ctx context.Context, includeDefaults bool) (map[string]json.RawMessage, error)
	// ClusterConfigStatus is each broker's view of the configuration
	// (GET /v1/cluster_config/status).
	ClusterConfigStatus(ctx context.Context) ([]ConfigStatus, error)
}

// ConfigPatch is the body of PUT /v1/cluster_config (server.cc make_cluster_config_validator:
// both keys are required).
type ConfigPatch struct {
	// Upsert maps property names to their JSON values.
	Upsert map[string]json.RawMessage
	// Remove names properties to reset to their defaults.
	Remove []string
	// DryRun validates without applying (query dry_run=true).
	DryRun bool
	// Force skips validation and accepts unknown properties (query force=true). The operator
	// never sets it: a refused property must stay refused.
	Force bool
}

// ConfigWriteResult is api-doc/cluster_config.json's cluster_config_write_result.
type ConfigWriteResult struct {
	// ConfigVersion is the version the write produced; for a dry run or a write that changed
	// nothing, the current version.
	ConfigVersion int64 `json:"config_version"`
}

// ConfigStatus is one broker's api-doc/cluster_config.json cluster_config_status.
type ConfigStatus struct {
	NodeID int `json:"node_id"`
	// Restart: the broker has a property that takes effect only when it restarts.
	Restart bool `json:"restart"`
	// ConfigVersion is the version the broker has applied.
	ConfigVersion int64 `json:"config_version"`
	// Invalid are properties whose value the broker could not apply.
	Invalid []string `json:"invalid"`
	// Unknown are properties the broker does not know.
	Unknown []string `json:"unknown"`
}

// ConfigValidationError is Redpanda's 400 answer to PUT /v1/cluster_config: each refused
// property with its reason, for example "Unknown property" or "too small, must be at least
// 1048576". It matches ErrBadRequest.
type ConfigValidationError struct {
	// Err is the failed call: status 400, Kind ErrBadRequest.
	Err *Error
	// Properties maps each refused property to Redpanda's reason.
	Properties map[string]string
}

func (e *ConfigValidationError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying *Error, so errors.Is(err, ErrBadRequest) holds.
func (e *ConfigValidationError) Unwrap() error { return e.Err }
