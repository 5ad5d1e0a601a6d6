package controller

import (
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// factError says which fact did not hold, and why.
type factError struct {
	Fact fact
	Why  string
}

func (e *factError) Error() string { return fmt.Sprintf("it needs %s, but %s", e.Fact, e.Why) }

// checkFacts reads each fact afresh and returns a *factError for the first that does not hold,
// or the error of a read that failed. The pod is read first and health_overview last, so that
// the last read before the step is the one that sees every broker.
func (c *Controller) checkFacts(ctx context.Context, bc *v1alpha1.BrokerCluster, s step, facts []fact) error {
	if len(facts) == 0 {
		return nil
	}
	if slices.Contains(facts, factPodReady) {
		if err := c.checkPodReady(ctx, bc, s); err != nil {
			return err
		}
	}
	client, err := c.adminClient(ctx, bc)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(facts, func(f fact) bool { return f != factHealthGate && f != factPodReady }) {
		brokers, err := client.Brokers(ctx)
		if err != nil {
			return err
		}
		for _, f := range facts {
			if err := brokerFact(f, bc, s, brokers); err != nil {
				return err
			}
		}
	}
	if slices.Contains(facts, factHealthGate) && !bc.Spec.UnsafeSkipHealthGate {
		h, err := c.readHealth(ctx, client)
		if err != nil {
			return err
		}
		if !h.healthy() {
			return &factError{Fact: factHealthGate, Why: "the cluster is not healthy: " + h.String()}
		}
	}
	return nil
}

// brokerFact judges one fact that the brokers list answers; others pass.
func brokerFact(f fact, bc *v1alpha1.BrokerCluster, s step, brokers []admin.Broker) error {
	var self int32 = -1
	if s.Broker != nil {
		self = *s.Broker
	}
	for _, b := range brokers {
		other := int32(b.NodeID) != self
		switch {
		case f == factOthersUp && other && !b.IsAlive && !bc.Spec.UnsafeSkipHealthGate:
			return &factError{Fact: f, Why: fmt.Sprintf("broker %d is down", b.NodeID)}
		case f == factNoOtherDrain && other && b.MembershipStatus == admin.MembershipDraining:
			return &factError{Fact: f, Why: fmt.Sprintf("broker %d is draining", b.NodeID)}
		case f == factNoOtherDrain && other && b.MaintenanceStatus.Draining:
			return &factError{Fact: f, Why: fmt.Sprintf("broker %d is in maintenance", b.NodeID)}
		case f == factBrokerLeft && !other && b.MembershipStatus != admin.MembershipRemoved:
			return &factError{Fact: f, Why: fmt.Sprintf("broker %d is still listed as %s", b.NodeID, b.MembershipStatus)}
		}
	}
	return nil
}

// checkPodReady reads the restart's pod from the apiserver, not from the cache.
func (c *Controller) checkPodReady(ctx context.Context, bc *v1alpha1.BrokerCluster, s step) error {
	r := s.Restart
	if r == nil {
		r = bc.Status.Restart
	}
	if r == nil {
		return &factError{Fact: factPodReady, Why: "no restart is recorded"}
	}
	p, err := c.cfg.KubeClient.CoreV1().Pods(bc.Namespace).Get(ctx, r.Pod, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("read pod %s/%s: %w", bc.Namespace, r.Pod, err)
	}
	switch {
	case string(p.UID) != r.PodUID:
		return &factError{Fact: factPodReady, Why: fmt.Sprintf("pod %s was replaced", r.Pod)}
	case p.DeletionTimestamp != nil:
		return &factError{Fact: factPodReady, Why: fmt.Sprintf("pod %s is being deleted", r.Pod)}
	case !isPodReady(p):
		return &factError{Fact: factPodReady, Why: fmt.Sprintf("pod %s is not Ready", r.Pod)}
	}
	return nil
}
