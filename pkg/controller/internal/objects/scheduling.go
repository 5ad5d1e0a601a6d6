package objects

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// Where the brokers run. By default a cluster puts at most one broker on a node, so that one node
// failure takes at most one broker, and spreads its brokers over zones as evenly as the nodes
// allow, as Redpanda's Helm chart does by default (redpanda-data/redpanda-operator,
// charts/redpanda/chart/values.yaml: statefulset.podAntiAffinity.type: hard, and
// statefulset.podTemplate.spec.affinity and .topologySpreadConstraints, maxSkew 1 over
// topology.kubernetes.io/zone, whenUnsatisfiable ScheduleAnyway). docs/broker-pod.md explains
// the choices.

const (
	// HostnameKey is the node label that names one node.
	HostnameKey = corev1.LabelHostname
	// ZoneKey is the node label of a node's zone, which the default spread uses without rack
	// awareness.
	ZoneKey = corev1.LabelTopologyZone
)

// brokerAffinity is the pods' affinity: spec.affinity, whose podAntiAffinity (even an empty one)
// replaces the default one broker per node, and whose nodeAffinity and podAffinity come along
// with it.
func brokerAffinity(bc *v1alpha1.BrokerCluster) *corev1.Affinity {
	out := &corev1.Affinity{}
	if a := bc.Spec.Affinity; a != nil {
		out = a.DeepCopy()
	}
	if out.PodAntiAffinity == nil {
		out.PodAntiAffinity = &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: SelectorLabels(bc)},
				TopologyKey:   HostnameKey,
			}},
		}
	}
	return out
}

// brokerSpread is the pods' topology spread: spec.topologySpreadConstraints when set, an empty
// list included; otherwise maxSkew 1 over the zones, or over the node label rack awareness reads,
// so that the racks Redpanda places replicas across are as many as the nodes allow.
// ScheduleAnyway: a zone short of nodes must not leave a broker unscheduled.
func brokerSpread(bc *v1alpha1.BrokerCluster) []corev1.TopologySpreadConstraint {
	if c := bc.Spec.TopologySpreadConstraints; c != nil {
		if len(c) == 0 {
			return nil
		}
		out := make([]corev1.TopologySpreadConstraint, len(c))
		for i := range c {
			c[i].DeepCopyInto(&out[i])
		}
		return out
	}
	return []corev1.TopologySpreadConstraint{{
		MaxSkew:           1,
		TopologyKey:       SpreadKey(bc),
		WhenUnsatisfiable: corev1.ScheduleAnyway,
		LabelSelector:     &metav1.LabelSelector{MatchLabels: SelectorLabels(bc)},
	}}
}

// SpreadKey is the node label the default spread is over: the rack awareness label, else the
// zone.
func SpreadKey(bc *v1alpha1.BrokerCluster) string {
	if r := bc.Spec.RackAwareness; r != nil && r.NodeLabel != "" {
		return r.NodeLabel
	}
	return ZoneKey
}
