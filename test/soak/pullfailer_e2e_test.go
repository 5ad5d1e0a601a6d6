//go:build e2e

package soak

import (
	"context"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/controller"
	"github.com/broker-operator/broker-operator/test/brokersim"
)

// pullFailer plays the kubelet for pods whose image cannot be pulled, or whose broker exits as
// soon as it starts: it writes their status as the kubelet does after a failed pull (Pending,
// not Ready, the container waiting in ImagePullBackOff) or after repeated exits (Running, not
// Ready, the container waiting in CrashLoopBackOff, its last run terminated with exit code 1),
// which the operator reads as a pod that cannot start (pkg/controller/internal/brokerpod.Stuck). kwok would make them Ready instead: the bad
// image's pods carry framework.ReadyDelayAnnotation, which holds kwok back. It records, for each
// such pod, the span its broker could not start: from its status write until the broker of its
// ordinal runs again (or is no longer a member). The informer resyncs every second, so a status
// write the apiserver refused (it may be restarting) is made again.
type pullFailer struct {
	kube    kubernetes.Interface
	ns      string
	sim     *admintest.Server
	pods    *brokersim.PodSync
	factory informers.SharedInformerFactory
	ctx     context.Context
	cancel  context.CancelFunc

	mu     sync.Mutex
	bad    map[string]string // images whose pods cannot start, and the reason they wait in
	marked map[types.UID]bool
	spans  map[string][]Outage // by cluster
	// added is closed, and replaced, when a span is added.
	added chan struct{}
}

// The reasons a container of a pod that cannot start waits in (kubernetes
// pkg/kubelet/images/types.go, pkg/kubelet/kuberuntime).
const (
	pullBackOff  = "ImagePullBackOff"
	crashBackOff = "CrashLoopBackOff"
)

func startPullFailer(parent context.Context, kube kubernetes.Interface, ns string, sim *admintest.Server, pods *brokersim.PodSync) (*pullFailer, error) {
	ctx, cancel := context.WithCancel(parent)
	f := &pullFailer{kube: kube, ns: ns, sim: sim, pods: pods, ctx: ctx, cancel: cancel, bad: map[string]string{}, marked: map[types.UID]bool{}, spans: map[string][]Outage{}, added: make(chan struct{}),
		factory: informers.NewSharedInformerFactoryWithOptions(kube, time.Second, informers.WithNamespace(ns))}
	if _, err := f.factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: f.onPod, UpdateFunc: func(_, cur any) { f.onPod(cur) },
	}); err != nil {
		cancel()
		return nil, err
	}
	f.factory.Start(ctx.Done())
	f.factory.WaitForCacheSync(ctx.Done())
	return f, nil
}

func (f *pullFailer) stop() {
	f.cancel()
	f.factory.Shutdown()
}

// failStarts makes the pods of image wait in reason (pullBackOff or crashBackOff).
func (f *pullFailer) failStarts(image, reason string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bad[image] = reason
}

func (f *pullFailer) onPod(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.DeletionTimestamp != nil || len(pod.Spec.Containers) == 0 || pod.Spec.NodeName == "" {
		return
	}
	image := pod.Spec.Containers[0].Image
	f.mu.Lock()
	reason := f.bad[image]
	f.mu.Unlock()
	if reason == "" || waiting(pod, reason) {
		return
	}
	cluster := pod.Labels[controller.LabelInstance]
	ordinal, ok := brokersim.Ordinal(pod.Name, cluster)
	if !ok {
		return
	}
	from := time.Now()
	p := pod.DeepCopy()
	p.Status.Phase = corev1.PodPending
	status := corev1.ContainerStatus{Name: p.Spec.Containers[0].Name, Image: image,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: pullBackOff,
			Message: `Back-off pulling image "` + image + `": ErrImagePull: failed to resolve reference: registry.invalid: no such host`}}}
	if reason == crashBackOff {
		p.Status.Phase = corev1.PodRunning
		status.RestartCount = 5
		status.State.Waiting = &corev1.ContainerStateWaiting{Reason: crashBackOff,
			Message: "back-off 2m40s restarting failed container=" + status.Name + " pod=" + p.Name}
		status.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error",
			StartedAt: metav1.NewTime(from), FinishedAt: metav1.NewTime(from)}
	}
	p.Status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(from)},
		{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", LastTransitionTime: metav1.NewTime(from)},
		{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", LastTransitionTime: metav1.NewTime(from)},
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{status}
	ctx, cancel := context.WithTimeout(f.ctx, 10*time.Second)
	defer cancel()
	if _, err := f.kube.CoreV1().Pods(f.ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		return // the resync tries again
	}
	f.mu.Lock()
	first := !f.marked[pod.UID]
	f.marked[pod.UID] = true
	f.mu.Unlock()
	if !first {
		return
	}
	c := f.sim.Cluster(f.ns, cluster)
	node, member := c.NodeID(ordinal)
	if !member {
		return // a pod with no broker (a scale-up's): nothing of the cluster's is unavailable
	}
	i := f.addSpan(cluster, Outage{NodeID: node, Ordinal: ordinal, From: from, Why: WhyCannotStart})
	go f.awaitBack(cluster, c, node, i)
}

// waiting says the pod's status already shows its container waiting in reason.
func waiting(pod *corev1.Pod, reason string) bool {
	return slices.ContainsFunc(pod.Status.ContainerStatuses, func(s corev1.ContainerStatus) bool {
		return s.State.Waiting != nil && s.State.Waiting.Reason == reason
	})
}

func (f *pullFailer) addSpan(cluster string, o Outage) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spans[cluster] = append(f.spans[cluster], o)
	close(f.added)
	f.added = make(chan struct{})
	return len(f.spans[cluster]) - 1
}

// awaitBack ends the span once the broker runs again, or is no longer a member.
func (f *pullFailer) awaitBack(cluster string, c *admintest.Cluster, node, i int) {
	for {
		changed := f.pods.Changes()
		if back(c, node) {
			f.mu.Lock()
			f.spans[cluster][i].To = time.Now()
			f.mu.Unlock()
			return
		}
		select {
		case <-changed:
		case <-f.ctx.Done():
			return
		}
	}
}

func back(c *admintest.Cluster, node int) bool {
	for _, b := range c.Brokers() {
		if b.NodeID == node {
			return b.PodRunning || b.Status == admin.MembershipRemoved
		}
	}
	return true
}

// cannotStart returns the spans recorded for a cluster's brokers; a span that had not ended is
// open (To zero).
func (f *pullFailer) cannotStart(cluster string) []Outage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.spans[cluster])
}

// awaitStuck waits up to limit for a pod of cluster to be marked as unable to pull its image,
// and returns the span recorded for it.
func (f *pullFailer) awaitStuck(ctx context.Context, cluster string, since int, limit time.Duration) (Outage, bool) {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		f.mu.Lock()
		changed := f.added
		f.mu.Unlock()
		if spans := f.cannotStart(cluster); len(spans) > since {
			return spans[since], true
		}
		select {
		case <-changed:
		case <-deadline.C:
			return Outage{}, false
		case <-ctx.Done():
			return Outage{}, false
		}
	}
}
