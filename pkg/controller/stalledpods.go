package controller

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// stalledPodGrace is how long a pod the StatefulSet asks for may be missing before the operator
// touches the StatefulSet, and then how long between two touches.
const stalledPodGrace = 30 * time.Second

// The StatefulSet controller makes a missing pod only when it syncs the set, and it syncs on
// events of the set and of its pods alone: it registers no handler for volume claims
// (kubernetes v1.37.2 pkg/controller/statefulset/stateful_set.go). When the claim of the pod it
// is about to make is still the one a scale-down handed to the old pod, it makes nothing and
// returns without an error, so nothing requeues the set ("If a pod has a stale PVC, no more work
// can be done this round": processReplica in stateful_set_control.go). The claim's deletion
// then brings nothing back. The operator's own wait for condemned claims (leftovers.go) reads
// the claims live, so it cannot see that the StatefulSet controller's claim cache still holds
// one: after an apiserver restart the soak saw a scale-up wait four and a half minutes for its
// pod, until an unrelated pod event. So a pod the StatefulSet has asked for and not made within
// stalledPodGrace gets the StatefulSet touched (AnnotationResyncedAt), which puts it back in its
// controller's queue. An update of the set's metadata alone changes no pod.

// stalledPod is a missing pod as first seen.
type stalledPod struct {
	uid        types.UID // of the StatefulSet
	generation int64
	ordinal    int
	since      time.Time // first seen missing, or last touch
	touched    bool      // the StatefulSet was touched for this pod already
}

// stalledPodTracker remembers, per cluster, since when a pod has been missing. It lives in
// memory: a new leader starts the grace over.
type stalledPodTracker struct {
	mu      sync.Mutex
	missing map[string]stalledPod
}

// forget drops what is remembered of one StatefulSet (stalledKey).
func (t *stalledPodTracker) forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.missing, key)
}

// forgetCluster drops what is remembered of a cluster's StatefulSets: its own and its pools'.
func (t *stalledPodTracker) forgetCluster(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k := range t.missing {
		if k == key || strings.HasPrefix(k, key+"/") {
			delete(t.missing, k)
		}
	}
}

// stalledKey is the tracker's key of a StatefulSet of bc: the cluster's key for its own, and
// <namespace>/<cluster>/<set> for a pool's.
func stalledKey(bc *v1alpha1.BrokerCluster, sts *appsv1.StatefulSet) string {
	if sts == nil || sts.Name == bc.Name {
		return clusterKey(bc)
	}
	return clusterKey(bc) + "/" + sts.Name
}

// missingOrdinal returns the lowest ordinal below the StatefulSet's replicas with no pod, or -1.
func missingOrdinal(sts *appsv1.StatefulSet, pods map[int]*corev1.Pod) int {
	if sts == nil || sts.DeletionTimestamp != nil {
		return -1
	}
	for ordinal := range int(ptr.Deref(sts.Spec.Replicas, 1)) {
		if pods[ordinal] == nil {
			return ordinal
		}
	}
	return -1
}

// touch is what to do about a missing pod now.
type touch struct {
	due     bool          // the grace has run out: touch the StatefulSet
	again   bool          // it was touched for this pod before
	recheck time.Duration // when to look again
}

// due records that ordinal is missing and reports whether the grace has run out (and, if so,
// starts it again), or else how much of it is left.
func (t *stalledPodTracker) due(key string, sts *appsv1.StatefulSet, ordinal int, now time.Time) touch {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.missing[key]
	if !ok || p.uid != sts.UID || p.generation != sts.Generation || p.ordinal != ordinal {
		t.missing[key] = stalledPod{uid: sts.UID, generation: sts.Generation, ordinal: ordinal, since: now}
		return touch{recheck: stalledPodGrace}
	}
	if left := stalledPodGrace - now.Sub(p.since); left > 0 {
		return touch{recheck: left}
	}
	again := p.touched
	p.since, p.touched = now, true
	t.missing[key] = p
	return touch{due: true, again: again, recheck: stalledPodGrace}
}

// resyncStalledStatefulSet touches the StatefulSet when a pod it asks for has been missing for
// stalledPodGrace. It returns when to look again (0: no pod is missing); no event would say so.
// The first touch for a missing pod is an event; the touches after it, while the same pod stays
// missing, are logged. The tracker lives in memory, so a new leader tells it once more.
func (r *reconcile) resyncStalledStatefulSet(ctx context.Context) (time.Duration, error) {
	c, nc, bc, sts, pods := r.c, r.nc, r.bc, r.sts, r.pods
	key := stalledKey(bc, sts)
	ordinal := missingOrdinal(sts, pods)
	if ordinal < 0 {
		c.stalled.forget(key)
		return 0, nil
	}
	now := c.cfg.Clock.Now()
	tc := c.stalled.due(key, sts, ordinal, now)
	if !tc.due {
		return tc.recheck, nil
	}
	pod := fmt.Sprintf("%s-%d", sts.Name, ordinal)
	update := sts.DeepCopy()
	if update.Annotations == nil {
		update.Annotations = map[string]string{}
	}
	update.Annotations[AnnotationResyncedAt] = now.UTC().Format(time.RFC3339)
	_, err := nc.statefulSets(sts.Namespace).Update(ctx, update, metav1.UpdateOptions{})
	switch {
	case err == nil:
		klog.FromContext(ctx).V(2).Info("Touched the StatefulSet: a pod it asks for is missing", "pod", pod, "grace", stalledPodGrace, "again", tc.again)
		if !tc.again {
			c.cfg.Recorder.Eventf(bc, corev1.EventTypeWarning, "StatefulSetStalled",
				"pod %s was not made %s after the StatefulSet asked for it: touched the StatefulSet so that its controller syncs it again, and again every %s while the pod is missing",
				pod, stalledPodGrace, stalledPodGrace)
		}
	case apierrors.IsConflict(err), apierrors.IsNotFound(err):
		// The set changed or went: that alone brings it back to its controller.
		klog.FromContext(ctx).V(2).Info("StatefulSet changed before it could be touched for a missing pod", "pod", pod, "err", err)
	default:
		return 0, fmt.Errorf("touch StatefulSet %s for its missing pod %s: %w", clusterKey(bc), pod, err)
	}
	return tc.recheck, nil
}
