package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
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

// clusterConfigDue reports whether this reconcile compares the desired cluster properties with
// the brokers: the spec implies properties or the operator manages some, and the spec changed
// since the last check, or the last check left something to wait for (a version not applied
// everywhere, a restart pending, an admin API that did not answer), or a desired property is not
// managed yet (a status written before the operator derived it from the spec). A refused write
// is tried again only when the spec changes. A cluster whose properties are all in effect makes
// no calls for them.
func clusterConfigDue(bc *v1alpha1.BrokerCluster) bool {
	st := bc.Status.ClusterConfig
	desired := brokerconfig.Desired(bc)
	if len(desired) == 0 && (st == nil || len(st.Managed) == 0) {
		return false
	}
	if st == nil || st.ObservedGeneration != bc.Generation {
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
	for name := range desired {
		if !slices.Contains(st.Managed, name) {
			return true
		}
	}
	return false
}

// syncClusterConfig brings the brokers' cluster properties to bc's spec and reports them. It
// returns bc as written, the brokers the rollout should restart for a pending property, and
// when to look again. An admin API that does not answer is reported in the ConfigApplied
// condition and does not stop the reconcile: scaling and rollouts decide on their own reads.
func (c *Controller) syncClusterConfig(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster, pods map[int]*corev1.Pod) (*v1alpha1.BrokerCluster, map[int32]bool, time.Duration, error) {
	if !clusterConfigDue(bc) || brokerpod.ReadyBelow(pods, bc.Status.CurrentReplicas) == 0 {
		return bc, nil, 0, nil // no broker to ask yet: a pod becoming Ready brings a reconcile
	}
	next := bc.Status.ClusterConfig
	out, err := c.checkClusterConfig(ctx, bc)
	var cond metav1.Condition
	if err != nil {
		reason, message := adminProblem(err)
		cond = metav1.Condition{Type: v1alpha1.ConditionConfigApplied, Status: metav1.ConditionUnknown,
			Reason: reason, Message: "cannot read or write the cluster properties: " + message, ObservedGeneration: bc.Generation}
	} else {
		st := nextConfigStatus(bc, out)
		next, cond = &st, configCondition(bc, st, out.statuses)
	}
	updated, err := c.writeConfigStatus(ctx, nc, bc, next, cond)
	if err != nil {
		return bc, nil, 0, err
	}
	var recheck time.Duration
	if cond.Status != metav1.ConditionTrue && cond.Reason != ReasonConfigRejected {
		recheck = c.cfg.DrainPollInterval
	}
	return updated, restartNeeded(out.statuses), recheck, nil
}

// checkClusterConfig makes the calls: read, write if needed, read the brokers' status. A 400
// from the write is an outcome, not an error.
func (c *Controller) checkClusterConfig(ctx context.Context, bc *v1alpha1.BrokerCluster) (configOutcome, error) {
	var out configOutcome
	client, err := c.adminClient(ctx, bc)
	if err != nil {
		return out, err
	}
	cc, err := configClient(client)
	if err != nil {
		return out, err
	}
	current, err := readClusterConfig(ctx, cc)
	if err != nil {
		return out, err
	}
	var managed []string
	if st := bc.Status.ClusterConfig; st != nil {
		managed = st.Managed
	}
	out.diff = brokerconfig.Diff(brokerconfig.Desired(bc), current, managed)
	if !out.diff.Empty() {
		if err := c.writeClusterConfig(ctx, cc, &out); err != nil {
			return out, err
		}
	}
	out.statuses, err = cc.ClusterConfigStatus(ctx)
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
func (c *Controller) writeClusterConfig(ctx context.Context, cc admin.ClusterConfigClient, out *configOutcome) error {
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

// writeConfigStatus patches status.clusterConfig and the ConfigApplied condition when they
// change, and sends an event when the condition does.
func (c *Controller) writeConfigStatus(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster, next *v1alpha1.ClusterConfigStatus, cond metav1.Condition) (*v1alpha1.BrokerCluster, error) {
	conds := append([]metav1.Condition(nil), bc.Status.Conditions...)
	old := meta.FindStatusCondition(conds, cond.Type)
	announce := old == nil || old.Status != cond.Status || old.Reason != cond.Reason ||
		(old.Message != cond.Message && cond.Status != metav1.ConditionUnknown) // an error's text varies from poll to poll
	cond.LastTransitionTime = metav1.NewTime(c.cfg.Clock.Now())
	changed := meta.SetStatusCondition(&conds, cond)
	same := next == nil || (bc.Status.ClusterConfig != nil && equality.Semantic.DeepEqual(*bc.Status.ClusterConfig, *next))
	if !changed && same {
		return bc, nil
	}
	fields := map[string]any{"conditions": conds}
	if !same {
		fields["clusterConfig"] = configStatusFields(next)
	}
	data, err := json.Marshal(map[string]any{"status": fields})
	if err != nil {
		return nil, fmt.Errorf("marshal cluster config status: %w", err)
	}
	updated, err := nc.brokerClusters(bc.Namespace).Patch(ctx, bc.Name, types.MergePatchType, data, metav1.PatchOptions{}, "status")
	if err != nil {
		return nil, fmt.Errorf("patch cluster config status of %s: %w", clusterKey(bc), err)
	}
	if announce {
		kind := corev1.EventTypeNormal
		if cond.Status != metav1.ConditionTrue && cond.Reason != ReasonConfigApplying && cond.Reason != ReasonConfigRestartPending {
			kind = corev1.EventTypeWarning
		}
		c.cfg.Recorder.Event(bc, kind, "ClusterConfig"+cond.Reason, cond.Message)
	}
	return updated, nil
}

// configStatusFields is status.clusterConfig for a merge patch: every field is named, so that
// one that became empty is cleared (null) rather than left as it was.
func configStatusFields(st *v1alpha1.ClusterConfigStatus) map[string]any {
	return map[string]any{
		"observedGeneration":    st.ObservedGeneration,
		"configVersion":         st.ConfigVersion,
		"applied":               st.Applied,
		"pendingRestart":        st.PendingRestart,
		"managed":               st.Managed,
		"brokersPendingRestart": st.BrokersPendingRestart,
		"rejected":              st.Rejected,
	}
}
