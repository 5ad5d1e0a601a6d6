package brokers

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// View is the admin API's member list of one cluster, indexed both ways.
type View struct {
	byID      map[int]admin.Broker
	byOrdinal map[int]admin.Broker // by internal_rpc_address; see identify
	// identities are the brokers the pods run, by ordinal, as far as they are known.
	identities map[int]identity
	// members is the whole list as the facts read it, removed members included.
	members []step.Member
	// elsewhere are the cluster's other pools, when it has pools (pools.go).
	elsewhere step.Elsewhere
}

func NewView(clusterName string, brokers []admin.Broker) View {
	v := View{byID: map[int]admin.Broker{}, byOrdinal: map[int]admin.Broker{}, members: members(brokers)}
	for _, b := range brokers {
		if b.MembershipStatus == admin.MembershipRemoved {
			continue
		}
		v.byID[b.NodeID] = b
		if ordinal, ok := admin.OrdinalFromAddress(b.InternalRPCAddress, clusterName); ok {
			// Two members on one ordinal happen while a restarted pod rejoins with a new ID;
			// the one still active is the pod's broker, and of two active ones (a broker lost
			// with its volume, and the new one its pod runs) the alive one.
			if prev, dup := v.byOrdinal[ordinal]; !dup || addressRank(b) > addressRank(prev) {
				v.byOrdinal[ordinal] = b
			}
		}
	}
	return v
}

// addressRank orders the members that advertise one pod's address: active before any other,
// then alive before down.
func addressRank(b admin.Broker) int {
	rank := 0
	if b.MembershipStatus == admin.MembershipActive {
		rank += 2
	}
	if b.IsAlive {
		rank++
	}
	return rank
}

// Learnt returns the ID of the broker the pod at ordinal runs, when this reconcile learnt it from
// the brokers rather than from the pod's own annotation: an ID to record on the pod.
func (v View) Learnt(ordinal int) (int32, bool) {
	id := v.identities[ordinal]
	return id.ID, id.Known && id.Source != "annotation"
}

// members is the brokers list as the facts read it (step.Member).
func members(brokers []admin.Broker) []step.Member {
	out := make([]step.Member, len(brokers))
	for i, b := range brokers {
		out[i] = step.Member{ID: int32(b.NodeID), Alive: b.IsAlive, Membership: string(b.MembershipStatus),
			Draining: b.MembershipStatus == admin.MembershipDraining, Removed: b.MembershipStatus == admin.MembershipRemoved,
			InMaintenance: b.MaintenanceStatus.Draining}
	}
	return out
}

// ordinalOf is the ordinal of the pod known to run broker id; v may be nil.
func (v *View) ordinalOf(id int32) (int, bool) {
	if v == nil {
		return 0, false
	}
	for ordinal, known := range v.identities {
		if known.Known && known.ID == id {
			return ordinal, true
		}
	}
	return 0, false
}

// membership says what the list says about broker id.
func (v View) membershipOf(id int32) step.Membership {
	b, ok := v.byID[int(id)]
	switch {
	case !ok:
		return step.MemberAbsent
	case b.MembershipStatus == admin.MembershipDraining:
		return step.MemberDraining
	default:
		return step.MemberActive
	}
}

// adminClients keeps one admin client per cluster, rebuilt when its URLs change, so that a
// client keeps starting with the broker that answered last.
type adminClients struct {
	template *admin.AddressTemplate
	config   admin.Config           // Timeout and the like; URLs are filled per cluster
	requests *prometheus.CounterVec // admin_requests_total; nil: calls are not counted

	mu      sync.Mutex
	clients map[string]cachedAdminClient
}

type cachedAdminClient struct {
	urls   string
	client admin.Client
}

// forCluster returns a client that reaches brokers 0 to replicas-1 of bc with the given
// security, and, for a focus view of a cluster with pools, the other pools' brokers after them
// (addressLayout). With TLS the URLs are https whatever scheme the address template renders.
func (a *adminClients) forCluster(bc *v1alpha1.BrokerCluster, replicas int32, sec adminSecurity) (admin.Client, error) {
	urls, err := a.urls(bc, replicas, sec)
	if err != nil {
		return nil, err
	}
	joined := strings.Join(urls, " ") + " " + sec.fingerprint
	key := bc.Namespace + "/" + bc.Name
	a.mu.Lock()
	defer a.mu.Unlock()
	if cached, ok := a.clients[key]; ok && cached.urls == joined {
		return cached.client, nil
	}
	client, err := a.newClient(urls, sec)
	if err != nil {
		return nil, err
	}
	a.clients[key] = cachedAdminClient{urls: joined, client: client}
	return client, nil
}

// urls are the admin URLs of bc's brokers 0 to replicas-1, https with TLS.
func (a *adminClients) urls(bc *v1alpha1.BrokerCluster, replicas int32, sec adminSecurity) ([]string, error) {
	urls, err := addressLayout(a.template, bc, replicas)
	if err != nil {
		return nil, err
	}
	if sec.tls {
		for i, u := range urls {
			if rest, ok := strings.CutPrefix(u, "http://"); ok {
				urls[i] = "https://" + rest
			}
		}
	}
	return urls, nil
}

// build is forCluster without the cache.
func (a *adminClients) build(bc *v1alpha1.BrokerCluster, replicas int32, sec adminSecurity) (admin.Client, error) {
	urls, err := a.urls(bc, replicas, sec)
	if err != nil {
		return nil, err
	}
	return a.newClient(urls, sec)
}

