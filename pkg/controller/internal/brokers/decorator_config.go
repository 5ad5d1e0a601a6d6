package brokers

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/broker-operator/broker-operator/pkg/admin"
)

// The cluster configuration calls, decorated as the others are (decorator.go): bound by the
// reconcile's deadline and counted in admin_requests_total.

var _ admin.ClusterConfigClient = decoratedAdmin{}

// configInner is the inner client's cluster configuration calls; every client admin.NewClient
// returns has them.
func (d decoratedAdmin) configInner() (admin.ClusterConfigClient, error) {
	cc, ok := d.inner.(admin.ClusterConfigClient)
	if !ok {
		return nil, fmt.Errorf("admin client %T has no cluster configuration calls", d.inner)
	}
	return cc, nil
}

func (d decoratedAdmin) PatchClusterConfig(ctx context.Context, patch admin.ConfigPatch) (admin.ConfigWriteResult, error) {
	return decorate(ctx, d, "patch_cluster_config", func(ctx context.Context) (admin.ConfigWriteResult, error) {
		cc, err := d.configInner()
		if err != nil {
			return admin.ConfigWriteResult{}, err
		}
		return cc.PatchClusterConfig(ctx, patch)
	})
}

func (d decoratedAdmin) ClusterConfig(ctx context.Context, includeDefaults bool) (map[string]json.RawMessage, error) {
	return decorate(ctx, d, "cluster_config", func(ctx context.Context) (map[string]json.RawMessage, error) {
		cc, err := d.configInner()
		if err != nil {
			return nil, err
		}
		return cc.ClusterConfig(ctx, includeDefaults)
	})
}

func (d decoratedAdmin) ClusterConfigStatus(ctx context.Context) ([]admin.ConfigStatus, error) {
	return decorate(ctx, d, "cluster_config_status", func(ctx context.Context) ([]admin.ConfigStatus, error) {
		cc, err := d.configInner()
		if err != nil {
			return nil, err
		}
		return cc.ClusterConfigStatus(ctx)
	})
}

// configClient is client's cluster configuration calls.
func ConfigClient(client admin.Client) (admin.ClusterConfigClient, error) {
	if cc, ok := client.(admin.ClusterConfigClient); ok {
		return cc, nil
	}
	return decoratedAdmin{inner: client}.configInner()
}
