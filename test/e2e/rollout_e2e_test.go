//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller"
	"github.com/broker-operator/broker-operator/test/brokersim"
)

// TestImageChangeRollsOneBrokerAtATime changes the image of 3 brokers: each is restarted once,
// highest ordinal first, and never two are in maintenance mode or away at once, as the
// simulator's call log and the pods' watch events show.
func TestImageChangeRollsOneBrokerAtATime(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "rollout"
	env.CreateCluster(t, ns, name, 3, time.Second)
	env.AwaitConverged(t, ns, name, 3)
	ids := env.NodeIDs(t, ns, name, 3)
	pods := recordPods(t, ns, name)
	// The controller leader restarts last; on ordinal 0 it leaves the order highest first.
	env.Sim.Cluster(ns, name).SetControllerLeader(0)

	setImage(t, ns, name, "registry.invalid/broker:2")
	row := awaitTableRow(t, ns, name, func(r map[string]any) bool { return r["Restarting"] != nil })
	if got := fmt.Sprint(row["Step"]); got != string(v1alpha1.RestartDraining) && got != string(v1alpha1.RestartRestarting) {
		t.Errorf("Step column shows %q during the rollout", got)
	}
	awaitImageRolledOut(t, ns, name, 3, "registry.invalid/broker:2")

	checkRolledOneAtATime(t, ns, name, ids, pods)
	final := tableRow(t, ns, name)
	for column, want := range map[string]string{"Updated": "3", "Restarting": "<nil>", "Step": "<nil>"} {
		if got := fmt.Sprint(final[column]); got != want {
			t.Errorf("printer column %s shows %s after the rollout, want %s", column, got, want)
		}
	}
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}

// TestOperatorKilledMidRolloutResumes kills the operator while a broker is being restarted; the
// next one picks the restart up from status and finishes the rollout, restarting each broker
// exactly once and never two at a time.
func TestOperatorKilledMidRolloutResumes(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	first := startOperator(t, ns, "first")
	const name = "resume"
	env.CreateCluster(t, ns, name, 3, time.Second)
	env.AwaitConverged(t, ns, name, 3)
	pods := recordPods(t, ns, name)
	env.Sim.Cluster(ns, name).SetControllerLeader(0) // restarted last, so the order stays highest first

	setImage(t, ns, name, "registry.invalid/broker:2")
	awaitStatus(t, ns, name, "a restart under way", func(bc *v1alpha1.BrokerCluster) bool { return bc.Status.Restart != nil })
	first.kill(t)
	startOperator(t, ns, "second")
	awaitImageRolledOut(t, ns, name, 3, "registry.invalid/broker:2")

	if o := maintenanceOverlaps(ns, name); len(o) > 0 {
		t.Errorf("two brokers in maintenance at once: %v", o)
	}
	checkPodsRolledHighestFirst(t, name, 3, pods)
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}

// TestScaleDownWithADownBrokerWaits scales down while a broker is down: nothing is
// decommissioned, and Degraded says which broker is down. Once it is back, the scale-down goes on.
func TestScaleDownWithADownBrokerWaits(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "gate"
	env.CreateCluster(t, ns, name, 3, time.Second)
	env.AwaitConverged(t, ns, name, 3)
	ids := env.NodeIDs(t, ns, name, 3)
	env.Sim.Cluster(ns, name).Down(0)

	env.Scale(t, ns, name, 2)
	bc := awaitStatus(t, ns, name, "Degraded ClusterUnhealthy", func(bc *v1alpha1.BrokerCluster) bool {
		c := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionDegraded)
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == controller.ReasonClusterUnhealthy
	})
	if c := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionDegraded); !strings.Contains(c.Message, fmt.Sprintf("brokers down: [%d]", ids[0])) {
		t.Errorf("Degraded says %q, want it to name broker %d", c.Message, ids[0])
	}
	if got := adminCalls(ns, name, "decommission"); len(got) > 0 || bc.Status.DecommissioningBroker != nil {
		t.Fatalf("decommissioned %v while broker %d was down", got, ids[0])
	}
	env.Sim.Cluster(ns, name).Join(0)
	env.AwaitConverged(t, ns, name, 2)
	if got := adminCalls(ns, name, "decommission"); !slices.Equal(got, []int{ids[2]}) {
		t.Errorf("decommission calls %v, want [%d]", got, ids[2])
	}
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}

