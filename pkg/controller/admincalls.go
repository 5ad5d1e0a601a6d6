package controller

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// decommission asks the admin API to drain a broker. A broker that is draining already counts
// as success.
func (c *Controller) decommission(ctx context.Context, bc *v1alpha1.BrokerCluster, id int32) error {
	client, err := c.admin.forCluster(bc, bc.Status.CurrentReplicas)
	if err != nil {
		return err
	}
	err = client.Decommission(ctx, int(id))
	switch {
	case err == nil, errors.Is(err, admin.ErrAlreadyDecommissioned):
		return nil
	case errors.Is(err, admin.ErrBrokerNotFound):
		klog.FromContext(ctx).V(2).Info("Decommissioned a broker that is not a member", "broker", id)
		return nil // gone: the next reconcile finishes
	}
	return fmt.Errorf("decommission broker %d of %s: %w", id, clusterKey(bc), err)
}

// recommission stops a drain. A broker that is not draining any more is fine; one that has
// left cannot be brought back, and the next reconcile finishes its decommission instead.
func (c *Controller) recommission(ctx context.Context, bc *v1alpha1.BrokerCluster, id int32) error {
	client, err := c.admin.forCluster(bc, bc.Status.CurrentReplicas)
	if err != nil {
		return err
	}
	err = client.Recommission(ctx, int(id))
	if err == nil || errors.Is(err, admin.ErrNotDecommissioning) {
		return nil
	}
	return fmt.Errorf("recommission broker %d of %s: %w", id, clusterKey(bc), err)
}

// adminFailed handles a failed admin call made before the status write: an unreachable API
// degrades the cluster; anything else is retried with backoff.
func (c *Controller) adminFailed(ctx context.Context, nc *namespaceCache, bc *v1alpha1.BrokerCluster, s step, err error) (result, error) {
	if !errors.Is(err, admin.ErrUnavailable) {
		return result{}, err
	}
	wait := step{Kind: stepWaitAdmin, Broker: s.Broker, Reason: fmt.Sprintf("%s: admin API did not answer", s.Kind)}
	return c.act(ctx, nc, bc, wait, observation{}, nil, nil, err)
}
