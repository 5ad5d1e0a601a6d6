package brokers

import (
	"context"
	"fmt"
	"maps"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// A reconcile of a cluster with pools looks at one pool (step.PlanPools) through a focus view:
// a copy of the BrokerCluster whose default pool's fields, C and B are that pool's
// (FocusView), so that the observation, the decision and the runner work on it as on a
// cluster of one StatefulSet. The brokers' view keeps the rest of the cluster in sight: the
// admin client reaches every pool's brokers, the focus pool's first so that a pod's ordinal
// indexes its broker's URL (addressLayout), and the ghost check, a pod no member is left for
// and the scale-down pre-flight count the other pools' brokers (step.Elsewhere).

// FocusView is bc as a reconcile that looks at pool sees it: the pool's fields in the default
// pool's place (objects.WithPool; a pool removed from the spec keeps the cluster's fields and
// D 0), its C and B (step.FocusStatus), every pool's C in status.pools, and bc's spec.pools.
// It is read, never written.
func FocusView(bc *v1alpha1.BrokerCluster, pool string) *v1alpha1.BrokerCluster {
	view, ok := objects.WithPool(bc, pool)
	if !ok {
		removed := *bc
		removed.Spec.Replicas = 0
		view = &removed
	}
	out := *view
	out.Spec.Pools = bc.Spec.Pools
	out.Annotations = maps.Clone(bc.Annotations)
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	out.Annotations[objects.AnnotationFocusPool] = pool
	out.Status = step.FocusStatus(bc, pool)
	out.Status.Pools = nil
	for _, name := range step.PoolsOf(bc) {
		out.Status.Pools = append(out.Status.Pools, v1alpha1.PoolStatus{Name: name, Replicas: step.PoolCurrent(bc, name)})
	}
	return &out
}

// addressLayout is the admin API URLs of bc's brokers: the focus pool's pods 0 to replicas-1
// first (at least one), so that a pod's ordinal is its URL's index as for a cluster without
// pools, then every other pool's pods below its C. Calls that any broker may answer go
// round them all.
func addressLayout(t *admin.AddressTemplate, bc *v1alpha1.BrokerCluster, replicas int32) ([]string, error) {
	port := int(objects.AdminPort(bc))
	urls, err := t.URLs(bc.Namespace, objects.FocusSet(bc), int(max(replicas, 1)), port)
	if err != nil || bc.Annotations[objects.AnnotationFocusPool] == "" {
		return urls, err
	}
	for _, p := range bc.Status.Pools {
		if p.Name == objects.FocusPool(bc) {
			continue
		}
		more, err := t.URLs(bc.Namespace, objects.PoolSetName(bc, p.Name), int(p.Replicas), port)
		if err != nil {
			return nil, err
		}
		urls = append(urls, more...)
	}
	return urls, nil
}

// claimedElsewhere are the node IDs the other pools' pods run: recorded on a pod, or, for a
// pod with none recorded, the member whose internal_rpc_address names it.
func (v *View) claimedElsewhere() map[int32]bool {
	out := map[int32]bool{}
	unnamed := map[string]map[int32]bool{} // set -> ordinals of pods with no ID recorded
	sets := map[string]string{}
	for _, p := range v.elsewhere.Pools {
		sets[p.Name] = p.Set
	}
	for _, p := range v.elsewhere.Pods {
		if p.IDKnown {
			out[p.ID] = true
			continue
		}
		set := sets[p.Pool]
		if unnamed[set] == nil {
			unnamed[set] = map[int32]bool{}
		}
		unnamed[set][p.Ordinal] = true
	}
	for id, b := range v.byID {
		for set, ordinals := range unnamed {
			if o, ok := admin.OrdinalFromAddress(b.InternalRPCAddress, set); ok && ordinals[int32(o)] {
				out[int32(id)] = true
			}
		}
	}
	return out
}

// onOtherPoolsPod reports whether a member's internal_rpc_address names a pod of another pool
// below that pool's C: a broker whose pod is only away (restarted, rescheduled).
func (v *View) onOtherPoolsPod(b admin.Broker) bool {
	for _, p := range v.elsewhere.Pools {
		if o, ok := admin.OrdinalFromAddress(b.InternalRPCAddress, p.Set); ok && o < int(p.Current) {
			return true
		}
	}
	return false
}

// SeedCandidates are the pods of every pool of bc (a focus view) whose broker the view knows,
// with what the members list says of it, for step.ChooseSeeds: the focus pool's from the
// identities the view found, the other pools' from what their pods record; each named by its
// pod's stable name in the cluster DNS domain.
func (v *View) SeedCandidates(bc *v1alpha1.BrokerCluster, domain string) []step.SeedCandidate {
	var out []step.SeedCandidate
	add := func(pool, set string, ordinal, id int32) {
		b, listed := v.byID[int(id)]
		if !listed {
			return
		}
		out = append(out, step.SeedCandidate{Host: admin.StableHostName(set, bc.Namespace, int(ordinal), domain), Pool: pool, Ordinal: ordinal, ID: id,
			Active: b.MembershipStatus == admin.MembershipActive, Alive: b.IsAlive})
	}
	for ordinal, id := range v.identities {
		if id.Known {
			add(objects.FocusPool(bc), objects.FocusSet(bc), int32(ordinal), id.ID)
		}
	}
	sets := map[string]string{}
	for _, p := range v.elsewhere.Pools {
		sets[p.Name] = p.Set
	}
	for _, p := range v.elsewhere.Pods {
		if p.IDKnown {
			add(p.Pool, sets[p.Pool], p.Ordinal, p.ID)
		}
	}
	return out
}

// NotJoined names the first pod of another pool, below its pool's C, whose broker is not an
// active, alive member, and why; "" when every one has joined. A pool's brokers leave only
// once every other pool's have joined (step.PlanPools).
func (v *View) NotJoined() (pod, why string) {
	sets := map[string]step.OtherPool{}
	for _, p := range v.elsewhere.Pools {
		sets[p.Name] = p
	}
	for _, p := range v.elsewhere.Pods {
		pool := sets[p.Pool]
		if p.Ordinal >= pool.Current {
			continue
		}
		name := fmt.Sprintf("%s-%d", pool.Set, p.Ordinal)
		if !p.IDKnown {
			return name, "its broker is not known yet"
		}
		b, listed := v.byID[int(p.ID)]
		switch {
		case !listed:
			return name, fmt.Sprintf("broker %d is not a member yet", p.ID)
		case b.MembershipStatus != admin.MembershipActive:
			return name, fmt.Sprintf("broker %d is %s", p.ID, b.MembershipStatus)
		case !b.IsAlive:
			return name, fmt.Sprintf("broker %d is not alive", p.ID)
		}
	}
	return "", ""
}

// urlOf is the index, in the admin client's URLs (addressLayout), of the pod known to run
// broker id, and that pod's name: a pod of the focus pool by its ordinal, or, with pools, one of
// another pool whose pod records the ID, after the focus pool's URLs.
func (v *View) urlOf(bc *v1alpha1.BrokerCluster, id int32) (int, string, bool) {
	if ordinal, ok := v.ordinalOf(id); ok {
		return ordinal, fmt.Sprintf("%s-%d", objects.FocusSet(bc), ordinal), true
	}
	if v == nil || bc.Annotations[objects.AnnotationFocusPool] == "" {
		return 0, "", false
	}
	var pool *v1alpha1.PoolStatus
	var ordinal int32
	for _, p := range v.elsewhere.Pods {
		if p.IDKnown && p.ID == id {
			for i := range bc.Status.Pools {
				if bc.Status.Pools[i].Name == p.Pool {
					pool, ordinal = &bc.Status.Pools[i], p.Ordinal
				}
			}
		}
	}
	if pool == nil || ordinal >= pool.Replicas {
		return 0, "", false
	}
	index := int(max(bc.Status.CurrentReplicas, 1))
	for _, p := range bc.Status.Pools {
		if p.Name == pool.Name {
			break
		}
		if p.Name != objects.FocusPool(bc) {
			index += int(p.Replicas)
		}
	}
	return index + int(ordinal), fmt.Sprintf("%s-%d", objects.PoolSetName(bc, pool.Name), ordinal), true
}

// ControllerLeader is the node ID of the cluster's controller leader, from health_overview:
// with pools, the pool whose pod runs it rolls out last (step.PlanPools).
func (a *Admin) ControllerLeader(ctx context.Context, bc *v1alpha1.BrokerCluster) (int32, error) {
	client, err := a.Client(ctx, bc)
	if err != nil {
		return -1, err
	}
	h, err := readHealth(ctx, client)
	if err != nil {
		return -1, err
	}
	if h.Controller < 0 {
		return -1, fmt.Errorf("health_overview names no controller leader")
	}
	return int32(h.Controller), nil
}