// TestScaleDownThenUpStartsAFreshBroker scales 3 → 2 → 3: the decommissioned broker's volume
// claim is deleted once its pod is gone, and the new pod gets a fresh claim and a fresh broker
// that joins.
func TestScaleDownThenUpStartsAFreshBroker(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "volumes"
	env.CreateCluster(t, ns, name, 3, time.Second)
	env.AwaitConverged(t, ns, name, 3)
	old := env.NodeIDs(t, ns, name, 3)
	claim := "datadir-" + name + "-2"
	before, err := env.Kube.CoreV1().PersistentVolumeClaims(ns).Get(t.Context(), claim, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	env.Scale(t, ns, name, 2)
	env.AwaitConverged(t, ns, name, 2)
	err = wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, convergeLimit, true, func(ctx context.Context) (bool, error) {
		c, err := env.Kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, claim, metav1.GetOptions{})
		return apierrors.IsNotFound(err) || (err == nil && (c.UID != before.UID || c.DeletionTimestamp != nil)), nil
	})
	if err != nil {
		t.Fatalf("claim %s of the decommissioned broker was not deleted: %v", claim, err)
	}

	env.Scale(t, ns, name, 3)
	env.AwaitConverged(t, ns, name, 3)
	after, err := env.Kube.CoreV1().PersistentVolumeClaims(ns).Get(t.Context(), claim, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.UID == before.UID {
		t.Errorf("claim %s was reused", claim)
	}
	now := env.NodeIDs(t, ns, name, 3)
	if now[2] == old[2] {
		t.Errorf("ordinal 2 runs broker %d again; want a fresh broker", now[2])
	}
	if env.BrokerStatus(ns, name, now[2]) != "active" {
		t.Errorf("the fresh broker %d is %q, want active", now[2], env.BrokerStatus(ns, name, now[2]))
	}
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}

// TestGhostBrokerIsReported adds a broker that no pod runs and that is not alive: the next
// reconcile that asks the admin API reports it in status, a condition and an event, and does not
// decommission it.
func TestGhostBrokerIsReported(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "ghosts"
	env.CreateCluster(t, ns, name, 2, time.Second)
	env.AwaitConverged(t, ns, name, 2)
	ghost := env.Sim.Cluster(ns, name).Join(9)
	env.Sim.Cluster(ns, name).Down(9)

	env.Scale(t, ns, name, 3) // a new pod: the operator asks the admin API
	bc := awaitStatus(t, ns, name, "ghost broker reported", func(bc *v1alpha1.BrokerCluster) bool {
		return slices.Equal(bc.Status.GhostBrokers, []int32{int32(ghost)})
	})
	if !meta.IsStatusConditionTrue(bc.Status.Conditions, v1alpha1.ConditionGhostBrokers) {
		t.Errorf("GhostBrokers condition %v", meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionGhostBrokers))
	}
	awaitEventWhere(t, ns, "GhostBrokers event", func(e corev1.Event) bool {
		return e.Reason == "GhostBrokers" && e.Type == corev1.EventTypeWarning && strings.Contains(e.Message, fmt.Sprint(ghost))
	})
	if got := adminCalls(ns, name, "decommission"); len(got) > 0 {
		t.Errorf("decommissioned %v by default", got)
	}
	checkNoForbidden(t)
}

// setImage changes spec.image as a user would.
func setImage(t *testing.T, ns, name, image string) {
	t.Helper()
	patch := fmt.Appendf(nil, `{"spec":{"image":%q}}`, image)
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// awaitStatus polls the BrokerCluster until ok accepts it.
func awaitStatus(t *testing.T, ns, name, what string, ok func(*v1alpha1.BrokerCluster) bool) *v1alpha1.BrokerCluster {
	t.Helper()
	var bc *v1alpha1.BrokerCluster
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, convergeLimit, true, func(ctx context.Context) (bool, error) {
		var err error
		bc, err = env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Get(ctx, name, metav1.GetOptions{})
		return err == nil && ok(bc), nil
	})
	if err != nil {
		t.Fatalf("waiting for %s on %s/%s (last status %+v): %v", what, ns, name, bc, err)
	}
	return bc
}

