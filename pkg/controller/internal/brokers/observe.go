package brokers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// Observe fills in the brokers' part of o, the observation of bc and its pods, from the admin
// API, and returns the brokers list it read (nil when it was not asked). The Secrets bc names
// are read on every reconcile, so that a missing or malformed one shows as soon as it is named,
// not first in the middle of a scale-down; the admin API is asked only when a decision needs
// the brokers' view (step.NeedsAdmin), or a broker's volume is on a node that is gone (the ID
// it ran is then read from the members list). o.AdminUnavailable is set when it did not answer.
func (a *Admin) Observe(ctx context.Context, bc *v1alpha1.BrokerCluster, pods map[int]*corev1.Pod, o *step.Observation) (*View, error) {
	st := bc.Status
	sec, err := a.ReadSecurity(ctx, bc)
	if err != nil {
		o.AdminUnavailable = true
		return nil, err
	}
	if !step.NeedsAdmin(bc, pods, o.Rollout) && len(o.LostNodes.Brokers) == 0 {
		return nil, nil
	}
	client, err := a.clients.forCluster(bc, st.CurrentReplicas, sec)
	if err != nil {
		o.AdminUnavailable = true
		return nil, err
	}
	client = BoundByDeadline(ctx, client)
	list, err := client.Brokers(ctx)
	if err != nil {
		o.AdminUnavailable = true
		return nil, err
	}
	view := NewView(objects.FocusSet(bc), list)
	view.elsewhere = o.Elsewhere
	if err := view.fill(ctx, client, bc, pods, o); err != nil {
		o.AdminUnavailable = true
		return &view, err
	}
	a.observeRecovery(ctx, client, bc, o)
	return &view, nil
}

// fill fills in the brokers' part of o from the admin API: who runs each pod, the
// membership of B, of the next to go and of the next to restart, R's maintenance mode and
// whether the others are up, and health_overview when a step behind the health gate may be
// next.
func (view *View) fill(ctx context.Context, client admin.Client, bc *v1alpha1.BrokerCluster, pods map[int]*corev1.Pod, o *step.Observation) error {
	st := bc.Status
	victimOrdinal := -1
	if st.CurrentReplicas > 0 && st.DecommissioningBroker == nil && st.CurrentReplicas > bc.Spec.Replicas {
		victimOrdinal = int(o.Victim.Ordinal)
	} else if st.DecommissioningBroker == nil && st.Restart == nil && st.CurrentReplicas == bc.Spec.Replicas && o.Rollout.Outdated > 0 {
		// The next broker to restart is asked who it is, as the next to go is, before its
		// irreversible step.
		victimOrdinal = int(o.Rollout.Next.Ordinal)
	}
	var err error
	if view.identities, err = IdentifyPods(ctx, client, pods, *view, victimOrdinal); err != nil {
		return err
	}
	if o.Decommissioning != nil {
		o.Target = view.membershipOf(*o.Decommissioning)
	}
	if st.CurrentReplicas > 0 {
		o.Victim = VictimOf(o.Victim.Ordinal, *view)
	}
	if o.Rollout.Outdated > 0 {
		o.Rollout.Next = VictimOf(o.Rollout.Next.Ordinal, *view)
	}
	if r := o.Rollout.Restart; r != nil {
		b, listed := view.byID[int(r.NodeID)]
		o.Rollout.Back = o.Rollout.Back && listed && b.IsAlive && b.MembershipStatus == admin.MembershipActive
		_, down := step.FirstDown(view.members, r.NodeID)
		o.Rollout.OthersUp = !down
		if r.Step == v1alpha1.RestartDraining || stuckRestart(o) {
			m, err := readMaintenance(ctx, client, r.NodeID)
			if err != nil {
				return err
			}
			o.Rollout.Maintenance = m
		}
	}
	view.observePlacement(ctx, client, bc, o)
	if step.BehindHealthGate(*o) {
		h, err := readHealth(ctx, client)
		if err != nil {
			klog.FromContext(ctx).V(2).Info("Health overview did not answer; the health gate stays closed", "err", err)
		}
		o.Health = h
		view.leaderLast(o)
	}
	if o.Rollout.Outdated > 0 || o.Rollout.Restart != nil {
		view.observeUpgrade(ctx, client, bc, o)
	}
	view.observeRisk(ctx, client, bc, o)
	o.Ghosts = FindGhosts(bc, *view, pods)
	o.Leaked = view.leakedMaintenance(pods, o)
	return nil
}

