//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/broker-operator/broker-operator/test/framework"
)

const smokeTimeout = time.Minute

// TestControlPlaneRunsStatefulSets checks the chain the operator depends on: the StatefulSet
// controller creates Pods, the scheduler binds them to the fake Nodes, kwok makes them Running and
// Ready with IPs, and scaling down removes the highest ordinals first.
func TestControlPlaneRunsStatefulSets(t *testing.T) {
	cp := framework.StartForTest(t, framework.Options{})
	ctx := t.Context()
	client := kubernetes.NewForConfigOrDie(cp.AdminConfig())
	ns := createNamespace(t, client)

	sts := smokeStatefulSet(ns, 3)
	if _, err := client.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create statefulset: %v", err)
	}
	selector := labels.SelectorFromSet(sts.Spec.Selector.MatchLabels).String()
	waitForPods(t, client, ns, selector, []string{"web-0", "web-1", "web-2"})

	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	deletions := recordDeletions(t, client, ns, selector, pods.ResourceVersion)

	// Scale the way kubectl scale does: through the scale subresource.
	scale := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns}, Spec: autoscalingv1.ScaleSpec{Replicas: 1}}
	if _, err := client.AppsV1().StatefulSets(ns).UpdateScale(ctx, "web", scale, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("scale statefulset to 1: %v", err)
	}
	waitForPods(t, client, ns, selector, []string{"web-0"})
	if got := deletions.waitFor(t, "web-1", "web-2"); !slices.Equal(got, []string{"web-2", "web-1"}) {
		t.Errorf("pods deleted in order %v, want web-2 then web-1", got)
	}
}

// TestReadinessDelay checks that kwok holds a Pod back for the delay its annotation asks for, so
// tests can keep a broker's Pod not Ready for a while.
func TestReadinessDelay(t *testing.T) {
	cp := framework.StartForTest(t, framework.Options{})
	ctx := t.Context()
	client := kubernetes.NewForConfigOrDie(cp.AdminConfig())
	ns := createNamespace(t, client)

	const delay = 3 * time.Second
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "slow", Namespace: ns, Labels: map[string]string{"app": "slow"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "slow", Image: "registry.invalid/slow:1"}}},
	}
	framework.PlaceOnFakeNode(&pod.Spec)
	framework.DelayReadiness(&pod.ObjectMeta, delay)
	if _, err := client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForPods(t, client, ns, "app=slow", []string{"slow"})

	got, err := client.CoreV1().Pods(ns).Get(ctx, "slow", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range got.Status.Conditions {
		// Both times are stored to the second, hence the one-second allowance.
		if c.Type == corev1.PodReady {
			if waited := c.LastTransitionTime.Sub(got.CreationTimestamp.Time); waited < delay-time.Second {
				t.Errorf("pod became Ready %s after creation, want about %s", waited, delay)
			}
		}
	}
}

// TestControlPlaneEnforcesRBAC checks that a ServiceAccount's client has exactly what RBAC grants
// it, and that the admin kubeconfig file works on its own.
func TestControlPlaneEnforcesRBAC(t *testing.T) {
	cp := framework.StartForTest(t, framework.Options{})
	ctx := t.Context()
	client := kubernetes.NewForConfigOrDie(cp.AdminConfig())
	ns := createNamespace(t, client)

	fromFile, err := clientcmd.BuildConfigFromFlags("", cp.KubeconfigPath)
	if err != nil {
		t.Fatalf("load admin kubeconfig: %v", err)
	}
	if _, err := kubernetes.NewForConfigOrDie(fromFile).CoreV1().Nodes().Get(ctx, framework.FakeNodeName, metav1.GetOptions{}); err != nil {
		t.Fatalf("get the fake node with the admin kubeconfig: %v", err)
	}

	mustCreate(t, func() error {
		_, err := client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "reader"}}, metav1.CreateOptions{})
		return err
	})
	mustCreate(t, func() error {
		_, err := client.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Name: "pod-reader"},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}}},
		}, metav1.CreateOptions{})
		return err
	})
	mustCreate(t, func() error {
		_, err := client.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "reader"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "pod-reader"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "reader", Namespace: ns}},
		}, metav1.CreateOptions{})
		return err
	})

	saConfig, err := cp.ServiceAccountConfig(ctx, ns, "reader")
	if err != nil {
		t.Fatal(err)
	}
	reader := kubernetes.NewForConfigOrDie(saConfig)
	if _, err := reader.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("service account may list pods in %s, got %v", ns, err)
	}
	if _, err := reader.AppsV1().StatefulSets(ns).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("listing statefulsets as the service account: want Forbidden, got %v", err)
	}
	if _, err := reader.CoreV1().Pods("default").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("listing pods outside %s as the service account: want Forbidden, got %v", ns, err)
	}
	if _, err := cp.ServiceAccountConfig(ctx, ns, "missing"); err == nil {
		t.Error("a token for a service account that does not exist was issued")
	}

	// The audit log names each refused request, which is how e2e tests catch the ones a
	// controller only logs.
	user := "system:serviceaccount:" + ns + ":reader"
	var forbidden []framework.Request
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, smokeTimeout, true, func(context.Context) (bool, error) {
		forbidden, err = cp.ForbiddenRequests()
		return len(forbidden) >= 2, err
	})
	if err != nil {
		t.Fatalf("forbidden requests %v: %v", forbidden, err)
	}
	want := []string{
		user + " list /apis/apps/v1/namespaces/" + ns + "/statefulsets -> 403",
		user + " list /api/v1/namespaces/default/pods -> 403",
	}
	var got []string
	for _, r := range forbidden {
		got = append(got, r.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("forbidden requests:\n got %q\nwant %q", got, want)
	}
}

