package objects

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
)

// The names of a cluster's pools. The default pool keeps the names a cluster had before pools:
// StatefulSet and headless Service <cluster>, pods <cluster>-<ordinal>. A named pool gets its own
// StatefulSet and headless Service <cluster>-<pool>, pods <cluster>-<pool>-<ordinal>, as Redpanda's
// operator names them (redpanda-operator operator/pkg/resources/statefulset.go, Key), so the
// admin address template, which is rendered with a StatefulSet's name, reaches every pool's
// pods unchanged. Pool names start with a letter (the CRD's pattern), so no pool's name reads as
// an ordinal of the default pool.

// PoolSetName is the name of the StatefulSet and headless Service of bc's pool.
func PoolSetName(bc *v1alpha1.BrokerCluster, pool string) string {
	if pool == v1alpha1.DefaultPoolName || pool == "" {
		return bc.Name
	}
	return bc.Name + "-" + pool
}

// PoolPods indexes by ordinal the pods of bc's pool among pods: those named exactly
// <set>-<ordinal>. Pods of other pools share the cluster's prefix, so <cluster>-blue-0 is no
// ordinal of <cluster>, as Redpanda's operator learnt (redpanda-operator
// operator/internal/controller/decommissioning/statefulset_decomissioner.go,
// podOrdinalForStatefulSet).
func PoolPods(bc *v1alpha1.BrokerCluster, pool string, pods []*corev1.Pod) map[int]*corev1.Pod {
	return brokerpod.ByOrdinal(pods, PoolSetName(bc, pool))
}

// WithPool returns a copy of bc whose default pool's fields (spec.replicas, storage, resources,
// pod annotations and placement) are those of the named pool, and whose service account and
// image pull secrets are the pool's where it names its own, so that the builders of a
// cluster's StatefulSet and pod template make the pool's; bc itself for the default pool. It
// returns false for a pool bc's spec does not name. The copy shares what it does not replace
// with bc: it is read, never written.
func WithPool(bc *v1alpha1.BrokerCluster, pool string) (*v1alpha1.BrokerCluster, bool) {
	if pool == v1alpha1.DefaultPoolName || pool == "" {
		return bc, true
	}
	for _, p := range bc.Spec.Pools {
		if p.Name != pool {
			continue
		}
		out := *bc
		out.Spec.Replicas = p.Replicas
		out.Spec.Storage = p.Storage
		out.Spec.Resources = p.Resources
		out.Spec.PodAnnotations = p.PodAnnotations
		out.Spec.NodeSelector = p.NodeSelector
		out.Spec.Tolerations = p.Tolerations
		out.Spec.Affinity = p.Affinity
		out.Spec.TopologySpreadConstraints = p.TopologySpreadConstraints
		withPoolAccount(&out.Spec, p)
		out.Spec.Pools = nil
		return &out, true
	}
	return nil, false
}

// AnnotationSeedsFrom on a StatefulSet says where its pods' seeds come from: SeedsFromConfigMap
// when from the seeds ConfigMap (seeds.go). A StatefulSet without it names its founding pods
// in its pod template (AnnotationSeeds).
const (
	AnnotationSeedsFrom = "broker-operator.dev/seeds-from"
	SeedsFromConfigMap  = "configmap"
)

// PoolLabels select the pods of bc's pool: the cluster's labels, and for a named pool its pool
// label. The default pool's pods carry no pool label, as before pools, so the default
// StatefulSet's selector (immutable) is what it always was; it also matches the named pools'
// pods, which the StatefulSet controller leaves alone because another StatefulSet owns them,
// so code that lists a pool's pods goes by name (PoolPods), never by that selector.
func PoolLabels(bc *v1alpha1.BrokerCluster, pool string) map[string]string {
	l := SelectorLabels(bc)
	if pool != v1alpha1.DefaultPoolName && pool != "" {
		l[v1alpha1.LabelPool] = pool
	}
	return l
}

// NewPoolStatefulSet builds the StatefulSet of bc's pool at replicas, its pods made from the
// pool's fields and reading their seeds from the seeds ConfigMap; false for a pool bc's spec
// does not name. For the default pool it is the StatefulSet of a cluster whose seeds have moved
// to the ConfigMap.
func NewPoolStatefulSet(bc *v1alpha1.BrokerCluster, pool string, replicas int32, domain string) (*appsv1.StatefulSet, bool) {
	spec, ok := WithPool(bc, pool)
	if !ok {
		return nil, false
	}
	set, labels := PoolSetName(bc, pool), PoolLabels(bc, pool)
	sts := statefulSetNamed(spec, set, labels, replicas, hashedSetTemplate(spec, set, labels, 0, domain))
	sts.Annotations[AnnotationSeedsFrom] = SeedsFromConfigMap
	return sts, true
}

// NewPoolService builds the headless Service of bc's pool, which gives each of its pods its
// stable DNS name, <cluster>-<pool>-<ordinal>.<cluster>-<pool>.<namespace>.svc.
func NewPoolService(bc *v1alpha1.BrokerCluster, pool string) *corev1.Service {
	svc := NewService(bc)
	svc.Name, svc.Labels, svc.Spec.Selector = PoolSetName(bc, pool), PoolLabels(bc, pool), PoolLabels(bc, pool)
	StampHash(&svc.ObjectMeta, svc.Spec)
	return svc
}

// AnnotationFocusPool marks the in-memory focus view of a cluster with pools (a copy whose
// default pool's fields are one pool's; internal/brokers FocusView) with that pool, so that the
// names of its objects follow the pool (FocusSet, DataClaimName). It is never written: the
// operator writes a BrokerCluster's status alone.
const AnnotationFocusPool = "broker-operator.dev/in-memory-focus-pool"

// FocusPool is the pool bc, a focus view, looks at; the default pool for a BrokerCluster as
// read.
func FocusPool(bc *v1alpha1.BrokerCluster) string {
	if p := bc.Annotations[AnnotationFocusPool]; p != "" {
		return p
	}
	return v1alpha1.DefaultPoolName
}

// FocusSet is the StatefulSet of the pool bc looks at: bc.Name for the default pool.
func FocusSet(bc *v1alpha1.BrokerCluster) string {
	return PoolSetName(bc, FocusPool(bc))
}
