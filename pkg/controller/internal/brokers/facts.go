package brokers

import (
	"context"
	"errors"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// CheckFacts reads each fact afresh and returns a *factError for the first that does not hold,
// or the error of a read that failed. The pod is read first and health_overview last, so that
// the last read before the step is the one that sees every broker; a lost broker's node is read
// after them all.
// The membership facts are read from the controller leader (authority.go), found through view,
// the reconcile's brokers view (nil when the admin API was not asked).
func (a *Admin) CheckFacts(ctx context.Context, bc *v1alpha1.BrokerCluster, s step.Step, facts []step.Fact, view *View) error {
	if s.Kind == step.ReplaceStuckPod && step.ClusterBrokers(bc) == 1 {
		// The facts are about the other brokers, and a cluster of one has none; its only
		// broker cannot answer while its pod cannot start, so the version path rests on what
		// the decision judged from the pods' images (step/upgrade.go).
		facts = slices.DeleteFunc(slices.Clone(facts), func(f step.Fact) bool {
			return f == step.FactOthersUp || f == step.FactNoOtherDrain || f == step.FactSupportedVersion
		})
	}
	if slices.Contains(facts, step.FactInsideWindow) {
		if !s.AnyTime {
			// The clock, read now: a window that closed since the decision holds the step too.
			if err := step.CheckWindow(bc.Spec.MaintenanceWindows, a.cfg.Clock.Now()); err != nil {
				return err
			}
		}
		facts = slices.DeleteFunc(slices.Clone(facts), func(f step.Fact) bool { return f == step.FactInsideWindow })
	}
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
	if slices.ContainsFunc(facts, func(f step.Fact) bool {
		return f != step.FactHealthGate && f != step.FactPodReady && f != step.FactRestartSafe && f != step.FactNodeGone
	}) {
		brokers, err := a.readMembers(ctx, client, bc, view)
		if err != nil {
			return err
		}
		self := int32(-1)
		if s.Broker != nil {
			self = *s.Broker
		}
		if err := step.JudgeMembers(facts, self, members(brokers)); err != nil {
			return err
		}
		if slices.Contains(facts, step.FactSupportedVersion) {
			if err := checkVersion(ctx, client, s, brokers, view.featuresIndex(bc)); err != nil {
				return err
			}
		}
		if slices.Contains(facts, step.FactDataFits) {
			if err := checkDataFits(ctx, client, bc, brokers, view); err != nil {
				return err
			}
		}
	}
	gate := slices.Contains(facts, step.FactHealthGate)
	if slices.Contains(facts, step.FactRestartSafe) && !bc.Spec.UnsafeSkipHealthGate {
		risk, err := readRisk(ctx, client, bc, restartOrdinal(bc, s))
		if err != nil {
			return err
		}
		if risk.Decides() {
			if why := risk.Blocking(); why != "" {
				return &step.FactError{Fact: step.FactRestartSafe, Why: "its pre-restart probe reports " + why}
			}
		} else {
			gate = true // Redpanda before 25.1: the health gate decides, as before
		}
	}
	if gate && !bc.Spec.UnsafeSkipHealthGate {
		h, err := readHealth(ctx, client)
		if err != nil {
			return err
		}
		if !h.Healthy() {
			return &step.FactError{Fact: step.FactHealthGate, Why: "the cluster is not healthy: " + h.String()}
		}
	}
	if slices.Contains(facts, step.FactNodeGone) {
		// Last: the deletes that follow lose the broker's data, so the node's answer is the
		// freshest read before them.
		return a.checkNodeGone(ctx, bc, s)
	}
	return nil
}

// restartOrdinal is the pod ordinal of the broker a restart step acts on: the record it starts,
// or status.restart.
func restartOrdinal(bc *v1alpha1.BrokerCluster, s step.Step) int {
	if s.Restart != nil {
		return int(s.Restart.Ordinal)
	}
	if r := bc.Status.Restart; r != nil {
		return int(r.Ordinal)
	}
	return -1
}

// readRisk asks the broker at ordinal for its pre_restart_probe (step.Risk); a 404 is a broker
// older than Redpanda 25.1, which has none (NoProbe).
func readRisk(ctx context.Context, client admin.Client, bc *v1alpha1.BrokerCluster, ordinal int) (step.Risk, error) {
	risk := step.Risk{Asked: true}
	if spec := bc.Spec.Rollout; spec != nil {
		risk.BlockRF1 = spec.BlockRF1Offline
	}
	if ordinal < 0 {
		return risk, fmt.Errorf("pre-restart probe of %s/%s: no restart names a broker", bc.Namespace, bc.Name)
	}
	r, err := client.PreRestartProbe(ctx, ordinal)
	switch {
	case errors.Is(err, admin.ErrNotFound):
		risk.NoProbe = true
		return risk, nil
	case err != nil:
		return risk, err
	}
	risk.Unavailable, risk.Acks1DataLoss, risk.FullAcksProduceUnavailable, risk.RF1Offline = r.Unavailable, r.Acks1DataLoss, r.FullAcksProduceUnavailable, r.RF1Offline
	return risk, nil
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

// checkNodeGone reads the lost broker's claim, its volume and the volume's node from the
// apiserver, not from a cache: the claim must be the one the decision saw, bound to the same
// volume, pinned to the same node, and that node must still answer NotFound.
func (a *Admin) checkNodeGone(ctx context.Context, bc *v1alpha1.BrokerCluster, s step.Step) error {
	l := s.Lost
	if l == nil {
		return &step.FactError{Fact: step.FactNodeGone, Why: "no lost broker is named"}
	}
	v, ok, err := objects.ReadVolumeNode(ctx, a.cfg.Kube, bc.Namespace, l.Claim)
	switch {
	case err != nil:
		return err
	case !ok || v.ClaimUID != l.ClaimUID || v.Volume != l.Volume || v.Node != l.Node:
		return &step.FactError{Fact: step.FactNodeGone, Why: fmt.Sprintf("claim %s is no longer the one bound to volume %s on node %s", l.Claim, l.Volume, l.Node)}
	case !v.NodeGone:
		return &step.FactError{Fact: step.FactNodeGone, Why: fmt.Sprintf("node %s exists again", l.Node)}
	}
	return nil
}