// awaitImageRolledOut waits until every pod runs image, status shows them all updated with no
// restart under way, and the cluster is converged.
func awaitImageRolledOut(t *testing.T, ns, name string, replicas int32, image string) {
	t.Helper()
	awaitStatus(t, ns, name, "the rollout to finish", func(bc *v1alpha1.BrokerCluster) bool {
		if bc.Status.Restart != nil || bc.Status.UpdatedReplicas != replicas || bc.Status.ObservedGeneration != bc.Generation {
			return false
		}
		pods, err := env.Kube.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: controller.LabelInstance + "=" + name})
		if err != nil || len(pods.Items) != int(replicas) {
			return false
		}
		for _, p := range pods.Items {
			if p.Spec.Containers[0].Image != image || !brokersim.PodReady(&p) {
				return false
			}
		}
		return true
	})
	env.AwaitConverged(t, ns, name, replicas)
}

// maintenanceCalls lists the accepted maintenance calls of a cluster as "on ID" or "off ID".
func maintenanceCalls(ns, name string) []string {
	var out []string
	for _, c := range env.Sim.Cluster(ns, name).Calls() {
		if !strings.HasSuffix(c.Path, "/maintenance") || c.Status != http.StatusOK {
			continue
		}
		switch c.Method {
		case http.MethodPut:
			out = append(out, fmt.Sprintf("on %d", c.NodeID))
		case http.MethodDelete:
			out = append(out, fmt.Sprintf("off %d", c.NodeID))
		}
	}
	return out
}

// maintenanceOverlaps replays the maintenance calls and names each time a broker went into
// maintenance while another was, and each maintenance call the simulator refused (not one an
// injected fault answered).
func maintenanceOverlaps(ns, name string) []string {
	var out []string
	on := map[int]bool{}
	for _, c := range env.Sim.Cluster(ns, name).Calls() {
		if !strings.HasSuffix(c.Path, "/maintenance") || c.Method == http.MethodGet || c.Status == 0 {
			continue
		}
		if c.Status != http.StatusOK {
			if c.Fault == "" { // the broker's own refusal; an injected fault says nothing
				out = append(out, "refused: "+c.String())
			}
			continue
		}
		if c.Method == http.MethodDelete {
			delete(on, c.NodeID)
			continue
		}
		for other := range on {
			if other != c.NodeID {
				out = append(out, fmt.Sprintf("broker %d into maintenance while %d was", c.NodeID, other))
			}
		}
		on[c.NodeID] = true
	}
	return out
}

// podLog records a cluster's pods as their watch events arrive: deletions in order, and the
// most pods that were missing or not ready at one time.
type podLog struct {
	mu      sync.Mutex
	pods    map[string]*corev1.Pod
	gone    map[types.UID]bool // pods seen deleted, by UID: one pod is one deletion
	deletes []string
	away    int
	want    int
}

func recordPods(t *testing.T, ns, name string) *podLog {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	client := env.Kube.CoreV1().Pods(ns)
	selector := controller.LabelInstance + "=" + name
	initial, err := client.List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	l := &podLog{pods: map[string]*corev1.Pod{}, gone: map[types.UID]bool{}, want: len(initial.Items)}
	for i := range initial.Items {
		l.pods[initial.Items[i].Name] = &initial.Items[i]
	}
	open := func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		o.LabelSelector = selector
		return client.Watch(ctx, o)
	}
	watchFrom(t, ctx, cancel, initial.ResourceVersion, open, func(ev watch.Event) {
		if p, ok := ev.Object.(*corev1.Pod); ok {
			l.add(ev.Type, p)
		}
	})
	return l
}

func (l *podLog) add(typ watch.EventType, p *corev1.Pod) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if typ == watch.Deleted {
		delete(l.pods, p.Name)
	} else {
		l.pods[p.Name] = p
	}
	if (typ == watch.Deleted || p.DeletionTimestamp != nil) && !l.gone[p.UID] {
		l.gone[p.UID] = true
		l.deletes = append(l.deletes, p.Name)
	}
	ready := 0
	for _, q := range l.pods {
		if q.DeletionTimestamp == nil && brokersim.PodReady(q) {
			ready++
		}
	}
	l.away = max(l.away, l.want-ready)
}

func (l *podLog) deleted() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.deletes)
}

func (l *podLog) maxAway() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.away
}
