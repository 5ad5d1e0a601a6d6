package users

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func (r *reconcile) ready() {
	r.setReady(metav1.ConditionTrue, ReasonSynced, "the user holds the password of its Secret and the ACLs of its spec")
}

func (r *reconcile) notReady(reason, message string) {
	r.setReady(metav1.ConditionFalse, reason, message)
}

// setReady sets Ready; its transition time moves only when its status does.
func (r *reconcile) setReady(status metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(&r.status.Conditions, metav1.Condition{
		Type: ConditionReady, Status: status, Reason: reason, Message: message,
		ObservedGeneration: r.bu.Generation, LastTransitionTime: metav1.NewTime(r.c.cfg.Clock.Now()),
	})
}

// writeStatus writes the pass's status if it differs from the resource's: a pass that changed
// nothing writes nothing. The update carries the copy's resourceVersion, so a status written
// from a stale read fails with a conflict and the pass is retried.
func (r *reconcile) writeStatus(ctx context.Context) error {
	if equality.Semantic.DeepEqual(r.bu.Status, r.status) {
		return nil
	}
	cp := r.bu.DeepCopy()
	cp.Status = *r.status.DeepCopy()
	updated, err := r.nc.brokerUsers(cp.Namespace).UpdateStatus(ctx, cp, metav1.UpdateOptions{})
	if err != nil {
		return err
	}
	r.bu = updated
	return nil
}
