package users

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/broker-operator/broker-operator/internal/keyqueue"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// keepFinalizer holds the finalizer exactly while the resource created the user, or is about
// to: an adopted or foreign user is never deleted, so its resource never waits on the operator.
func (r *reconcile) keepFinalizer(ctx context.Context) error {
	want := r.status.Origin == v1alpha1.UserCreating || r.status.Origin == v1alpha1.UserCreated
	updated, err := keyqueue.SetFinalizer(ctx, r.bu, Finalizer, want, r.nc.brokerUsers(r.bu.Namespace).Update)
	if err != nil {
		return err
	}
	r.bu = updated
	return nil
}

// finalize runs once the resource is being deleted. It deletes the user, and its principal's
// ACLs when spec.authorization manages them, only when the resource created the user
// (status.origin Created); a user whose create never got an answer (Creating) may be someone
// else's and stays. The finalizer goes either way, and goes with an event when the cluster is
// gone, so a deleted cluster never holds its users' resources, nor their namespace
// (redpanda-data/redpanda-operator#1626 fixed that hang for its own resources).
func (r *reconcile) finalize(ctx context.Context) error {
	if !slices.Contains(r.bu.Finalizers, Finalizer) {
		return nil
	}
	switch {
	case r.bc == nil:
		r.event(corev1.EventTypeWarning, EventClusterGone, "BrokerCluster %s is gone: the finalizer is removed and user %s was not deleted", r.bu.Spec.ClusterRef.Name, r.bu.Name)
	case r.bu.Status.Origin != v1alpha1.UserCreated:
		r.event(corev1.EventTypeNormal, EventUserRetained, "User %s is left on the cluster: this resource did not create it", r.bu.Name)
	default:
		if err := r.deleteUser(ctx); err != nil {
			r.notReady(ReasonDeleting, fmt.Sprintf("deleting user %s: %v", r.bu.Name, err))
			return errors.Join(fmt.Errorf("delete user %s: %w", r.bu.Name, err), r.writeStatus(ctx))
		}
		r.event(corev1.EventTypeNormal, EventUserDeleted, "Deleted user %s", r.bu.Name)
	}
	_, err := keyqueue.SetFinalizer(ctx, r.bu, Finalizer, false, r.nc.brokerUsers(r.bu.Namespace).Update)
	return err
}

// deleteUser deletes the principal's ACLs, when the spec manages them, then the user. Both
// deletes find what exists at the moment of the call: the ACLs are read right before theirs,
// and deleting a user that is already gone succeeds (security.cc delete_user_handler).
func (r *reconcile) deleteUser(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, r.c.cfg.CallTimeout)
	defer cancel()
	if r.bu.Spec.Authorization != nil {
		if _, _, err := r.applyACLs(ctx, nil); err != nil {
			return err
		}
	}
	cl, err := r.c.cfg.Admin(ctx, r.bc)
	if err != nil {
		return err
	}
	return cl.DeleteUser(ctx, r.bu.Name)
}
