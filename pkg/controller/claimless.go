package controller

import (
	"context"
	"fmt"
	"time"

	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// claimlessPodGrace is how long a pod may stay Pending without its data volume claim before the
// operator deletes it.
const claimlessPodGrace = 30 * time.Second

// A pod can be made without its claim: when a claim is deleted while the StatefulSet
// controller's claim informer has not seen the delete yet (an apiserver restart in between, say),
// the controller makes the pod of a scale-up and no claim, and the pod stays Pending
// ("persistentvolumeclaim not found") until the controller happens to sync the set again, which
// the soak saw take more than six minutes. Such a pod never ran a broker, so deleting it loses
// nothing, and the StatefulSet controller then makes the claim and the pod again at once.

// deleteClaimlessPods deletes the pods of wanted ordinals (below current) that have been
// Pending and unscheduled for claimlessPodGrace while their data volume claim does not exist,
// and drops them from pods. Claims are read with a GET by name, only for such pods. It returns
// when to look again at a pod whose grace has not ended yet (0: none).
func (r *reconcile) deleteClaimlessPods(ctx context.Context) (time.Duration, error) {
	c, nc, bc, pods := r.c, r.nc, r.bc, r.pods
	now := c.cfg.Clock.Now()
	var recheck time.Duration
	for ordinal, pod := range pods {
		if ordinal >= int(bc.Status.CurrentReplicas) || pod.DeletionTimestamp != nil || pod.Spec.NodeName != "" ||
			pod.Status.Phase != corev1.PodPending {
			continue
		}
		if left := claimlessPodGrace - now.Sub(pod.CreationTimestamp.Time); left > 0 {
			if recheck == 0 || left < recheck {
				recheck = left
			}
			continue
		}
		claim := objects.DataClaimName(bc, int32(ordinal))
		_, err := c.cfg.KubeClient.CoreV1().PersistentVolumeClaims(bc.Namespace).Get(ctx, claim, metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			continue // there, or unknown: nothing to do
		}
		uid := pod.UID
		err = nc.pods(bc.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		switch {
		case err == nil:
			c.cfg.Recorder.Eventf(bc, corev1.EventTypeWarning, "DeleteClaimlessPod",
				"pod %s was Pending without its volume claim %s: deleted, so that the StatefulSet controller makes both again", pod.Name, claim)
		case apierrors.IsNotFound(err), apierrors.IsConflict(err):
			klog.FromContext(ctx).V(2).Info("Claimless pod already gone", "pod", pod.Name, "uid", uid)
		default:
			return 0, fmt.Errorf("delete pod %s/%s, Pending without its claim %s: %w", bc.Namespace, pod.Name, claim, err)
		}
		delete(pods, ordinal)
	}
	return recheck, nil
}