func createNamespace(t *testing.T, client kubernetes.Interface) string {
	t.Helper()
	ns, err := client.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "smoke-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	return ns.Name
}

func mustCreate(t *testing.T, create func() error) {
	t.Helper()
	if err := create(); err != nil {
		t.Fatal(err)
	}
}

func smokeStatefulSet(ns string, replicas int32) *appsv1.StatefulSet {
	podLabels := map[string]string{"app": "web"}
	spec := corev1.PodSpec{
		// kwok runs no containers, so the image is never pulled.
		Containers: []corev1.Container{{Name: "web", Image: "registry.invalid/web:1"}},
	}
	framework.PlaceOnFakeNode(&spec)
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    &replicas,
			ServiceName: "web",
			Selector:    &metav1.LabelSelector{MatchLabels: podLabels},
			Template:    corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: podLabels}, Spec: spec},
		},
	}
}

// waitForPods polls until exactly the named Pods exist, each Running, Ready, bound to a fake
// Node and given an IP, with none terminating.
func waitForPods(t *testing.T, client kubernetes.Interface, ns, selector string, want []string) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, smokeTimeout, true, func(ctx context.Context) (bool, error) {
		pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			if ctx.Err() == nil { // keep what was seen before the deadline
				last = err.Error()
			}
			return false, nil
		}
		var names []string
		for _, pod := range pods.Items {
			names = append(names, pod.Name)
			if problem := podProblem(&pod); problem != "" {
				last = pod.Name + ": " + problem
				return false, nil
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, want) {
			last = fmt.Sprintf("pods %v", names)
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("waiting for pods %v: %v (last seen: %s)", want, err, last)
	}
}

func podProblem(pod *corev1.Pod) string {
	switch {
	case pod.DeletionTimestamp != nil:
		return "terminating"
	case !slices.Contains(framework.FakeNodeNames(framework.DefaultFakeNodes), pod.Spec.NodeName):
		return fmt.Sprintf("on node %q", pod.Spec.NodeName)
	case pod.Status.Phase != corev1.PodRunning:
		return "phase " + string(pod.Status.Phase)
	case pod.Status.PodIP == "":
		return "no pod IP"
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return ""
		}
	}
	return "not Ready"
}

// deletionLog records the names of deleted Pods in the order the apiserver reports them.
type deletionLog struct {
	mu    sync.Mutex
	names []string
}

// waitFor waits until the watch has reported the deletion of every named Pod (the list that showed
// them gone may be ahead of the watch) and returns them in deletion order.
func (d *deletionLog) waitFor(t *testing.T, names ...string) []string {
	t.Helper()
	var got []string
	err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, smokeTimeout, true, func(context.Context) (bool, error) {
		got = d.firstOf(names...)
		return len(got) == len(names), nil
	})
	if err != nil {
		t.Fatalf("watch reported deletions %v, waiting for %v: %v", got, names, err)
	}
	return got
}

func (d *deletionLog) firstOf(names ...string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var got []string
	for _, n := range d.names {
		if slices.Contains(names, n) && !slices.Contains(got, n) {
			got = append(got, n)
		}
	}
	return got
}

func recordDeletions(t *testing.T, client kubernetes.Interface, ns, selector, resourceVersion string) *deletionLog {
	t.Helper()
	w, err := client.CoreV1().Pods(ns).Watch(t.Context(), metav1.ListOptions{LabelSelector: selector, ResourceVersion: resourceVersion})
	if err != nil {
		t.Fatalf("watch pods: %v", err)
	}
	log := &deletionLog{}
	onDeleted(t, w, func(pod metav1.Object) {
		log.mu.Lock()
		log.names = append(log.names, pod.GetName())
		log.mu.Unlock()
	})
	return log
}

// onDeleted calls each, in order, for every object w reports deleted, until the test ends.
func onDeleted(t *testing.T, w watch.Interface, each func(metav1.Object)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			if obj, err := meta.Accessor(ev.Object); err == nil && ev.Type == watch.Deleted {
				each(obj)
			}
		}
	}()
	t.Cleanup(func() {
		w.Stop()
		<-done
	})
}
