package controller

import (
	"context"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokers"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// syncSecurity puts the superuser of spec.adminAPI.auth in place on a running cluster before
// anything is enforced, and follows a rotation of its password (internal/brokers/superuser.go),
// reporting each stage with an event and the SecurityReady condition. It returns whether the
// cluster properties must wait this reconcile: with spec.kafka.sasl, enable_sasl is written
// only once the superuser is ready, or no client could log in. An admin API that does not
// answer, or a Secret that cannot be used, is reported in the condition and does not fail the
// reconcile.
func (r *reconcile) syncSecurity(ctx context.Context) (hold bool, recheck time.Duration, err error) {
	bc := r.bc
	if bc.Spec.AdminAPI.Auth == nil {
		return false, 0, nil
	}
	old := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionSecurityReady)
	ready := old != nil && old.Status == metav1.ConditionTrue
	if brokerpod.ReadyBelow(r.pods, bc.Status.CurrentReplicas) == 0 {
		return saslAsked(bc) && !ready, 0, nil // no broker to ask yet: a pod becoming Ready brings a reconcile
	}
	due := !ready || old.ObservedGeneration != bc.Generation
	out, err := r.c.brokers.SyncSecurity(ctx, bc, due)
	if err == nil && !out.Checked {
		// Verified before with this Secret and spec. The operator does not watch Secrets, so a
		// rotation is noticed at the next look.
		return false, CredentialsRecheck, nil
	}
	cond := metav1.Condition{Type: v1alpha1.ConditionSecurityReady, Status: out.Status, Reason: out.Reason, Message: out.Message, ObservedGeneration: bc.Generation}
	if err != nil {
		reason, message := brokers.Problem(err)
		cond.Status, cond.Reason = metav1.ConditionUnknown, reason
		cond.Message = "cannot check or put in place the superuser: " + message
		if brokers.IsSecretProblem(err) {
			cond.Status = metav1.ConditionFalse
		}
		if n := len(out.Stages); n > 0 {
			cond.Message = out.Stages[n-1].Message + "; then " + cond.Message
		}
	}
	for _, st := range out.Stages {
		r.c.cfg.Recorder.Event(bc, corev1.EventTypeNormal, st.Reason, st.Message)
	}
	if err := r.writeSecurityCondition(ctx, old, cond, err != nil, out.Stages); err != nil {
		return false, 0, err
	}
	if cond.Status == metav1.ConditionTrue {
		return false, CredentialsRecheck, nil
	}
	return saslAsked(bc), r.c.cfg.DrainPollInterval, nil
}

// writeSecurityCondition patches the condition when it changes, with an event when its status
// or reason does and no stage event said it already.
func (r *reconcile) writeSecurityCondition(ctx context.Context, old *metav1.Condition, cond metav1.Condition, failed bool, stages []brokers.SecurityStage) error {
	bc := r.bc
	conds := append([]metav1.Condition(nil), bc.Status.Conditions...)
	cond.LastTransitionTime = metav1.NewTime(r.c.cfg.Clock.Now())
	if !meta.SetStatusCondition(&conds, cond) {
		return nil
	}
	updated, err := patchStatusFields(ctx, r.nc, bc, "security condition", map[string]any{"conditions": conds})
	if err != nil {
		return err
	}
	r.bc = updated
	announced := len(stages) > 0 && stages[len(stages)-1].Reason == cond.Reason
	if announced || (old != nil && old.Status == cond.Status && old.Reason == cond.Reason) {
		return nil
	}
	kind, reason := corev1.EventTypeNormal, cond.Reason
	switch {
	case failed:
		kind, reason = corev1.EventTypeWarning, brokers.EventSecurityCheckFailed
	case cond.Status != metav1.ConditionTrue:
		kind = corev1.EventTypeWarning
	}
	r.c.cfg.Recorder.Event(bc, kind, reason, cond.Message)
	return nil
}

// saslAsked reports whether the spec asks for Kafka SASL.
func saslAsked(bc *v1alpha1.BrokerCluster) bool {
	return bc.Spec.Kafka != nil && bc.Spec.Kafka.SASL != nil
}

// superuserHold says why the rollout must not restart a broker yet: spec.kafka.sasl asks for
// SASL, SecurityReady is not True for this spec, and a pod in the rollout's order runs a broker
// whose listeners do not require SASL, so its restart would turn SASL on with no superuser to
// log in as (step.HoldForSuperuser). Empty otherwise. It reads the condition syncSecurity left
// in this reconcile.
func superuserHold(bc *v1alpha1.BrokerCluster, pods map[int]*corev1.Pod, order []step.PodAt) string {
	if !saslAsked(bc) || bc.Spec.AdminAPI.Auth == nil {
		return ""
	}
	turnsOn := slices.ContainsFunc(order, func(p step.PodAt) bool {
		pod := pods[int(p.Ordinal)]
		return pod != nil && !objects.PodRequiresSASL(pod)
	})
	if !turnsOn {
		return ""
	}
	c := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionSecurityReady)
	switch {
	case c == nil || c.ObservedGeneration != bc.Generation:
		return "SecurityReady is not known for this spec yet: no broker was Ready to ask"
	case c.Status == metav1.ConditionTrue:
		return ""
	}
	return "SecurityReady is " + string(c.Status) + ", " + c.Reason + ": " + c.Message
}
