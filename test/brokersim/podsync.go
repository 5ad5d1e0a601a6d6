package brokersim

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/controller"
)

// unknownReplicas stands for "no pod went away, the StatefulSet's size does not matter", and for
// "the size could not be read": a pod is then treated as restarting, never as leaving for good.
const unknownReplicas = 1 << 30

// statefulSetReadLimit bounds the live read that tells a leaving pod from a restarting one.
const statefulSetReadLimit = 30 * time.Second

// PodSync keeps a simulator's clusters in line with the broker Pods of a real cluster.
type PodSync struct {
	watch
	client kubernetes.Interface
	sim    *admintest.Server
	pods   corelisters.PodLister

	// volumes: report each pod's claim UID as its broker's data volume (WithVolumeIdentity).
	volumes bool

	mu sync.Mutex
	// volumesOf are the clusters whose pods' claim UIDs are reported although volumes is off
	// (TrackVolumes).
	volumesOf map[clusterKey]bool
	running   map[setKey][]int // each pool's ordinals last reported to the simulator
	changed   chan struct{}    // closed and replaced on every report
}

type clusterKey struct{ namespace, name string }

// brokerPodSelector selects the Pods of every BrokerCluster the operator runs.
func brokerPodSelector() string {
	return labels.Set{controller.LabelManagedBy: controller.ManagedByValue, controller.LabelName: controller.NameValue}.String()
}

// PodSyncOption changes what a PodSync reports.
type PodSyncOption func(*PodSync)

// WithVolumeIdentity reports the UID of each broker Pod's PersistentVolumeClaim as the data
// volume its broker runs on (admintest.Cluster.SetPodVolume): a Pod that comes back on the claim
// of a decommissioned broker is then refused, as Redpanda refuses it; a new claim starts a fresh
// broker. Without it, a broker whose decommission finished is replaced by a fresh one.
func WithVolumeIdentity() PodSyncOption { return func(s *PodSync) { s.volumes = true } }

// StartPodSync watches the broker Pods in namespace (all namespaces if empty) and reports them to
// sim until Stop, or until ctx ends: the Pods of every pool, each to its pool of the simulated
// cluster (admintest.Cluster.Pool, see PodPool). It returns once its informer has synced. client should be an
// admin client: what the operator may do is not the simulator's concern. Each Pod's broker runs
// the version named by the tag of the Pod's first container image
// (admintest.Cluster.SetPodVersion).
func StartPodSync(ctx context.Context, client kubernetes.Interface, sim *admintest.Server, namespace string, opts ...PodSyncOption) (*PodSync, error) {
	ctx, w := newWatch(ctx, client, namespace, brokerPodSelector())
	s := &PodSync{
		watch:     w,
		client:    client,
		sim:       sim,
		running:   map[setKey][]int{},
		changed:   make(chan struct{}),
		volumesOf: map[clusterKey]bool{},
	}
	for _, o := range opts {
		o(s)
	}
	informer := s.factory.Core().V1().Pods()
	s.pods = informer.Lister()
	onPod := func(obj any) {
		if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tombstone.Obj
		}
		if pod, ok := obj.(*corev1.Pod); ok && pod.Labels[controller.LabelInstance] != "" {
			s.sync(ctx, clusterKey{pod.Namespace, pod.Labels[controller.LabelInstance]})
		}
	}
	if err := s.start(ctx, handler{informer: informer.Informer(), on: onPod, deletes: true}); err != nil {
		return nil, err
	}
	return s, nil
}

// TrackVolumes reports the claim UID of each pod of cluster namespace/name, in every pool, that
// starts from now on as its broker's data volume, as WithVolumeIdentity does for every cluster: a pod that comes
// back on a new claim runs a fresh broker with a new node ID.
func (s *PodSync) TrackVolumes(namespace, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.volumesOf[clusterKey{namespace, name}] = true
}

// Running returns the ordinals of the default pool of cluster namespace/name whose Pods run a
// broker, as last reported to the simulator.
func (s *PodSync) Running(namespace, name string) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.running[setKey{namespace, name, ""}])
}

// RunningPools returns, by pool ("" for the default pool), the ordinals of cluster
// namespace/name whose Pods run a broker, as last reported to the simulator; a pool none of
// whose Pods runs one is not listed.
func (s *PodSync) RunningPools(namespace, name string) map[string][]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]int{}
	for k, ordinals := range s.running {
		if k.clusterKey() == (clusterKey{namespace, name}) && len(ordinals) > 0 {
			out[k.pool] = slices.Clone(ordinals)
		}
	}
	return out
}

