package step

import (
	"fmt"
	"slices"
	"time"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// The preview of disruption: status.disruptionPreview names the broker pods the pending changes
// will restart or remove, in the order the operator will take them, and why, in the words of the
// events that will tell each one (changeOf, scaleReason). It follows the decision tables: a
// decommission or a restart under way finishes first; between two brokers scaling goes first,
// so a scale-down's brokers go, highest ordinal first (NextToGo), before any restart, and an
// outdated pod at an ordinal the scale-down removes is not restarted; then the outdated pods that
// cannot start are replaced (ReplaceStuckPod), and the rollout restarts the others in its order
// (ObserveRollout: a restart asked for first, then the highest ordinal; the controller leader
// last, LeaderLast; a broker whose restart would put partitions at risk passed over for now).
// A scale-down or change of version that a hold keeps back (HoldScaleDown, HoldVersionChange)
// lists none of its brokers, and a note gives the hold's reason, so the preview never promises
// what the operator will not do; a closed maintenance window only delays the list, and a note
// says until when.
// It is made from the observation alone, so the paused path, which asks the brokers nothing,
// makes it too; what only the brokers can say (the controller leader, the cluster properties of
// a spec changed while paused) is a note until they are asked.

// Recorded is what status records once a step is written: C, B and R.
type Recorded struct {
	Current         int32
	Decommissioning *int32
	Restart         *v1alpha1.BrokerRestart
}

// RecordedOf is what bc's status records now, for a reconcile that takes no step (paused).
func RecordedOf(bc *v1alpha1.BrokerCluster) Recorded {
	st := bc.Status
	return Recorded{Current: st.CurrentReplicas, Decommissioning: st.DecommissioningBroker, Restart: st.Restart}
}

// RecordedConfigRestarts are the brokers status.clusterConfig.brokersPendingRestart names, as
// of the last reconcile that asked: what a reconcile that asks the brokers nothing (paused)
// knows of the restarts cluster properties wait for.
func RecordedConfigRestarts(bc *v1alpha1.BrokerCluster) map[int32]bool {
	out := map[int32]bool{}
	if cc := bc.Status.ClusterConfig; cc != nil {
		for _, id := range cc.BrokersPendingRestart {
			out[id] = true
		}
	}
	return out
}

// Preview is bc's disruption preview from o, once status records rec.
func Preview(bc *v1alpha1.BrokerCluster, o Observation, rec Recorded) *v1alpha1.DisruptionPreview {
	p := &v1alpha1.DisruptionPreview{ObservedGeneration: bc.Generation}
	ids := knownIDs(o)
	down := fmt.Sprintf("scaling down from %d to %s", rec.Current, BrokerCount(o.Desired))
	next := rec.Current - 1
	if b := rec.Decommissioning; b != nil && rec.Current > o.Desired {
		p.Disruptions = append(p.Disruptions, brokerPod{podName(o, next), next, b}.planned(v1alpha1.DisruptionDecommission, down, true))
		next--
	}
	if r := rec.Restart; r != nil {
		id := r.NodeID
		p.Disruptions = append(p.Disruptions, brokerPod{r.Pod, r.Ordinal, &id}.planned(v1alpha1.DisruptionRestart, restartUnderWay(bc, o, r), true))
	}
	// A held scale-down or change of version starts none of its brokers (HoldScaleDown,
	// HoldVersionChange): they are not listed, and a note says why.
	if o.Placement.Refused() == "" {
		for ordinal := next; ordinal >= o.Desired; ordinal-- {
			p.Disruptions = append(p.Disruptions, brokerPod{podName(o, ordinal), ordinal, ids[ordinal]}.planned(v1alpha1.DisruptionDecommission, down, false))
		}
	}
	leader := controllerLeader(bc, o)
	var restarts []PodAt
	if !versionRefused(o) && !superuserHeld(o) {
		restarts = restartOrder(o, rec, leader)
	}
	for _, at := range restarts {
		id := ids[at.Ordinal]
		if at.IDKnown {
			id = &at.ID
		}
		p.Disruptions = append(p.Disruptions, brokerPod{at.Pod, at.Ordinal, id}.planned(v1alpha1.DisruptionRestart, restartWhy(o, at), false))
	}
	if len(p.Disruptions) > 0 {
		p.ControllerLeader = leader
	}
	p.Notes = previewNotes(bc, o, rec, leader, restarts)
	return p
}

// brokerPod names a broker's pod, and its broker ID when known.
type brokerPod struct {
	pod     string
	ordinal int32
	id      *int32
}

// planned is the preview's entry for b.
func (b brokerPod) planned(action v1alpha1.DisruptionAction, why string, underWay bool) v1alpha1.PlannedDisruption {
	var broker *int32
	if b.id != nil {
		v := *b.id
		broker = &v
	}
	return v1alpha1.PlannedDisruption{Pod: b.pod, Ordinal: b.ordinal, BrokerID: broker, Action: action, Reason: why, UnderWay: underWay}
}

// restartOrder is the rollout's order of the restarts still to start once status records rec:
// the outdated pods below C and D but R's, those that cannot start first, then the rollout's
// order with the controller leader last and the next broker first when others were passed over.
func restartOrder(o Observation, rec Recorded, leader *int32) []PodAt {
	limit := min(rec.Current, o.Desired)
	order := slices.DeleteFunc(slices.Clone(o.Rollout.Order), func(p PodAt) bool {
		return p.Ordinal >= limit || (rec.Restart != nil && p.Ordinal == rec.Restart.Ordinal)
	})
	if leader != nil {
		order = LeaderLast(order, func(p PodAt) bool { return p.IDKnown && p.ID == *leader })
	}
	if o.Rollout.Held != "" {
		order = toFront(order, func(p PodAt) bool { return p.Pod == o.Rollout.NextPod })
	}
	for _, s := range slices.Backward(o.Rollout.Stuck) {
		if s.Outdated {
			order = toFront(order, func(p PodAt) bool { return p.Ordinal == s.Ordinal })
		}
	}
	return order
}

// toFront moves the first pod of order that matches is, if any, to the front.
func toFront(order []PodAt, is func(PodAt) bool) []PodAt {
	i := slices.IndexFunc(order, is)
	if i <= 0 {
		return order
	}
	return append([]PodAt{order[i]}, slices.Delete(slices.Clone(order), i, i+1)...)
}

// restartWhy says why the pod at is restarted: the change its restart applies, and, for a pod
// that cannot start, that it is replaced before any healthy broker restarts.
func restartWhy(o Observation, at PodAt) string {
	why := changeOf(o, at.Ordinal)
	if why == "" {
		why = "a change that needs a restart"
	}
	for _, s := range o.Rollout.Stuck {
		if s.Outdated && s.Ordinal == at.Ordinal {
			why += fmt.Sprintf("; its pod cannot start (%s), so it is replaced before any healthy broker restarts", s.Why)
		}
	}
	return why
}

// restartUnderWay says why R's broker is being restarted: the change its pod applies while it is
// still there, else what the preview said when it started.
func restartUnderWay(bc *v1alpha1.BrokerCluster, o Observation, r *v1alpha1.BrokerRestart) string {
	if why := changeOf(o, r.Ordinal); why != "" {
		return why
	}
	if prev := bc.Status.DisruptionPreview; prev != nil {
		for _, d := range prev.Disruptions {
			if d.Pod == r.Pod && d.Action == v1alpha1.DisruptionRestart {
				return d.Reason
			}
		}
	}
	return "a change that needs a restart"
}

// knownIDs are the broker IDs known by ordinal: recorded on the pods, and the admin API's for the
// next to go and the next to restart.
func knownIDs(o Observation) map[int32]*int32 {
	ids := map[int32]*int32{}
	for _, b := range o.Rollout.Upgrade.Brokers {
		if b.IDKnown && b.Pool == "" {
			ids[b.Ordinal] = &b.ID
		}
	}
	for _, v := range []Victim{o.Victim, o.Rollout.Next} {
		if v.IDKnown {
			ids[v.Ordinal] = &v.ID
		}
	}
	return ids
}

// controllerLeader is the controller leader's node ID: health_overview's when it was read this
// reconcile, else the one the preview recorded while disruptions were pending; nil when neither
// knows it.
func controllerLeader(bc *v1alpha1.BrokerCluster, o Observation) *int32 {
	if o.Health.Known && o.Health.Controller >= 0 {
		id := int32(o.Health.Controller)
		return &id
	}
	if prev := bc.Status.DisruptionPreview; prev != nil && prev.ControllerLeader != nil {
		id := *prev.ControllerLeader
		return &id
	}
	return nil
}

// previewNotes say what holds the listed steps or leaves some out, what the preview cannot know
// yet, and what may change its order.
func previewNotes(bc *v1alpha1.BrokerCluster, o Observation, rec Recorded, leader *int32, restarts []PodAt) []string {
	var notes []string
	shrinking := rec.Current > o.Desired
	if why := o.Placement.Refused(); why != "" && shrinking {
		notes = append(notes, "the scale-down is held, so its brokers are not listed: "+why)
	}
	if IsPaused(bc) && shrinking && rec.Decommissioning == nil {
		notes = append(notes, "the scale-down's pre-flight (replication factors, racks, free disk) asks the brokers only once resumed, "+
			"and holds the scale-down then if the brokers that would remain cannot take the data")
	}
	if superuserHeld(o) && !versionRefused(o) {
		notes = append(notes, "the rollout waits for the superuser of spec.adminAPI.auth before it turns Kafka SASL on, so no restart is listed: "+o.Rollout.SuperuserHold)
	}
	if versionRefused(o) {
		notes = append(notes, "the change of version is held, so no restart is listed: "+o.Rollout.Upgrade.Check().Refused)
	}
	if w := o.Window; w.Configured && (shrinking || len(restarts) > 0) {
		switch {
		case w.Invalid != "":
			notes = append(notes, "nothing listed starts until spec.maintenanceWindows can be read: "+w.Invalid)
		case !w.Inside:
			notes = append(notes, "no maintenance window is open: the next broker starts in the window that opens at "+
				w.Next.UTC().Format(time.RFC3339)+" (a restart asked for on its pod does not wait)")
		}
	}
	if leader == nil && len(restarts) > 1 {
		notes = append(notes, "the controller leader is not known yet (health_overview is read once a restart may start; "+
			"a paused or steady cluster asks the brokers nothing): its pod is restarted last, so the order of the restarts may change then")
	}
	if o.Rollout.Held != "" {
		notes = append(notes, "passed over for now, their restarts would put partitions at risk: "+o.Rollout.Held)
	}
	if IsPaused(bc) && bc.Generation != bc.Status.ObservedGeneration && (len(bc.Spec.ClusterConfig) > 0 || bc.Status.ClusterConfig != nil) {
		notes = append(notes, "the spec changed while paused: its cluster properties are compared with the brokers only once resumed, "+
			"and one that takes effect on restart then adds the restart of every broker that reports it")
	}
	return notes
}

// previewFields is the preview as a merge patch sets it: every field named, an empty one as null,
// since a merge patch keeps what it does not name, and a list (replaced whole) left over from
// the last preview would say what is no longer planned.
func previewFields(p *v1alpha1.DisruptionPreview) any {
	if p == nil {
		return nil
	}
	fields := map[string]any{"observedGeneration": p.ObservedGeneration, "disruptions": nil, "controllerLeader": nil, "notes": nil}
	if len(p.Disruptions) > 0 {
		fields["disruptions"] = p.Disruptions
	}
	if p.ControllerLeader != nil {
		fields["controllerLeader"] = *p.ControllerLeader
	}
	if len(p.Notes) > 0 {
		fields["notes"] = p.Notes
	}
	return fields
}
