package controller

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
)

// ensureServiceAccount makes the broker pods' service account when spec.serviceAccount.create
// asks for it, or puts its labels and annotations back (an IAM role annotation changed in the
// spec reaches it here). It runs before the StatefulSets, so that no pod waits for it. One the
// spec no longer asks for is left alone: pods not yet restarted still run as it, and it goes
// with the BrokerCluster, which owns it.
func (r *reconcile) ensureServiceAccount(ctx context.Context) error {
	bc := r.bc
	if r.whole != nil {
		bc = r.whole // a focus view carries a pool's service account, not the cluster's
	}
	sa := objects.NewServiceAccount(bc)
	if sa == nil {
		return nil
	}
	nc, ns := r.nc, bc.Namespace
	existing, err := nc.listers().serviceAccounts.ServiceAccounts(ns).Get(sa.Name)
	switch {
	case apierrors.IsNotFound(err):
		if _, err := nc.serviceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create ServiceAccount %s/%s: %w", ns, sa.Name, err)
		}
		return nil
	case err != nil:
		return err
	}
	if err := r.checkOwned(existing); err != nil {
		return err
	}
	update := objects.UpdatedServiceAccount(existing, sa)
	if update == nil {
		return nil
	}
	if _, err := nc.serviceAccounts(ns).Update(ctx, update, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update ServiceAccount %s/%s: %w", ns, sa.Name, err)
	}
	return nil
}
