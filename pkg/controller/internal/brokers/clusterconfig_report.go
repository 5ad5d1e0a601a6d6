package brokers

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// What the cluster configuration check reports: status.clusterConfig and the ConfigApplied
// condition, from what the brokers answered. Pure; clusterconfig.go does the calls.

// ConfigApplied reasons.
const (
	// ReasonConfigApplied: every broker has spec.clusterConfig in effect.
	ReasonConfigApplied = "Applied"
	// ReasonConfigApplying: a broker has not applied the last config_version yet.
	ReasonConfigApplying = "Applying"
	// ReasonConfigRestartPending: a broker reports restart: true; the rollout restarts it.
	ReasonConfigRestartPending = "RestartPending"
	// ReasonConfigRejected: Redpanda refused the write (400) and changed nothing.
	ReasonConfigRejected = "Rejected"
)

// configOutcome is what one check found.
type ConfigOutcome struct {
	diff brokerconfig.ConfigDiff
	// wrote: a PUT was accepted; version is its config_version.
	wrote   bool
	version int64
	// rejected is Redpanda's 400 answer, property to reason; nil when the write was accepted or
	// not needed.
	rejected map[string]string
	// credentials is the version of the cloud storage keys' Secret the check wrote from.
	credentials string
	Statuses    []admin.ConfigStatus
}

// nextConfigStatus is status.clusterConfig after a check of bc that the brokers answered.
func NextConfigStatus(bc *v1alpha1.BrokerCluster, out ConfigOutcome) v1alpha1.ClusterConfigStatus {
	var next v1alpha1.ClusterConfigStatus
	if prev := bc.Status.ClusterConfig; prev != nil {
		next = *prev.DeepCopy()
	}
	next.ObservedGeneration = bc.Generation
	desired := brokerconfig.DesiredNames(bc)
	if out.rejected != nil {
		// Nothing was changed: what the brokers had at the desired value is still applied.
		next.Applied = nilIfEmpty(out.diff.Unchanged)
		next.Rejected = rejectedList(out.rejected)
	} else {
		next.Applied, next.Managed, next.Rejected = nilIfEmpty(desired), nilIfEmpty(desired), nil
		next.CredentialsVersion = out.credentials
	}
	if out.wrote {
		next.ConfigVersion = out.version
		changed := append(slices.Collect(maps.Keys(out.diff.Upsert)), out.diff.Remove...)
		next.PendingRestart = sortedUnion(next.PendingRestart, changed)
	}
	restart, behind := brokerConfigState(out.Statuses, next.ConfigVersion)
	next.BrokersPendingRestart = nilIfEmpty(restart)
	if len(restart) == 0 && len(behind) == 0 {
		next.PendingRestart = nil
	}
	return next
}

// brokerConfigState lists the brokers that report restart: true and those whose config_version
// is below version, sorted.
func brokerConfigState(statuses []admin.ConfigStatus, version int64) (restart, behind []int32) {
	for _, s := range statuses {
		if s.Restart {
			restart = append(restart, int32(s.NodeID))
		}
		if s.ConfigVersion < version {
			behind = append(behind, int32(s.NodeID))
		}
	}
	slices.Sort(restart)
	slices.Sort(behind)
	return restart, behind
}

// restartNeeded are the brokers the rollout restarts for a pending property: those that report
// restart: true, once every broker reports the same config_version. Redpanda operator v1 waits
// for that too before it restarts anything (operator/internal/controller/vectorized/
// cluster_controller_configuration.go, isSafeToRestart): a broker still applying a version may
// yet raise its restart flag.
func RestartNeeded(statuses []admin.ConfigStatus) map[int32]bool {
	versions := map[int64]bool{}
	out := map[int32]bool{}
	for _, s := range statuses {
		versions[s.ConfigVersion] = true
		if s.Restart {
			out[int32(s.NodeID)] = true
		}
	}
	if len(versions) > 1 {
		return nil
	}
	return out
}

// configCondition is the ConfigApplied condition for a status the brokers answered.
func ConfigCondition(bc *v1alpha1.BrokerCluster, st v1alpha1.ClusterConfigStatus, statuses []admin.ConfigStatus) metav1.Condition {
	c := metav1.Condition{Type: v1alpha1.ConditionConfigApplied, ObservedGeneration: bc.Generation, Status: metav1.ConditionFalse}
	restart, behind := brokerConfigState(statuses, st.ConfigVersion)
	switch {
	case len(st.Rejected) > 0:
		c.Reason = ReasonConfigRejected
		c.Message = "Redpanda refused the cluster properties and changed nothing: " + rejectedText(st.Rejected)
	case len(behind) > 0:
		c.Reason = ReasonConfigApplying
		c.Message = fmt.Sprintf("cluster config version %d written; %s not applied it yet", st.ConfigVersion, brokersHave(behind))
	case len(restart) > 0:
		c.Reason = ReasonConfigRestartPending
		c.Message = fmt.Sprintf("%s; %s", propertiesApplied(st.PendingRestart), brokersNeedRestart(restart))
	default:
		c.Status, c.Reason = metav1.ConditionTrue, ReasonConfigApplied
		c.Message = propertiesApplied(st.Applied) + " on every broker"
		if len(st.Applied) == 0 {
			c.Message = "no cluster properties set by the operator"
		}
	}
	return c
}

func propertiesApplied(names []string) string {
	switch len(names) {
	case 0:
		return "a cluster property change is applied"
	case 1:
		return fmt.Sprintf("cluster property %s applied", names[0])
	}
	return fmt.Sprintf("cluster properties %s applied", strings.Join(names, ", "))
}

func brokersNeedRestart(ids []int32) string {
	if len(ids) == 1 {
		return fmt.Sprintf("1 broker needs a restart (%d)", ids[0])
	}
	return fmt.Sprintf("%d brokers need a restart (%s)", len(ids), step.GhostList(ids))
}

func brokersHave(ids []int32) string {
	if len(ids) == 1 {
		return fmt.Sprintf("broker %d has", ids[0])
	}
	return fmt.Sprintf("brokers %s have", step.GhostList(ids))
}

func rejectedList(m map[string]string) []v1alpha1.RejectedProperty {
	out := make([]v1alpha1.RejectedProperty, 0, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		out = append(out, v1alpha1.RejectedProperty{Name: name, Reason: m[name]})
	}
	return out
}

func rejectedText(rs []v1alpha1.RejectedProperty) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%s: %s", r.Name, r.Reason))
	}
	return strings.Join(parts, "; ")
}

func sortedUnion(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return nilIfEmpty(slices.Compact(out))
}

// nilIfEmpty keeps an empty list out of the status, where omitempty drops it.
func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}
