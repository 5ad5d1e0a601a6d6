package brokersim

import (
	"context"
	"fmt"
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
	running   map[clusterKey][]int // the ordinals last reported to the simulator
	changed   chan struct{}        // closed and replaced on every report
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
// sim until Stop, or until ctx ends. It returns once its informer has synced. client should be an
// admin client: what the operator may do is not the simulator's concern. Each Pod's broker runs
// the version named by the tag of the Pod's first container image
// (admintest.Cluster.SetPodVersion).
func StartPodSync(ctx context.Context, client kubernetes.Interface, sim *admintest.Server, namespace string, opts ...PodSyncOption) (*PodSync, error) {
	ctx, w := newWatch(ctx, client, namespace, brokerPodSelector())
	s := &PodSync{
		watch:     w,
		client:    client,
		sim:       sim,
		running:   map[clusterKey][]int{},
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

// TrackVolumes reports the claim UID of each pod of cluster namespace/name that starts from now
// on as its broker's data volume, as WithVolumeIdentity does for every cluster: a pod that comes
// back on a new claim runs a fresh broker with a new node ID.
func (s *PodSync) TrackVolumes(namespace, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.volumesOf[clusterKey{namespace, name}] = true
}

// Running returns the ordinals of cluster namespace/name whose Pods run a broker, as last
// reported to the simulator.
func (s *PodSync) Running(namespace, name string) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.running[clusterKey{namespace, name}])
}

// Changes returns a channel that is closed at the next report to the simulator. Take it before
// checking a condition, so that no change is missed.
func (s *PodSync) Changes() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// sync reports which of a cluster's Pods run a broker: those Ready and not being deleted.
// Informer handlers run one at a time, so reports never interleave.
func (s *PodSync) sync(ctx context.Context, key clusterKey) {
	pods, err := s.pods.Pods(key.namespace).List(labels.SelectorFromSet(labels.Set{controller.LabelInstance: key.name}))
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	var running []int
	byOrdinal := map[int]*corev1.Pod{}
	for _, p := range pods {
		if ordinal, ok := Ordinal(p.Name, key.name); ok && p.DeletionTimestamp == nil && PodReady(p) {
			running = append(running, ordinal)
			byOrdinal[ordinal] = p
		}
	}
	slices.Sort(running)
	s.mu.Lock()
	before := s.running[key]
	volumes := s.volumes || s.volumesOf[key]
	s.mu.Unlock()
	if slices.Equal(before, running) {
		return
	}
	replicas := unknownReplicas
	for _, o := range before {
		if !slices.Contains(running, o) {
			replicas = s.statefulSetReplicas(ctx, key)
			break
		}
	}
	cluster := s.sim.Cluster(key.namespace, key.name)
	for _, o := range running {
		if slices.Contains(before, o) {
			continue
		}
		// What the Pod runs takes effect when its broker joins, in SyncPods.
		cluster.SetPodVersion(o, imageTag(byOrdinal[o]))
		if volumes {
			cluster.SetPodVolume(o, s.claimUID(ctx, byOrdinal[o]))
		}
	}
	cluster.SyncPods(running, replicas)
	s.mu.Lock()
	s.running[key] = running
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
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

// statefulSetReplicas reads the StatefulSet live: it shrinks before its Pods go, and the Pod
// event may arrive before a StatefulSet informer would have caught up.
func (s *PodSync) statefulSetReplicas(ctx context.Context, key clusterKey) int {
	ctx, cancel := context.WithTimeout(ctx, statefulSetReadLimit)
	defer cancel()
	sts, err := s.client.AppsV1().StatefulSets(key.namespace).Get(ctx, key.name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return 0
	case err != nil:
		utilruntime.HandleError(fmt.Errorf("brokersim: read StatefulSet %s/%s to tell a leaving broker from a restarting one: %w", key.namespace, key.name, err))
		return unknownReplicas
	case sts.Spec.Replicas == nil:
		return 1
	}
	return int(*sts.Spec.Replicas)
}

// Ordinal parses the ordinal of a StatefulSet Pod named CLUSTER-ORDINAL.
func Ordinal(podName, cluster string) (int, bool) {
	rest, ok := strings.CutPrefix(podName, cluster+"-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 0
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
