package controller

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokers"
)

// syncClusterConfig brings the brokers' cluster properties to bc's spec and reports them. It
// keeps bc as written, and returns the brokers the rollout should restart for a pending property, and
// when to look again. An admin API that does not answer is reported in the ConfigApplied
// condition and does not stop the reconcile: scaling and rollouts decide on their own reads.
// Nor does a cloud storage credentials' Secret that cannot be used: nothing is written until it
// can, and the condition says why.
//
// The superuser goes first (security.go): with spec.kafka.sasl the properties wait until it is
// in place.
func (r *reconcile) syncClusterConfig(ctx context.Context) (map[int32]bool, time.Duration, error) {
	hold, securityRecheck, err := r.syncSecurity(ctx)
	if err != nil || hold {
		return nil, securityRecheck, err
	}
	restarts, recheck, err := r.syncClusterProperties(ctx)
	return restarts, sooner(recheck, securityRecheck), err
}

// syncClusterProperties is syncClusterConfig's cluster properties.
func (r *reconcile) syncClusterProperties(ctx context.Context) (map[int32]bool, time.Duration, error) {
	c, bc, pods := r.c, r.bc, r.pods
	creds, credsErr := c.brokers.ReadCloudCredentials(ctx, bc)
	if credsErr != nil && !brokers.IsSecretProblem(credsErr) {
		return nil, 0, credsErr
	}
	// A Secret rotated or made later brings no event: look again now and then.
	recheck := credentialsRecheck(bc)
	if credsErr == nil && (!brokers.ClusterConfigDue(bc, creds.Version) || brokerpod.ReadyBelow(pods, bc.Status.CurrentReplicas) == 0) {
		return nil, recheck, nil // no broker to ask yet: a pod becoming Ready brings a reconcile
	}
	next := bc.Status.ClusterConfig
	var out brokers.ConfigOutcome
	var cond metav1.Condition
	err := credsErr
	if err == nil {
		out, err = c.brokers.CheckClusterConfig(ctx, bc, creds)
	}
	if err != nil {
		reason, message := brokers.Problem(err)
		cond = metav1.Condition{Type: v1alpha1.ConditionConfigApplied, Status: metav1.ConditionUnknown,
			Reason: reason, Message: "cannot read or write the cluster properties: " + message, ObservedGeneration: bc.Generation}
		if credsErr != nil {
			cond.Status, cond.Message = metav1.ConditionFalse, "cloud storage keys cannot be read, so no cluster property is written: "+message
		}
	} else {
		st := brokers.NextConfigStatus(bc, out)
		next, cond = &st, brokers.ConfigCondition(bc, st, out.Statuses)
	}
	updated, err := r.writeConfigStatus(ctx, next, cond)
	if err != nil {
		return nil, 0, err
	}
	if cond.Status != metav1.ConditionTrue && cond.Reason != ReasonConfigRejected {
		recheck = sooner(recheck, c.cfg.DrainPollInterval)
	}
	r.bc = updated
	return brokers.RestartNeeded(out.Statuses), recheck, nil
}

// writeConfigStatus patches status.clusterConfig and the ConfigApplied condition when they
// change, and sends an event when the condition does.
func (r *reconcile) writeConfigStatus(ctx context.Context, next *v1alpha1.ClusterConfigStatus, cond metav1.Condition) (*v1alpha1.BrokerCluster, error) {
	c, nc, bc := r.c, r.nc, r.bc
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
	updated, err := patchStatusFields(ctx, nc, bc, "cluster config status", fields)
	if err != nil {
		return nil, err
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
		"credentialsVersion":    st.CredentialsVersion,
	}
}
