package controller

import (
	"context"

	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// Leftovers of a scale-down: when the StatefulSet shrinks, its controller deletes the pods of
// the ordinals it gives up and, with the claim retention policy whenScaled: Delete, hands each
// of their volume claims to the pod (an owner reference), so that garbage collection deletes
// the claim once the pod is gone. Both take a moment. A scale-up that wants those ordinals back
// in that moment keeps the old pod (running a broker that has left the cluster), or makes a
// new pod that mounts a claim about to be deleted, which then stays Pending for good. So a
// scale-up waits until the leftovers are gone (stepWaitPodGone).

// leftoverPods counts the pods at ordinals current and above.
func leftoverPods(pods map[int]*corev1.Pod, current int32) int {
	n := 0
	for ordinal := range pods {
		if ordinal >= int(current) {
			n++
		}
	}
	return n
}

// condemnedClaims counts the data volume claims of ordinals from to to-1 that a scale-down
// condemned: being deleted, or owned by a pod. Claims are read with a GET by name (there is no
// claim informer): this runs only while a scale-up is pending. A claim that cannot be read
// counts as condemned, so that the scale-up waits rather than guesses.
func (r *reconcile) condemnedClaims(ctx context.Context, from, to int32) int {
	c, bc := r.c, r.bc
	claims := c.cfg.KubeClient.CoreV1().PersistentVolumeClaims(bc.Namespace)
	n := 0
	for ordinal := from; ordinal < to; ordinal++ {
		name := objects.DataClaimName(bc, ordinal)
		claim, err := claims.Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			klog.FromContext(ctx).V(2).Info("Cannot read a volume claim; the scale-up waits", "claim", name, "err", err)
			n++
		case claim.DeletionTimestamp != nil || ownedByPod(claim):
			n++
		}
	}
	return n
}

func ownedByPod(obj metav1.Object) bool {
	for _, ref := range obj.GetOwnerReferences() {
		if ref.Kind == "Pod" && ref.APIVersion == "v1" {
			return true
		}
	}
	return false
}
