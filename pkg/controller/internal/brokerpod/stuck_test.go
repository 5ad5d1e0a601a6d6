package brokerpod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func waiting(reason, message string) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: "redpanda", Image: "redpanda:v99.9.9", RestartCount: 4,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}}
}

// A pod that cannot come up by itself is named with why, from its own status; a slow pod is not.
func TestStuckReadsThePodsOwnStatus(t *testing.T) {
	now := metav1.Now()
	tests := []struct {
		name     string
		status   corev1.PodStatus
		deleting bool
		want     string // "" for not stuck
	}{
		{"image cannot be pulled", corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{waiting("ImagePullBackOff", "Back-off pulling image")}}, false, "image redpanda:v99.9.9 of pod p-1 cannot be pulled (ImagePullBackOff): Back-off pulling image"},
		{"first pull failed", corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{waiting("ErrImagePull", "not found")}}, false, "cannot be pulled (ErrImagePull)"},
		{"invalid image name", corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{waiting("InvalidImageName", "bad")}}, false, "(InvalidImageName)"},
		{"crash loop in an init container", corev1.PodStatus{InitContainerStatuses: []corev1.ContainerStatus{waiting("CrashLoopBackOff", "back-off 40s")}}, false, "container redpanda of pod p-1 crash-loops (4 restarts)"},
		{"config error", corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{waiting("CreateContainerConfigError", `secret "x" not found`)}}, false, "cannot be created (CreateContainerConfigError)"},
		{"unschedulable for a while", corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "0/3 nodes are available: 3 node(s) were unschedulable.", LastTransitionTime: metav1.NewTime(time.Unix(900, 0))}}}, false, "pod p-1 cannot be scheduled: 0/3 nodes are available"},
		{"unschedulable a moment ago (a claim being bound)", corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "pod has unbound immediate PersistentVolumeClaims", LastTransitionTime: metav1.NewTime(time.Unix(1000, 0))}}}, false, ""},
		{"pulling an image", corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{waiting("ContainerCreating", "")}}, false, ""},
		{"running, not Ready (replaying its log)", corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "redpanda", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}, false, ""},
		{"pending, not yet scheduled", corev1.PodStatus{Phase: corev1.PodPending}, false, ""},
		{"being deleted", corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{waiting("CrashLoopBackOff", "")}}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p-1"}, Status: tt.status}
			if tt.deleting {
				pod.DeletionTimestamp = &now
			}
			why, stuck := Stuck(pod, time.Unix(1010, 0))
			if got, want := Unschedulable(pod), strings.HasPrefix(tt.name, "unschedulable"); got != want {
				t.Errorf("Unschedulable = %t, want %t", got, want)
			}
			switch {
			case tt.want == "" && stuck:
				t.Errorf("stuck: %q, want a pod that is only slow", why)
			case tt.want != "" && (!stuck || !strings.Contains(why, tt.want)):
				t.Errorf("Stuck = %q, %t; want stuck, naming %q", why, stuck, tt.want)
			}
		})
	}
}

// An unschedulable pod is looked at again when its grace ends, and no other pod is.
func TestUntilStuckIsWhatIsLeftOfTheGrace(t *testing.T) {
	since := time.Unix(1000, 0)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p-1"}, Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, LastTransitionTime: metav1.NewTime(since)}}}}
	if got := UntilStuck(pod, since.Add(10*time.Second)); got != UnschedulableGrace-10*time.Second {
		t.Errorf("10 s into the grace: %v left, want %v", got, UnschedulableGrace-10*time.Second)
	}
	if got := UntilStuck(pod, since.Add(UnschedulableGrace)); got != 0 {
		t.Errorf("at the grace's end: %v left, want 0", got)
	}
	if _, stuck := Stuck(pod, since.Add(UnschedulableGrace)); !stuck {
		t.Error("not stuck when nothing of the grace is left")
	}
	if got := UntilStuck(&corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending}}, since); got != 0 {
		t.Errorf("a pod not yet looked at by the scheduler: %v left, want 0", got)
	}
}
