package controller

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// growVolumes carries a growth of spec.storage.size to the brokers' volume claims
// (step.PlanVolumes decides): it reads each claim below currentReplicas and its StorageClass,
// raises the claims' requests when every class allows it, asks for the restart of a pod whose
// file system waits for one (the rollout does it), and reports status.storage and the
// StorageResized condition. It records whether the StatefulSet's claim template may grow
// (ensureStatefulSet, templategrowth.go), and returns when to look again: claims are read with
// a GET by name, not watched, so progress is polled.
func (r *reconcile) growVolumes(ctx context.Context) (time.Duration, error) {
	bc := r.bc
	size := bc.Spec.Storage.Size
	if r.sts == nil || !step.NeedsVolumeGrowth(size, objects.ClaimTemplateSize(r.sts), bc.Status.Storage, bc.Status.CurrentReplicas) {
		return 0, nil
	}
	claims, err := r.readClaims(ctx)
	if err != nil {
		return 0, err
	}
	plan := step.PlanVolumes(step.Volumes{Size: size, Template: objects.ClaimTemplateSize(r.sts),
		Claims: claims, Classes: r.judgeClasses(ctx, claims), Now: r.c.cfg.Clock.Now()})
	if err := r.expandClaims(ctx, &plan, size); err != nil {
		return 0, err
	}
	r.templateMayGrow = plan.Allowed
	if err := r.requestResizeRestarts(ctx, plan.Restart); err != nil {
		return 0, err
	}
	if err := r.writeStorageStatus(ctx, plan); err != nil {
		return 0, err
	}
	switch {
	case plan.Done:
		return 0, nil
	case !plan.Allowed:
		return storageClassRecheck, nil // a class may be changed to allow it; nothing tells us
	}
	return r.c.cfg.DrainPollInterval, nil
}

// storageClassRecheck is how often a growth a StorageClass refuses is looked at again.
const storageClassRecheck = time.Minute

// readClaims reads the data volume claim of each ordinal below currentReplicas by name; one
// that does not exist yet is left out (the StatefulSet makes it from its claim template).
func (r *reconcile) readClaims(ctx context.Context) ([]step.VolumeClaim, error) {
	bc := r.bc
	client := r.c.cfg.KubeClient.CoreV1().PersistentVolumeClaims(bc.Namespace)
	var out []step.VolumeClaim
	for ordinal := range bc.Status.CurrentReplicas {
		name := objects.DataClaimName(bc, ordinal)
		claim, err := client.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read volume claim %s/%s: %w", bc.Namespace, name, err)
		}
		out = append(out, observeClaim(claim, ordinal, r.pods[int(ordinal)]))
	}
	return out, nil
}

// observeClaim is what step.PlanVolumes needs of a claim and its broker's pod.
func observeClaim(claim *corev1.PersistentVolumeClaim, ordinal int32, pod *corev1.Pod) step.VolumeClaim {
	c := step.VolumeClaim{Name: claim.Name, ResourceVersion: claim.ResourceVersion, Ordinal: ordinal,
		Bound: claim.Status.Phase == corev1.ClaimBound, Request: claim.Spec.Resources.Requests[corev1.ResourceStorage]}
	if claim.Spec.StorageClassName != nil {
		c.Class = *claim.Spec.StorageClassName
	}
	if capacity, ok := claim.Status.Capacity[corev1.ResourceStorage]; ok {
		c.Capacity = &capacity
	}
	for _, cond := range claim.Status.Conditions {
		if cond.Type == corev1.PersistentVolumeClaimFileSystemResizePending && cond.Status == corev1.ConditionTrue {
			c.ResizePendingSince = cond.LastTransitionTime.Time
		}
	}
	if pod != nil && pod.DeletionTimestamp == nil {
		_, requested := brokerpod.RestartRequested(pod)
		c.Pod, c.PodCreated, c.RestartRequested = true, pod.CreationTimestamp.Time, requested
	}
	return c
}

// judgeClasses reads each StorageClass the claims name, by name, and says whether it allows
// volume expansion.
func (r *reconcile) judgeClasses(ctx context.Context, claims []step.VolumeClaim) map[string]step.ClassVerdict {
	out := map[string]step.ClassVerdict{}
	for _, c := range claims {
		if _, done := out[c.Class]; done || c.Class == "" {
			continue
		}
		class, err := r.c.cfg.KubeClient.StorageV1().StorageClasses().Get(ctx, c.Class, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			out[c.Class] = step.ClassVerdict{Why: "does not exist"}
		case err != nil:
			out[c.Class] = step.ClassVerdict{Why: fmt.Sprintf("cannot be read (%v)", err)}
		case class.AllowVolumeExpansion == nil || !*class.AllowVolumeExpansion:
			out[c.Class] = step.ClassVerdict{Why: "does not allow volume expansion (allowVolumeExpansion is not true)"}
		default:
			out[c.Class] = step.ClassVerdict{Allows: true}
		}
	}
	return out
}

