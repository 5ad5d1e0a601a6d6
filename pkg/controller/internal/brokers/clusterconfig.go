package brokers

import (
	"context"
	"errors"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
)

// Cluster properties (spec.clusterConfig), written through the admin API as `rpk cluster config
// import` writes them (redpanda-data/redpanda src/go/rpk/pkg/cli/cluster/config/import.go): read
// the values in effect and the properties away from their defaults, upsert those whose value
// differs, remove those the operator set before that left the spec, one PUT /v1/cluster_config,
// then read
// GET /v1/cluster_config/status. Redpanda validates the whole PUT first and changes nothing when
// it refuses one property (src/v/redpanda/admin/server.cc, patch_cluster_config_handler).
//
// The check runs before the decision of each reconcile that needs it, so that a broker that
// reports restart: true is one the rollout restarts (observeRollout). Like the StatefulSet's
// template, the write changes what the brokers should run and takes no capacity away; the
// restart it may call for goes through the step table like any other.

// The properties the operator derives from the rest of the spec (enable_sasl and
// sasl_mechanisms with spec.kafka.sasl, enable_rack_awareness with spec.rackAwareness;
// brokerconfig.ClusterProperties) go through the same check: .bootstrap.yaml sets them only
// when the cluster is created, so a running cluster that gains or loses SASL or racks gets
// them here. They are upserted while the spec implies them and removed (back to Redpanda's
// default) once it no longer does. The chart likewise renders enable_sasl and
// enable_rack_awareness into the configuration it syncs after every install and upgrade
// (charts/redpanda/configmap.tpl.go, BootstrapContents; operator/cmd/syncclusterconfig/
// sync.go, Syncer.Sync).

// ClusterConfigDue reports whether this reconcile compares the desired cluster properties with
// the brokers: the spec implies properties or the operator manages some, and the spec changed
// since the last check, or the last check left something to wait for (a version not applied
// everywhere, a restart pending, an admin API that did not answer), or a desired property is not
// managed yet (a status written before the operator derived it from the spec). A refused write
// is tried again only when the spec changes. A cluster whose properties are all in effect makes
// no calls for them.
//
// credentials is the version of the cloud storage keys' Secret as read this reconcile
// (CloudCredentials.Version, "" for none): a Secret rotated since the keys were written makes
// the check due too, since Redpanda never shows a secret key back to compare.
func ClusterConfigDue(bc *v1alpha1.BrokerCluster, credentials string) bool {
	st := bc.Status.ClusterConfig
	desired := brokerconfig.DesiredNames(bc)
	// Properties reset to their defaults may still wait for a restart: followed until done.
	if len(desired) == 0 && (st == nil || len(st.Managed) == 0 && len(st.PendingRestart) == 0 && len(st.BrokersPendingRestart) == 0) {
		return false
	}
	if st == nil || st.ObservedGeneration != bc.Generation {
		return true
	}
	if st.CredentialsVersion != credentials && len(st.Rejected) == 0 {
		return true
	}
	c := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionConfigApplied)
	switch {
	case c == nil:
		return true
	case c.Reason == ReasonConfigRejected:
		return false
	case c.Status != metav1.ConditionTrue:
		return true
	}
	for _, name := range desired {
		if !slices.Contains(st.Managed, name) {
			return true
		}
	}
	return false
}

// CheckClusterConfig makes the calls: read, write if needed, read the brokers' status. A 400
// from the write is an outcome, not an error.
//
// creds are the cloud storage keys read from the Secret the spec names: they are written with
// the other properties, in the same PUT (Redpanda checks cloud_storage_enabled against the keys
// of the configuration that write leaves, server.cc config_multi_property_validation), and
// appear in no log, event or status.
func (a *Admin) CheckClusterConfig(ctx context.Context, bc *v1alpha1.BrokerCluster, creds brokerconfig.CloudCredentials) (ConfigOutcome, error) {
	out := ConfigOutcome{credentials: creds.Version}
	client, err := a.Client(ctx, bc)
	if err != nil {
		return out, err
	}
	cc, err := ConfigClient(client)
	if err != nil {
		return out, err
	}
	current, err := readClusterConfig(ctx, cc)
	if err != nil {
		return out, err
	}
	var managed []string
	var applied string
	if st := bc.Status.ClusterConfig; st != nil {
		managed, applied = st.Managed, st.CredentialsVersion
	}
	desired := brokerconfig.Desired(bc)
	creds.AddTo(desired)
	out.diff = brokerconfig.Diff(desired, current, managed)
	creds.KeepApplied(&out.diff, current, applied)
	if !out.diff.Empty() {
		if err := a.writeClusterConfig(ctx, cc, &out); err != nil {
			return out, err
		}
	}
	out.Statuses, err = cc.ClusterConfigStatus(ctx)
	return out, err
}

// readClusterConfig reads the values in effect and those away from their defaults: a desired
// value equal to Redpanda's default (sasl_mechanisms [SCRAM]) is compared with the first, and
// only a property in the second has anything to remove.
func readClusterConfig(ctx context.Context, cc admin.ClusterConfigClient) (brokerconfig.Current, error) {
	var cur brokerconfig.Current
	var err error
	if cur.All, err = cc.ClusterConfig(ctx, true); err != nil {
		return cur, err
	}
	cur.Set, err = cc.ClusterConfig(ctx, false)
	return cur, err
}

// writeClusterConfig sends the diff, never with force: a refused property stays refused.
func (a *Admin) writeClusterConfig(ctx context.Context, cc admin.ClusterConfigClient, out *ConfigOutcome) error {
	res, err := cc.PatchClusterConfig(ctx, admin.ConfigPatch{Upsert: out.diff.Upsert, Remove: out.diff.Remove})
	var ve *admin.ConfigValidationError
	switch {
	case errors.As(err, &ve):
		out.rejected = ve.Properties
		return nil
	case err != nil:
		return err
	}
	out.wrote, out.version = true, res.ConfigVersion
	klog.FromContext(ctx).V(2).Info("Wrote cluster properties", "upsert", len(out.diff.Upsert), "remove", out.diff.Remove, "configVersion", res.ConfigVersion)
	return nil
}