// Changes returns a channel that is closed at the next report to the simulator. Take it before
// checking a condition, so that no change is missed.
func (s *PodSync) Changes() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// sync reports which of a cluster's Pods run a broker, pool by pool: those Ready and not being
// deleted. Informer handlers run one at a time, so reports never interleave.
func (s *PodSync) sync(ctx context.Context, key clusterKey) {
	pods, err := s.pods.Pods(key.namespace).List(labels.SelectorFromSet(labels.Set{controller.LabelInstance: key.name}))
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	ready := map[string]map[int]*corev1.Pod{} // by pool, then ordinal
	for _, p := range pods {
		if pool, ordinal, ok := PodPool(p, key.name); ok && p.DeletionTimestamp == nil && PodReady(p) {
			if ready[pool] == nil {
				ready[pool] = map[int]*corev1.Pod{}
			}
			ready[pool][ordinal] = p
		}
	}
	s.mu.Lock()
	volumes := s.volumes || s.volumesOf[key]
	pools := slices.Collect(maps.Keys(ready))
	for k := range s.running {
		if k.clusterKey() == key && ready[k.pool] == nil {
			pools = append(pools, k.pool) // its last Pods went
		}
	}
	s.mu.Unlock()
	slices.Sort(pools)
	reported := false
	for _, pool := range pools {
		reported = s.syncPool(ctx, setKey{key.namespace, key.name, pool}, ready[pool], volumes) || reported
	}
	if reported {
		s.mu.Lock()
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
	}
}

// syncPool reports the Pods of one pool that run a broker, given by ordinal, and tells whether
// that changed anything.
func (s *PodSync) syncPool(ctx context.Context, key setKey, byOrdinal map[int]*corev1.Pod, volumes bool) bool {
	running := slices.Sorted(maps.Keys(byOrdinal))
	s.mu.Lock()
	before := s.running[key]
	s.mu.Unlock()
	if slices.Equal(before, running) {
		return false
	}
	replicas := unknownReplicas
	for _, o := range before {
		if !slices.Contains(running, o) {
			replicas = s.statefulSetReplicas(ctx, key.namespace, setName(key.cluster, key.pool))
			break
		}
	}
	pool := s.sim.Cluster(key.namespace, key.cluster).Pool(key.pool)
	for _, o := range running {
		if slices.Contains(before, o) {
			continue
		}
		// What the Pod runs takes effect when its broker joins, in SyncPods.
		pool.SetPodVersion(o, imageTag(byOrdinal[o]))
		if volumes {
			pool.SetPodVolume(o, s.claimUID(ctx, byOrdinal[o]))
		}
	}
	pool.SyncPods(running, replicas)
	s.mu.Lock()
	if len(running) == 0 {
		delete(s.running, key)
	} else {
		s.running[key] = running
	}
	s.mu.Unlock()
	return true
}

// imageTag is the tag of the Pod's first container image, "" if it has none.
func imageTag(p *corev1.Pod) string {
	if len(p.Spec.Containers) == 0 {
		return ""
	}
	image := p.Spec.Containers[0].Image
	image, _, _ = strings.Cut(image, "@")
	slash := strings.LastIndex(image, "/")
	if colon := strings.LastIndex(image, ":"); colon > slash {
		return image[colon+1:]
	}
	return ""
}

// claimUID reads the Pod's first PersistentVolumeClaim live and returns its UID: the identity of
// the broker's data. "" (a fresh volume) when the Pod has none or it cannot be read.
func (s *PodSync) claimUID(ctx context.Context, p *corev1.Pod) string {
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		ctx, cancel := context.WithTimeout(ctx, statefulSetReadLimit)
		defer cancel()
		pvc, err := s.client.CoreV1().PersistentVolumeClaims(p.Namespace).Get(ctx, v.PersistentVolumeClaim.ClaimName, metav1.GetOptions{})
		if err != nil {
			utilruntime.HandleError(fmt.Errorf("brokersim: read the claim of Pod %s/%s: %w", p.Namespace, p.Name, err))
			return ""
		}
		return string(pvc.UID)
	}
	return ""
}

// statefulSetReplicas reads the StatefulSet namespace/name live: it shrinks before its Pods go,
// and the Pod event may arrive before a StatefulSet informer would have caught up. A pool whose
// StatefulSet is gone wants no Pod.
func (s *PodSync) statefulSetReplicas(ctx context.Context, namespace, name string) int {
	ctx, cancel := context.WithTimeout(ctx, statefulSetReadLimit)
	defer cancel()
	sts, err := s.client.AppsV1().StatefulSets(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return 0
	case err != nil:
		utilruntime.HandleError(fmt.Errorf("brokersim: read StatefulSet %s/%s to tell a leaving broker from a restarting one: %w", namespace, name, err))
		return unknownReplicas
	case sts.Spec.Replicas == nil:
		return 1
	}
	return int(*sts.Spec.Replicas)
}

// Ordinal parses the ordinal of a Pod of StatefulSet set, named exactly SET-ORDINAL as a
// StatefulSet names its Pods: decimal digits, no sign, no leading zero. A named pool's Pod,
// <cluster>-<pool>-<ordinal>, is therefore no ordinal of <cluster>.
func Ordinal(podName, set string) (int, bool) {
	rest, ok := strings.CutPrefix(podName, set+"-")
	if !ok || rest == "" || len(rest) > 9 || (len(rest) > 1 && rest[0] == '0') || strings.Trim(rest, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil
}

// PodReady reports whether the Pod's Ready condition is true.
func PodReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
