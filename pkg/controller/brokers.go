package controller

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// brokerView is the admin API's member list of one cluster, indexed both ways.
type brokerView struct {
	byID      map[int]admin.Broker
	byOrdinal map[int]admin.Broker
}

func newBrokerView(clusterName string, brokers []admin.Broker) brokerView {
	v := brokerView{byID: map[int]admin.Broker{}, byOrdinal: map[int]admin.Broker{}}
	for _, b := range brokers {
		if b.MembershipStatus == admin.MembershipRemoved {
			continue
		}
		v.byID[b.NodeID] = b
		if ordinal, ok := admin.OrdinalFromAddress(b.InternalRPCAddress, clusterName); ok {
			// Two members on one ordinal happen while a restarted pod rejoins with a new ID;
			// the one still active is the pod's broker.
			if prev, dup := v.byOrdinal[ordinal]; !dup || prev.MembershipStatus != admin.MembershipActive {
				v.byOrdinal[ordinal] = b
			}
		}
	}
	return v
}

// membership says what the list says about broker id.
func (v brokerView) membership(id int32) membership {
	b, ok := v.byID[int(id)]
	switch {
	case !ok:
		return memberAbsent
	case b.MembershipStatus == admin.MembershipDraining:
		return memberDraining
	default:
		return memberActive
	}
}

// adminClients keeps one admin client per cluster, rebuilt when its URLs change, so that a
// client keeps starting with the broker that answered last.
type adminClients struct {
	template *admin.AddressTemplate
	config   admin.Config // Timeout and the like; URLs are filled per cluster

	mu      sync.Mutex
	clients map[string]cachedAdminClient
}

type cachedAdminClient struct {
	urls   string
	client admin.Client
}

// forCluster returns a client that reaches brokers 0 to replicas-1 of bc with the given
// security. With TLS the URLs are https whatever scheme the address template renders.
func (a *adminClients) forCluster(bc *v1alpha1.BrokerCluster, replicas int32, sec adminSecurity) (admin.Client, error) {
	urls, err := a.template.URLs(bc.Namespace, bc.Name, int(max(replicas, 1)), int(adminPort(bc)))
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
	joined := strings.Join(urls, " ") + " " + sec.fingerprint
	key := bc.Namespace + "/" + bc.Name
	a.mu.Lock()
	defer a.mu.Unlock()
	if cached, ok := a.clients[key]; ok && cached.urls == joined {
		return cached.client, nil
	}
	cfg := a.config
	cfg.URLs = urls
	sec.apply(&cfg)
	client, err := admin.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	a.clients[key] = cachedAdminClient{urls: joined, client: client}
	return client, nil
}

// forget drops the client of a cluster that is gone.
func (a *adminClients) forget(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.clients, key)
}

// podOrdinal returns the ordinal of a pod named <cluster>-<ordinal>.
func podOrdinal(pod *corev1.Pod, clusterName string) (int, bool) {
	rest, ok := strings.CutPrefix(pod.Name, clusterName+"-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 || strconv.Itoa(n) != rest {
		return 0, false
	}
	return n, true
}

// podNodeID returns the broker ID recorded on a pod.
func podNodeID(pod *corev1.Pod) (int32, bool) {
	v, ok := pod.Annotations[AnnotationNodeID]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 32)
	return int32(n), err == nil
}

// podsByOrdinal indexes a cluster's pods by ordinal.
func podsByOrdinal(pods []*corev1.Pod, clusterName string) map[int]*corev1.Pod {
	out := make(map[int]*corev1.Pod, len(pods))
	for _, p := range pods {
		if o, ok := podOrdinal(p, clusterName); ok {
			out[o] = p
		}
	}
	return out
}

// isPodReady reports whether the pod's Ready condition is true.
func isPodReady(pod *corev1.Pod) bool {
	i := slices.IndexFunc(pod.Status.Conditions, func(c corev1.PodCondition) bool { return c.Type == corev1.PodReady })
	return pod.DeletionTimestamp == nil && i >= 0 && pod.Status.Conditions[i].Status == corev1.ConditionTrue
}