// expandClaims raises the storage request of each claim of plan.Grow to size, with a merge patch
// that carries the resourceVersion it was read at: a claim changed since is a Conflict, and the
// next reconcile decides again. Every patch is first sent as a dry run, which runs
// kube-apiserver's admission (the resize plugin among it) and changes nothing, so that a claim
// it refuses (Forbidden, Invalid) leaves every claim as it was. A refusal is recorded in the plan
// (step.VolumePlan.Refused) rather than retried with backoff: the answer will not change by
// itself. Claims are not cached (leftovers.go reads them live too), so the plain client writes
// them.
func (r *reconcile) expandClaims(ctx context.Context, plan *step.VolumePlan, size resource.Quantity) error {
	bc := r.bc
	client := r.c.cfg.KubeClient.CoreV1().PersistentVolumeClaims(bc.Namespace)
	expand := func(c step.VolumeClaim, opts metav1.PatchOptions) error {
		patch := fmt.Appendf(nil, `{"metadata":{"resourceVersion":%q},"spec":{"resources":{"requests":{"storage":%q}}}}`, c.ResourceVersion, size.String())
		_, err := client.Patch(ctx, c.Name, types.MergePatchType, patch, opts)
		return err
	}
	refused := func(err error) bool { return apierrors.IsForbidden(err) || apierrors.IsInvalid(err) }
	for _, c := range plan.Grow {
		if err := expand(c, metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}); refused(err) {
			plan.Refused(c.Name, err.Error(), 0)
			return nil
		}
	}
	var names []string
	defer func() {
		if len(names) == 0 {
			return
		}
		klog.FromContext(ctx).V(2).Info("Asked volume claims to grow", "claims", names, "size", size.String())
		r.c.cfg.Recorder.Eventf(bc, corev1.EventTypeNormal, "ExpandVolumeClaims", "asked volume claims %s to grow to %s (spec.storage.size)", strings.Join(names, ", "), size.String())
	}()
	for i, c := range plan.Grow {
		err := expand(c, metav1.PatchOptions{})
		switch {
		case refused(err):
			plan.Refused(c.Name, err.Error(), i)
			return nil
		case err != nil:
			return fmt.Errorf("expand volume claim %s/%s to %s: %w", bc.Namespace, c.Name, size.String(), err)
		}
		names = append(names, c.Name)
	}
	return nil
}

// requestResizeRestarts annotates the pod of each claim whose file system waits for a restart
// with broker-operator.dev/restart-requested, naming the claim: the rollout restarts it like an
// outdated pod, one broker at a time, with every fact a restart relies on (ObserveRollout).
func (r *reconcile) requestResizeRestarts(ctx context.Context, claims []step.VolumeClaim) error {
	bc := r.bc
	for _, c := range claims {
		pod := r.pods[int(c.Ordinal)]
		if pod == nil {
			continue
		}
		by := step.ResizeRestartBy(c.Name)
		// The resourceVersion it was read at: a pod replaced or changed since is a Conflict.
		patch := fmt.Appendf(nil, `{"metadata":{"resourceVersion":%q,"annotations":{%q:%q}}}`, pod.ResourceVersion, objects.AnnotationRestartRequested, by)
		updated, err := r.nc.pods(bc.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{})
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			continue // gone or replaced: the new pod mounts the grown volume
		}
		if err != nil {
			return fmt.Errorf("request the restart of pod %s/%s for its volume claim: %w", bc.Namespace, pod.Name, err)
		}
		r.pods[int(c.Ordinal)] = updated
		r.c.cfg.Recorder.Eventf(bc, corev1.EventTypeNormal, "RequestResizeRestart",
			"pod %s is to restart so that the file system of volume claim %s grows (FileSystemResizePending); the rollout restarts it", pod.Name, c.Name)
	}
	return nil
}

// writeStorageStatus patches status.storage and the StorageResized condition when they change,
// and sends an event when the condition's status or reason does: Warning for a class that
// refuses the growth.
func (r *reconcile) writeStorageStatus(ctx context.Context, plan step.VolumePlan) error {
	c, bc := r.c, r.bc
	conds := append([]metav1.Condition(nil), bc.Status.Conditions...)
	old := meta.FindStatusCondition(conds, v1alpha1.ConditionStorageResized)
	cond := plan.Condition
	if r.whole != nil {
		cond.Message = "pool " + r.focus + ": " + cond.Message
	}
	announce := old == nil || old.Status != cond.Status || old.Reason != cond.Reason
	cond.ObservedGeneration, cond.LastTransitionTime = bc.Generation, metav1.NewTime(c.cfg.Clock.Now())
	changed := meta.SetStatusCondition(&conds, cond)
	same := bc.Status.Storage != nil && equality.Semantic.DeepEqual(*bc.Status.Storage, plan.Status)
	if !changed && same {
		return nil
	}
	if err := r.patchStorageStatus(ctx, conds, plan.Status); err != nil {
		return err
	}
	if announce {
		kind := corev1.EventTypeNormal
		if cond.Reason == step.ReasonStorageExpansionNotAllowed || cond.Reason == step.ReasonStorageExpansionRefused {
			kind = corev1.EventTypeWarning
		}
		c.cfg.Recorder.Event(bc, kind, cond.Reason, cond.Message)
	}
	return nil
}
