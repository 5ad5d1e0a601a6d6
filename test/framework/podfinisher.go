package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/yaml"
)

// podFinisherUser is the identity the pod finisher deletes pods as, so that the audit log
// (PodDeletes) tells its deletes from everyone else's.
const podFinisherUser = "pod-finisher"

// kwokPodDeleteStage is kwok's stage that removes a pod once it is being deleted. It deletes by
// name with no precondition (sigs.k8s.io/kwok v0.8.0 pkg/kwok/controllers/pod_controller.go,
// deleteOpt), so when it acts twice on one pod, or late, it deletes the pod that replaced it under
// the same name: during a StatefulSet rollout the new pod vanished 3-45 ms after it appeared. The
// pod finisher does its job instead, as a kubelet would.
const kwokPodDeleteStage = "pod-delete"

// writeKwokStages copies kwok's stage configuration into dir without kwokPodDeleteStage, and
// returns the copy's path.
func writeKwokStages(dir, src string) (string, error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	var kept []string
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var stage struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &stage); err != nil {
			return "", fmt.Errorf("kwok stages %s: %w", src, err)
		}
		if stage.Kind == "Stage" && stage.Metadata.Name == kwokPodDeleteStage {
			continue
		}
		kept = append(kept, doc)
	}
	path := filepath.Join(dir, "kwok-stages.yaml")
	return path, os.WriteFile(path, []byte(strings.Join(kept, "\n---\n")), 0o644)
}

// podFinisher does for the fake Nodes' pods what a kubelet does once a pod's containers have
// stopped: it deletes a pod that is being deleted, with grace 0 and a precondition on the pod's
// UID (kubernetes pkg/kubelet/status/status_manager.go, syncPod), so that the delete can only
// ever remove the pod it was meant for. kwok runs no containers, so there is nothing to wait for.
type podFinisher struct {
	client kubernetes.Interface
	// stopTime, when set, is how long a pod takes to stop once it is being deleted (Options.PodStop).
	stopTime func(*corev1.Pod) time.Duration
	factory  informers.SharedInformerFactory
	queue    workqueue.TypedRateLimitingInterface[podRef]
	cancel   context.CancelFunc
	// workers, one per node, as each kubelet deletes its own pods.
	workers sync.WaitGroup
}

// podRef names one pod: a new pod of the same name is another podRef.
type podRef struct {
	namespace, name string
	uid             types.UID
}

// A kubelet's API client allows 50 requests a second, bursts of 100 (KubeletConfiguration
// kubeAPIQPS and kubeAPIBurst, their defaults since Kubernetes 1.27); the finisher stands in for
// one kubelet per node, with one worker each. client-go's default of 5 a second made pod deletes
// queue behind each other for minutes when a hundred clusters moved at once, which no cluster
// with real kubelets sees.
const (
	kubeletQPS   = 50
	kubeletBurst = 100
)

// startPodFinisher starts a podFinisher for the pods bound to nodes. It watches one node's pods
// through a field selector; the pods of several, which no field selector names at once, through
// a watch of every pod, keeping theirs.
func startPodFinisher(client kubernetes.Interface, stop func(*corev1.Pod) time.Duration, nodes ...string) (*podFinisher, error) {
	var tweak []informers.SharedInformerOption
	if len(nodes) == 1 {
		tweak = append(tweak, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("spec.nodeName", nodes[0]).String()
		}))
	}
	f := &podFinisher{
		client:   client,
		stopTime: stop,
		factory:  informers.NewSharedInformerFactoryWithOptions(client, 0, tweak...),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[podRef](),
			workqueue.TypedRateLimitingQueueConfig[podRef]{Name: podFinisherUser}),
	}
	onPod := func(obj any) {
		pod, ok := obj.(*corev1.Pod)
		if !ok || pod.DeletionTimestamp == nil || !slices.Contains(nodes, pod.Spec.NodeName) {
			return
		}
		ref := podRef{pod.Namespace, pod.Name, pod.UID}
		if f.stopTime == nil {
			f.queue.Add(ref)
			return
		}
		// Counted from the first event that shows the delete: the queue keeps the earliest
		// time an item was asked for, so later updates of the pod do not push it back.
		f.queue.AddAfter(ref, f.stopTime(pod))
	}
	if _, err := f.factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onPod, UpdateFunc: func(_, cur any) { onPod(cur) },
	}); err != nil {
		return nil, err
	}
	var ctx context.Context
	ctx, f.cancel = context.WithCancel(context.Background())
	f.factory.Start(ctx.Done())
	for range max(len(nodes), 1) {
		f.workers.Go(func() {
			for f.next(ctx) {
			}
		})
	}
	return f, nil
}

func (f *podFinisher) next(ctx context.Context) bool {
	ref, shutdown := f.queue.Get()
	if shutdown {
		return false
	}
	defer f.queue.Done(ref)
	opts := *metav1.NewDeleteOptions(0)
	opts.Preconditions = metav1.NewUIDPreconditions(string(ref.uid))
	reqCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	err := f.client.CoreV1().Pods(ref.namespace).Delete(reqCtx, ref.name, opts)
	switch {
	case err == nil, apierrors.IsNotFound(err), apierrors.IsConflict(err):
		// Gone, or the name now belongs to another pod (the precondition failed): done.
		f.queue.Forget(ref)
	case ctx.Err() == nil:
		f.queue.AddRateLimited(ref) // the apiserver may be restarting
	}
	return true
}

// startPodFinisherFrom starts a podFinisher for nodes, as the user of kubeconfig.
func startPodFinisherFrom(kubeconfig string, stop func(*corev1.Pod) time.Duration, nodes ...string) (*podFinisher, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	kubelets := max(len(nodes), 1)
	cfg.QPS, cfg.Burst = float32(kubeletQPS*kubelets), kubeletBurst*kubelets
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return startPodFinisher(client, stop, nodes...)
}

// stop ends the finisher and waits for its workers.
func (f *podFinisher) stop() {
	f.cancel()
	f.queue.ShutDown()
	f.factory.Shutdown()
	f.workers.Wait()
}