func (a *adminClients) newClient(urls []string, sec adminSecurity) (admin.Client, error) {
	cfg := a.config
	cfg.URLs = urls
	sec.apply(&cfg)
	client, err := admin.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	if a.requests != nil {
		client = decoratedAdmin{inner: client, requests: a.requests}
	}
	return client, nil
}

// forget drops the client of a cluster that is gone.
func (a *adminClients) forget(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.clients, key)
}

// identity is what is known of the broker a pod runs.
type identity struct {
	ID    int32
	Known bool
	// Source says how it is known: "node_config" (the pod's own broker said so), "annotation"
	// (recorded on the pod earlier), or "address" (the member list's internal_rpc_address names
	// the pod; used only when node_config cannot be had).
	Source string
}

// identify finds the broker the pod at ordinal runs, the way Redpanda operator v1 does: ask
// that pod's own admin API for /v1/node_config (it answers with its own node ID), and only when
// it cannot answer fall back to what was recorded on the pod, then to a member whose
// internal_rpc_address is the pod's stable host name. That field exists only from v23.1.7 and
// v23.2.1 and names the pod only when the broker advertises its stable name; a pod it does not
// name is not thereby known to run no broker. An error is returned only for credentials or a
// TLS handshake the brokers refuse, which no fallback can cure.
func identify(ctx context.Context, client admin.Client, ordinal int, pod *corev1.Pod, view View) (identity, error) {
	if pod != nil && pod.DeletionTimestamp == nil {
		nc, err := client.NodeConfig(ctx, ordinal)
		switch {
		case err == nil:
			return identity{ID: int32(nc.NodeID), Known: true, Source: "node_config"}, nil
		case errors.Is(err, admin.ErrUnauthorized), errors.Is(err, admin.ErrForbidden), errors.Is(err, admin.ErrTLS):
			return identity{}, err
		}
		klog.FromContext(ctx).V(4).Info("node_config did not say which broker the pod runs", "pod", klog.KObj(pod), "err", err)
		if id, ok := brokerpod.NodeID(pod); ok {
			return identity{ID: id, Known: true, Source: "annotation"}, nil
		}
	}
	// A Ready pod runs an alive broker: a member on its address that is not alive is one that
	// ran there before (lost with its volume, its pod made again on a new one), and recording
	// it on the new pod would hide that member from the ghost check.
	if b, ok := view.byOrdinal[ordinal]; ok && (pod == nil || !brokerpod.IsReady(pod) || b.IsAlive) {
		return identity{ID: int32(b.NodeID), Known: true, Source: "address"}, nil
	}
	return identity{}, nil
}

// vacant reports whether the pod at ordinal certainly runs no member: every member of the list
// is known to run on another pod. Only then may an unidentified pod be treated as brokerless.
func vacant(ordinal int, view View, known map[int]identity) bool {
	claimed := view.claimedElsewhere()
	for o, id := range known {
		if o != ordinal && id.Known {
			claimed[id.ID] = true
		}
	}
	for id := range view.byID {
		if !claimed[int32(id)] {
			return false
		}
	}
	return true
}

// identifyPods finds the broker of each pod that matters now: the next to go (victim, -1 for
// none) and every ready pod with no ID recorded are asked for their node_config; the others
// keep what their pods record, or what the member list's addresses say.
func IdentifyPods(ctx context.Context, client admin.Client, pods map[int]*corev1.Pod, view View, next int) (map[int]identity, error) {
	out := map[int]identity{}
	for ordinal, pod := range pods {
		_, recorded := brokerpod.NodeID(pod)
		if ordinal == next || (!recorded && brokerpod.IsReady(pod)) {
			continue // asked below
		}
		if id, ok := brokerpod.NodeID(pod); ok {
			out[ordinal] = identity{ID: id, Known: true, Source: "annotation"}
		} else if b, ok := view.byOrdinal[ordinal]; ok {
			out[ordinal] = identity{ID: int32(b.NodeID), Known: true, Source: "address"}
		}
	}
	for ordinal, pod := range pods {
		_, recorded := brokerpod.NodeID(pod)
		if ordinal != next && (recorded || !brokerpod.IsReady(pod)) {
			continue
		}
		id, err := identify(ctx, client, ordinal, pod, view)
		if err != nil {
			return nil, err
		}
		out[ordinal] = id
	}
	if _, ok := pods[next]; !ok && next >= 0 {
		// No pod: only the member list can name a broker there.
		if id, err := identify(ctx, client, next, nil, view); err == nil {
			out[next] = id
		}
	}
	return out, nil
}

// victimOf says what is known of the broker at ordinal: its ID and membership when known;
// absent with no ID when every member is known to run elsewhere; otherwise unidentified.
func VictimOf(ordinal int32, view View) step.Victim {
	v := step.Victim{Ordinal: ordinal}
	if id := view.identities[int(ordinal)]; id.Known {
		v.ID, v.IDKnown = id.ID, true
		v.Status = view.membershipOf(id.ID)
		return v
	}
	if vacant(int(ordinal), view, view.identities) {
		v.Status = step.MemberAbsent
		return v
	}
	v.Status = step.MemberUnidentified
	return v
}

// list is the brokers list the view was made from, removed members left out.
func (v *View) list() []admin.Broker {
	out := make([]admin.Broker, 0, len(v.byID))
	for _, b := range v.byID {
		out = append(out, b)
	}
	return out
}