// observePlacement reads what the scale-down pre-flight rests on when a decommission may be
// next: a scale-down with no broker draining yet, or B still an active member. A read that
// fails leaves it unasked: the decommission's fresh check of FactDataFits reads it again.
func (view *View) observePlacement(ctx context.Context, client admin.Client, bc *v1alpha1.BrokerCluster, o *step.Observation) {
	if o.Current <= o.Desired || (o.Decommissioning != nil && o.Target != step.MemberActive) {
		return
	}
	p, err := readPlacement(ctx, client, bc, view.list(), view)
	if err != nil {
		klog.FromContext(ctx).V(2).Info("Scale-down pre-flight did not answer; the decommission's fresh check reads it again", "err", err)
		return
	}
	o.Placement = p
}

// leakedMaintenance lists the brokers in maintenance mode that nothing of the operator's is
// about (step/leaked.go): alive active members whose pod is Ready, neither B nor R's broker.
func (view *View) leakedMaintenance(pods map[int]*corev1.Pod, o *step.Observation) []step.LeakedMaintenance {
	var out []step.LeakedMaintenance
	for _, m := range view.members {
		if !m.InMaintenance || !m.Alive || m.Draining || m.Removed {
			continue
		}
		if r := o.Rollout.Restart; r != nil && r.NodeID == m.ID {
			continue
		}
		ordinal, known := view.ordinalOf(m.ID)
		if !known || pods[ordinal] == nil || !brokerpod.IsReady(pods[ordinal]) {
			continue
		}
		out = append(out, step.LeakedMaintenance{ID: m.ID, Pod: pods[ordinal].Name})
	}
	return out
}

// observeRisk reads the pre_restart_probe the decision needs, when a restart may start or R's
// pod has not been deleted yet (step.BehindHealthGate): R's broker's; or, between restarts, the
// outdated brokers' in the rollout's order until one risks nothing, which becomes the next to
// restart, the others passed over and named (Rollout.Held). A probe that does not answer leaves
// the risk unknown: the health gate judges the decision, and the restart's fresh check asks again.
func (view *View) observeRisk(ctx context.Context, client admin.Client, bc *v1alpha1.BrokerCluster, o *step.Observation) {
	if !step.BehindHealthGate(*o) || o.Decommissioning != nil {
		return
	}
	read := func(ordinal int32) (step.Risk, bool) {
		risk, err := readRisk(ctx, client, bc, int(ordinal))
		if err != nil {
			klog.FromContext(ctx).V(2).Info("Pre-restart probe did not answer; the health gate judges", "ordinal", ordinal, "err", err)
			return step.Risk{}, false
		}
		return risk, true
	}
	if r := o.Rollout.Restart; r != nil {
		o.Rollout.Risk, _ = read(r.Ordinal)
		return
	}
	if o.Current != o.Desired || len(o.Rollout.Order) == 0 {
		return
	}
	var held []string
	var first step.Risk
	for i, p := range o.Rollout.Order {
		risk, ok := read(p.Ordinal)
		if i == 0 {
			first = risk
		}
		if ok && risk.Decides() && risk.Blocking() != "" {
			held = append(held, fmt.Sprintf("pod %s, whose pre-restart probe reports %s", p.Pod, risk.Blocking()))
			continue
		}
		if i > 0 {
			o.Rollout.Next = VictimOf(p.Ordinal, *view)
			o.Rollout.NextPod, o.Rollout.NextPodUID = p.Pod, p.UID
		}
		o.Rollout.Risk, o.Rollout.Held = risk, strings.Join(held, "; ")
		return
	}
	// Every outdated broker's restart would put partitions at risk: the first waits, and says why.
	o.Rollout.Risk = first
}

// leaderLast moves the controller leader's pod to the end of the rollout's order
// (step.LeaderLast). Next follows the new order.
func (view *View) leaderLast(o *step.Observation) {
	if o.Rollout.Restart != nil || len(o.Rollout.Order) < 2 || o.Health.Controller < 0 {
		return
	}
	order := step.LeaderLast(o.Rollout.Order, func(p step.PodAt) bool {
		id := view.identities[int(p.Ordinal)]
		return id.Known && int(id.ID) == o.Health.Controller
	})
	o.Rollout.Order = order
	if first := order[0]; first.Ordinal != o.Rollout.Next.Ordinal {
		o.Rollout.Next = VictimOf(first.Ordinal, *view)
		o.Rollout.NextPod, o.Rollout.NextPodUID = first.Pod, first.UID
	}
}

// stuckRestart reports whether R's new pod cannot come up by itself: its broker's maintenance
// mode is then read, so that a restart that cannot finish takes it out (step.ReleaseMaintenance).
func stuckRestart(o *step.Observation) bool {
	r := o.Rollout.Restart
	return r != nil && o.Rollout.OldPodGone && slices.ContainsFunc(o.Rollout.Stuck, func(p step.StuckPod) bool { return p.Ordinal == r.Ordinal })
}
