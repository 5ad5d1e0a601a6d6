package brokerpod

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// stuckReasons are the reasons a container waits in that it does not leave by itself: the
// kubelet's image pull failures (ErrImagePull, ImagePullBackOff, InvalidImageName: kubernetes
// pkg/kubelet/images/types.go), a container that exits again and again (CrashLoopBackOff) and
// one whose configuration cannot be made, such as a missing Secret or ConfigMap
// (CreateContainerConfigError: pkg/kubelet/kuberuntime/kuberuntime_container.go). Strimzi's
// KafkaRoller force-restarts an outdated pod in these states rather than wait for it.
var stuckReasons = []string{"CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "CreateContainerConfigError", "InvalidImageName"}

// UnschedulableGrace is how long a pod must have been unschedulable before it counts as stuck:
// the scheduler also reports Unschedulable while a new pod's volume claim is being bound, which
// ends by itself within seconds.
const UnschedulableGrace = 30 * time.Second

// Stuck says whether a pod cannot come up by itself, and why, in words from its own status: a
// container waiting in one of stuckReasons, or the pod unschedulable (the scheduler's
// PodScheduled condition False, reason Unschedulable, with its message) for UnschedulableGrace
// by now. A pod that is merely slow (running and not yet Ready, pulling an image, replaying its
// log) is not stuck.
func Stuck(pod *corev1.Pod, now time.Time) (string, bool) {
	if pod.DeletionTimestamp != nil {
		return "", false
	}
	if c, ok := unschedulable(pod); ok && now.Sub(c.LastTransitionTime.Time) >= UnschedulableGrace {
		return fmt.Sprintf("pod %s cannot be scheduled: %s", pod.Name, c.Message), true
	}
	statuses := append(slices.Clone(pod.Status.InitContainerStatuses), pod.Status.ContainerStatuses...)
	for _, s := range statuses {
		w := s.State.Waiting
		if w == nil || !slices.Contains(stuckReasons, w.Reason) {
			continue
		}
		switch w.Reason {
		case "CrashLoopBackOff":
			return fmt.Sprintf("container %s of pod %s crash-loops (%d restarts): %s", s.Name, pod.Name, s.RestartCount, w.Message), true
		case "ImagePullBackOff", "ErrImagePull", "InvalidImageName":
			return fmt.Sprintf("image %s of pod %s cannot be pulled (%s): %s", s.Image, pod.Name, w.Reason, w.Message), true
		}
		return fmt.Sprintf("container %s of pod %s cannot be created (%s): %s", s.Name, pod.Name, w.Reason, w.Message), true
	}
	return "", false
}

// UntilStuck is how long until a pod the scheduler has found no node for counts as stuck: what
// is left of UnschedulableGrace, 0 when it is not unschedulable or counts already. Nothing
// else happens to such a pod when its grace ends, so a reconcile looks again then.
func UntilStuck(pod *corev1.Pod, now time.Time) time.Duration {
	c, ok := unschedulable(pod)
	if !ok || pod.DeletionTimestamp != nil {
		return 0
	}
	return max(0, UnschedulableGrace-now.Sub(c.LastTransitionTime.Time))
}

// Unschedulable says whether the scheduler found no node for the pod: its PodScheduled
// condition is False with reason Unschedulable.
func Unschedulable(pod *corev1.Pod) bool {
	_, ok := unschedulable(pod)
	return ok
}

func unschedulable(pod *corev1.Pod) (corev1.PodCondition, bool) {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return c, true
		}
	}
	return corev1.PodCondition{}, false
}
