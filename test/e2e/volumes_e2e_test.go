//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller"
	"github.com/broker-operator/broker-operator/test/brokersim"
)

// createStorageClass makes a StorageClass for one test, removed when it ends. Its provisioner
// is the simulator's volume binder, which binds each claim to a volume made in advance.
func createStorageClass(t *testing.T, name string, allowExpansion bool) {
	t.Helper()
	class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: brokersim.Provisioner, AllowVolumeExpansion: ptr.To(allowExpansion)}
	if _, err := env.Kube.StorageV1().StorageClasses().Create(t.Context(), class, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Kube.StorageV1().StorageClasses().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
}

// createClusterInClass creates a cluster of replicas brokers whose volumes are of class.
func createClusterInClass(t *testing.T, ns, name, class string, replicas int32) {
	t.Helper()
	env.Sim.Cluster(ns, name).SetDrainTime(time.Second)
	bc := env.BrokerCluster(ns, name, replicas)
	bc.Spec.Storage.StorageClassName = ptr.To(class)
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Create(t.Context(), bc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// awaitClaimsBound waits until the cluster's first n claims are Bound: kube-apiserver expands
// no other.
func awaitClaimsBound(t *testing.T, ns, name string, n int) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, convergeLimit, true, func(ctx context.Context) (bool, error) {
		for o := range n {
			c, err := env.Kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, claimOf(name, o), metav1.GetOptions{})
			if err != nil || c.Status.Phase != corev1.ClaimBound {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("claims of %s not bound: %v", name, err)
	}
}

func claimOf(name string, ordinal int) string { return fmt.Sprintf("datadir-%s-%d", name, ordinal) }

func setStorageSize(t *testing.T, ns, name, size string) {
	t.Helper()
	patch := fmt.Appendf(nil, `{"spec":{"storage":{"size":%q}}}`, size)
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// resizer plays the CSI external-resizer and the kubelet, which the local control plane does
// not run (kwok runs no volume plugins, and no CSI driver is installed): when a claim asks for
// more than its capacity, its capacity becomes what it asks for. For the ordinals in restart it
// first sets FileSystemResizePending, as a driver that grows file systems only when a volume is
// mounted does, and sets the capacity only once that broker's pod was made again (the new pod
// mounted the grown volume). It records the pods it saw restart for a claim.
type resizer struct {
	ns, name string
	restart  map[int]bool
	mu       sync.Mutex
	podUID   map[int]types.UID // the pod that waited, by ordinal
	restarts []int             // ordinals whose pod was made again while its claim waited
}

func startResizer(t *testing.T, ns, name string, restart ...int) *resizer {
	r := &resizer{ns: ns, name: name, restart: map[int]bool{}, podUID: map[int]types.UID{}}
	for _, o := range restart {
		r.restart[o] = true
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			// A Conflict is the controller-manager's write racing this one: the next pass retries.
			if err := r.pass(ctx); err != nil && ctx.Err() == nil && !apierrors.IsConflict(err) {
				t.Logf("resizer: %v", err)
			}
			return false, nil
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return r
}

// pass looks at every claim of the cluster once.
func (r *resizer) pass(ctx context.Context) error {
	claims := env.Kube.CoreV1().PersistentVolumeClaims(r.ns)
	list, err := claims.List(ctx, metav1.ListOptions{LabelSelector: controller.LabelInstance + "=" + r.name})
	if err != nil {
		return err
	}
	for i := range list.Items {
		c := &list.Items[i]
		want, have := c.Spec.Resources.Requests[corev1.ResourceStorage], c.Status.Capacity[corev1.ResourceStorage]
		if c.Status.Phase != corev1.ClaimBound || want.Cmp(have) <= 0 {
			continue
		}
		ordinal, _ := strconv.Atoi(c.Name[strings.LastIndex(c.Name, "-")+1:])
		grow := true
		if r.restart[ordinal] {
			if grow, err = r.fileSystemWaits(ctx, c, ordinal); err != nil {
				return err
			}
		}
		if grow {
			c.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: want}
			c.Status.Conditions = nil
			if _, err := claims.UpdateStatus(ctx, c, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
	}
	return nil
}

// fileSystemWaits sets FileSystemResizePending on claim c the first time, and reports whether
// the pod of its ordinal has been made again since, so that its capacity may grow.
func (r *resizer) fileSystemWaits(ctx context.Context, c *corev1.PersistentVolumeClaim, ordinal int) (bool, error) {
	pod, err := env.Kube.CoreV1().Pods(r.ns).Get(ctx, fmt.Sprintf("%s-%d", r.name, ordinal), metav1.GetOptions{})
	if err != nil {
		return false, nil // away while it restarts
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	uid, waiting := r.podUID[ordinal]
	if !waiting {
		c.Status.Conditions = []corev1.PersistentVolumeClaimCondition{{Type: corev1.PersistentVolumeClaimFileSystemResizePending,
			Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now(), Message: "Waiting for user to (re-)start a pod to finish file system resize of volume on node."}}
		if _, err := env.Kube.CoreV1().PersistentVolumeClaims(r.ns).UpdateStatus(ctx, c, metav1.UpdateOptions{}); err != nil {
			return false, err
		}
		r.podUID[ordinal] = pod.UID
		return false, nil
	}
	if pod.UID == uid || !brokersim.PodReady(pod) {
		return false, nil
	}
	if !slices.Contains(r.restarts, ordinal) {
		r.restarts = append(r.restarts, ordinal)
	}
	return true, nil
}

func (r *resizer) restarted() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.restarts)
}

// claimSizes maps the cluster's first n claims to what they ask for and have.
func claimSizes(t *testing.T, ns, name string, n int) map[string]string {
	t.Helper()
	out := map[string]string{}
	for o := range n {
		c, err := env.Kube.CoreV1().PersistentVolumeClaims(ns).Get(t.Context(), claimOf(name, o), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want, have := c.Spec.Resources.Requests[corev1.ResourceStorage], c.Status.Capacity[corev1.ResourceStorage]
		out[c.Name] = want.String() + "/" + have.String()
	}
	return out
}

// bringUpOnClass makes a StorageClass, an operator and a cluster of three brokers whose claims
// use the class, and returns once they are bound: the pods' UIDs and the StatefulSet then.
func bringUpOnClass(t *testing.T, ns, name, class string, allowExpansion bool) (map[string]types.UID, *appsv1.StatefulSet) {
	t.Helper()
	createStorageClass(t, class, allowExpansion)
	startOperator(t, ns, "a")
	createClusterInClass(t, ns, name, class, 3)
	env.AwaitConverged(t, ns, name, 3)
	awaitClaimsBound(t, ns, name, 3)
	before := podUIDs(t, ns, name)
	sts, err := env.Kube.AppsV1().StatefulSets(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return before, sts
}

// TestStorageGrowthExpandsEveryClaim grows spec.storage.size of 3 brokers on a class that allows
// expansion: every claim is asked for the new size and reaches it; the two whose file systems
// wait for a restart have their pods restarted one at a time through the rollout, and no other
// pod restarts; the StatefulSet is made again with the new claim template without restarting
// a pod; and a scale-up afterwards gets the new size.
func TestStorageGrowthExpandsEveryClaim(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	const name = "grow"
	before, sts := bringUpOnClass(t, ns, name, ns+"-expandable", true)
	res := startResizer(t, ns, name, 1, 2)

	setStorageSize(t, ns, name, "2Gi")
	// The last claim reaches its size while its broker's restart is still finishing (out of
	// maintenance, its load back): wait for that restart too.
	bc := awaitStatus(t, ns, name, "StorageResized and no restart under way", func(bc *v1alpha1.BrokerCluster) bool {
		return meta.IsStatusConditionTrue(bc.Status.Conditions, v1alpha1.ConditionStorageResized) &&
			bc.Status.Restart == nil && !meta.IsStatusConditionTrue(bc.Status.Conditions, v1alpha1.ConditionRestarting)
	})
	for claim, got := range claimSizes(t, ns, name, 3) {
		if got != "2Gi/2Gi" {
			t.Errorf("claim %s asks for/has %s, want 2Gi/2Gi", claim, got)
		}
	}
	if st := bc.Status.Storage; st == nil || st.Size.String() != "2Gi" || len(st.Claims) != 3 {
		t.Errorf("status.storage = %+v", st)
	}
	after := podUIDs(t, ns, name)
	if after[name+"-0"] != before[name+"-0"] {
		t.Errorf("pod %s-0 restarted, but its claim needed no restart", name)
	}
	for _, o := range []int{1, 2} {
		if pod := fmt.Sprintf("%s-%d", name, o); after[pod] == before[pod] {
			t.Errorf("pod %s not restarted, but its claim waited for FileSystemResizePending", pod)
		}
	}
	if got := res.restarted(); len(got) != 2 {
		t.Errorf("the resizer saw pods %v restart, want 1 and 2", got)
	}
	if o := maintenanceOverlaps(ns, name); len(o) > 0 {
		t.Errorf("two brokers in maintenance at once: %v", o)
	}
	if n := len(maintenanceCalls(ns, name)); n != 4 {
		t.Errorf("maintenance calls %v, want on and off for two brokers", maintenanceCalls(ns, name))
	}
	remade, err := env.Kube.AppsV1().StatefulSets(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if remade.UID == sts.UID {
		t.Errorf("the StatefulSet was not made again")
	}
	if got := remade.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests[corev1.ResourceStorage]; got.Cmp(resource.MustParse("2Gi")) != 0 {
		t.Errorf("claim template asks for %s, want 2Gi", got.String())
	}
	awaitEventMessage(t, ns, name, "RemakeStatefulSet", corev1.EventTypeNormal, "no pod restarts")
	awaitEventMessage(t, ns, name, "RequestResizeRestart", corev1.EventTypeNormal, claimOf(name, 1))

	env.Scale(t, ns, name, 4)
	env.AwaitConverged(t, ns, name, 4)
	awaitClaimsBound(t, ns, name, 4)
	if got := claimSizes(t, ns, name, 4)[claimOf(name, 3)]; !strings.HasPrefix(got, "2Gi/") {
		t.Errorf("the new broker's claim asks for/has %s, want 2Gi", got)
	}
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}

// TestStorageGrowthOnAClassWithoutExpansionChangesNothing grows spec.storage.size on a class
// that does not allow expansion: StorageResized is False with StorageExpansionNotAllowed naming
// the class, one Warning event says so, and no claim, pod or StatefulSet changes.
func TestStorageGrowthOnAClassWithoutExpansionChangesNothing(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	const name = "fixed"
	class := ns + "-fixed"
	before, sts := bringUpOnClass(t, ns, name, class, false)

	setStorageSize(t, ns, name, "2Gi")
	bc := awaitStatus(t, ns, name, "StorageExpansionNotAllowed", func(bc *v1alpha1.BrokerCluster) bool {
		c := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionStorageResized)
		return c != nil && c.Reason == controller.ReasonStorageExpansionNotAllowed
	})
	if c := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionStorageResized); c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, class) {
		t.Errorf("StorageResized %+v, want False naming StorageClass %s", c, class)
	}
	awaitEventMessage(t, ns, name, "StorageExpansionNotAllowed", corev1.EventTypeWarning, class)
	// The reconcile that set the condition, and those after it, changed nothing.
	env.AwaitConverged(t, ns, name, 3)
	for claim, got := range claimSizes(t, ns, name, 3) {
		if got != "1Gi/1Gi" {
			t.Errorf("claim %s asks for/has %s, want it unchanged at 1Gi/1Gi", claim, got)
		}
	}
	now, err := env.Kube.AppsV1().StatefulSets(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if now.UID != sts.UID || now.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests.Storage().String() != "1Gi" {
		t.Errorf("the StatefulSet changed: uid %s (was %s), claim template %s", now.UID, sts.UID, now.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests.Storage())
	}
	if after := podUIDs(t, ns, name); !maps.Equal(after, before) {
		t.Errorf("pods changed: %v, were %v", after, before)
	}
	events, err := env.Kube.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	warnings := 0
	for _, e := range events.Items {
		if e.Reason == "StorageExpansionNotAllowed" && e.InvolvedObject.Name == name {
			warnings += int(max(e.Count, 1))
		}
	}
	if warnings != 1 {
		t.Errorf("%d StorageExpansionNotAllowed events, want 1", warnings)
	}
	checkNoForbidden(t)
}
