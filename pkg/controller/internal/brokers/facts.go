package brokers

import (
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// CheckFacts reads each fact afresh and returns a *factError for the first that does not hold,
// or the error of a read that failed. The pod is read first and health_overview last, so that
// the last read before the step is the one that sees every broker.
func (a *Admin) CheckFacts(ctx context.Context, bc *v1alpha1.BrokerCluster, s step.Step, facts []step.Fact) error {
	if len(facts) == 0 {
		return nil
	}
	if slices.Contains(facts, step.FactPodReady) {
		if err := a.checkPodReady(ctx, bc, s); err != nil {
			return err
		}
	}
	client, err := a.Client(ctx, bc)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(facts, func(f step.Fact) bool { return f != step.FactHealthGate && f != step.FactPodReady }) {
		brokers, err := client.Brokers(ctx)
		if err != nil {
			return err
		}
		self := int32(-1)
		if s.Broker != nil {
			self = *s.Broker
		}
		if err := step.JudgeMembers(facts, self, members(brokers), bc.Spec.UnsafeSkipHealthGate); err != nil {
			return err
		}
	}
	if slices.Contains(facts, step.FactHealthGate) && !bc.Spec.UnsafeSkipHealthGate {
		h, err := readHealth(ctx, client)
		if err != nil {
			return err
		}
		if !h.Healthy() {
			return &step.FactError{Fact: step.FactHealthGate, Why: "the cluster is not healthy: " + h.String()}
		}
	}
	return nil
}

// checkPodReady reads the restart's pod from the apiserver, not from the cache.
func (a *Admin) checkPodReady(ctx context.Context, bc *v1alpha1.BrokerCluster, s step.Step) error {
	r := s.Restart
	if r == nil {
		r = bc.Status.Restart
	}
	if r == nil {
		return &step.FactError{Fact: step.FactPodReady, Why: "no restart is recorded"}
	}
	p, err := a.cfg.Kube.CoreV1().Pods(bc.Namespace).Get(ctx, r.Pod, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("read pod %s/%s: %w", bc.Namespace, r.Pod, err)
	}
	switch {
	case string(p.UID) != r.PodUID:
		return &step.FactError{Fact: step.FactPodReady, Why: fmt.Sprintf("pod %s was replaced", r.Pod)}
	case p.DeletionTimestamp != nil:
		return &step.FactError{Fact: step.FactPodReady, Why: fmt.Sprintf("pod %s is being deleted", r.Pod)}
	case !brokerpod.IsReady(p):
		return &step.FactError{Fact: step.FactPodReady, Why: fmt.Sprintf("pod %s is not Ready", r.Pod)}
	}
	return nil
}
