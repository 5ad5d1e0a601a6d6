package objects

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// Seeds from outside the pod template. A fresh broker (an empty data directory) asks its seed
// servers to register it; once it is a member it loads its node ID from disk and needs no seeds
// again (redpanda src/v/cluster/cluster_discovery.cc, src/v/redpanda/application.cc). A cluster
// without pools lists its founding pods as seeds in the pod template, as it always has. With
// pools the seeds must move with the brokers: when a move has taken the founding pods away, a
// fresh broker whose seeds no longer exist never joins, and one whose seeds are all fresh brokers
// founds a second cluster. So a pool's pods read their seeds, when they start, from the
// ConfigMap <cluster>-seeds, which the operator keeps naming live members; a change of it
// restarts no broker, because it is not part of the pod template. Redpanda's operators list
// every pod of every pool instead, and keep seeds out of the hash that decides restarts
// (redpanda-operator operator/pkg/resources/configuration.go, generateSeedServer).

const (
	seedsVolume = "seeds"
	seedsDir    = "/etc/broker-operator-seeds"
	// SeedsKey is the ConfigMap's key holding redpanda.seed_servers as JSON.
	SeedsKey = "seed_servers"
)

// SeedsConfigMapName names the ConfigMap of bc's seed servers.
func SeedsConfigMapName(bc *v1alpha1.BrokerCluster) string { return bc.Name + "-seeds" }

// NewSeedsConfigMap is the ConfigMap that names hosts, the stable host names of live members,
// as the seeds of bc's fresh brokers. hosts is never empty: with empty_seed_starts_cluster
// false Redpanda needs a seed (application.cc).
func NewSeedsConfigMap(bc *v1alpha1.BrokerCluster, hosts []string) (*corev1.ConfigMap, error) {
	if len(hosts) == 0 {
		return nil, fmt.Errorf("seeds of %s/%s: no host to name", bc.Namespace, bc.Name)
	}
	servers := make([]seedServer, 0, len(hosts))
	for _, h := range hosts {
		servers = append(servers, seedServer{Host: hostPort{Address: h, Port: internalRPCPort}})
	}
	data, err := json.Marshal(servers)
	if err != nil {
		return nil, fmt.Errorf("seeds of %s/%s: %w", bc.Namespace, bc.Name, err)
	}
	meta := OwnedMeta(bc)
	meta.Name = SeedsConfigMapName(bc)
	cm := &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{SeedsKey: string(data)}}
	StampHash(&cm.ObjectMeta, cm.Data)
	return cm, nil
}

// SeedsOf reads the hosts a seeds ConfigMap names; false when it names none it can read.
func SeedsOf(cm *corev1.ConfigMap) ([]string, bool) {
	var servers []seedServer
	if cm == nil || json.Unmarshal([]byte(cm.Data[SeedsKey]), &servers) != nil || len(servers) == 0 {
		return nil, false
	}
	hosts := make([]string, 0, len(servers))
	for _, s := range servers {
		hosts = append(hosts, s.Host.Address)
	}
	return hosts, true
}

// FoundingHosts are the stable host names, in the cluster DNS domain, of the first n pods of
// the StatefulSet named set: the seeds of a cluster's founding brokers, which, all listed and
// all fresh, found it together.
func FoundingHosts(bc *v1alpha1.BrokerCluster, set string, n int32, domain string) []string {
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, admin.StableHostName(set, bc.Namespace, int(i), domain))
	}
	return out
}

// seedsPodVolume mounts the seeds ConfigMap. It is not optional: a fresh broker never starts
// without seeds, its pod waits for the ConfigMap instead.
func seedsPodVolume(bc *v1alpha1.BrokerCluster) corev1.Volume {
	return corev1.Volume{Name: seedsVolume, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: SeedsConfigMapName(bc)},
		DefaultMode:          ptr.To[int32](0o444),
	}}}
}

// seedsScript sets redpanda.seed_servers from the mounted ConfigMap, as the facts script sets
// the rack (placement.go), and refuses to start a broker with none.
func seedsScript() string {
	f := seedsDir + "/" + SeedsKey
	return `; [ -s ` + f + ` ] || { echo "` + f + ` is empty: no seed server to join" >&2; exit 1; }; ` +
		`rpk redpanda config --config ` + nodeConfigFile + ` set redpanda.seed_servers "$(cat ` + f + `)"`
}
