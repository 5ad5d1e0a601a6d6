//go:build e2e

package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// The day-two features of a cluster with pools (docs/pools.md): a rollout of one pool's fields,
// a pool's volumes growing alone, a move that waits for its maintenance window, and a paused
// cluster with a move pending.

// patchSpec applies a merge patch of the spec, as kubectl patch --type=merge does.
func patchSpec(t *testing.T, ns, name string, spec map[string]any) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"spec": spec})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Patch(t.Context(), name, types.MergePatchType, body, metav1.PatchOptions{}); err != nil {
		t.Fatalf("patch %s/%s: %v", ns, name, err)
	}
}

// changedPods names the pods whose UID differs from before, or that are new.
func changedPods(t *testing.T, ns, name string, before map[string]types.UID) []string {
	t.Helper()
	var out []string
	for pod, uid := range podUIDs(t, ns, name) {
		if before[pod] != uid {
			out = append(out, pod)
		}
	}
	slices.Sort(out)
	return out
}

// A change of one pool's pod annotations restarts that pool's brokers alone, one at a time; the
// default pool's pods stay as they were.
func TestAPoolsChangeRestartsOnlyItsBrokers(t *testing.T) {
	t.Parallel()
	const name = "pool-rollout"
	ns, _ := startPoolCluster(t, name, time.Second)
	movePatch(t, ns, name, 3, landingPool("blue", 2))
	awaitMoved(t, ns, name, map[string]int32{v1alpha1.DefaultPoolName: 3, "blue": 2})
	before := podUIDs(t, ns, name)
	blue := landingPool("blue", 2)
	blue.PodAnnotations = map[string]string{"example.com/rolled": "1"}
	movePatch(t, ns, name, 3, blue)
	awaitStatus(t, ns, name, "blue's brokers restarted", func(bc *v1alpha1.BrokerCluster) bool {
		if bc.Status.ObservedGeneration != bc.Generation || bc.Status.Restart != nil {
			return false
		}
		for _, p := range bc.Status.Pools {
			if p.Name == "blue" && (p.UpdatedReplicas != 2 || p.ReadyReplicas != 2) {
				return false
			}
		}
		return len(changedPods(t, ns, name, before)) == 2
	})
	if got, want := changedPods(t, ns, name, before), []string{name + "-blue-0", name + "-blue-1"}; !slices.Equal(got, want) {
		t.Errorf("restarted %v, want blue's pods alone %v", got, want)
	}
	if ons := maintenanceOns(ns, name); len(ons) != 2 {
		t.Errorf("maintenance on %d times (%v), want once for each of blue's brokers", len(ons), ons)
	}
	if o := maintenanceOverlaps(ns, name); len(o) > 0 {
		t.Errorf("two brokers in maintenance at once: %v", o)
	}
	checkBrokersSafe(t, ns, name)
}

// A pool's storage grows while the default pool's does not: blue's claims ask for the new size
// and get it, blue's StatefulSet is made again with the grown claim template, and no pod
// restarts.
func TestAPoolsStorageGrowsAlone(t *testing.T) {
	t.Parallel()
	const name, class = "pool-storage", "pool-expandable"
	createStorageClass(t, class, true)
	ns := env.NewNamespace(t)
	env.Sim.Cluster(ns, name).Pool("blue")
	startOperator(t, ns, "a")
	createClusterInClass(t, ns, name, class, 2)
	env.AwaitConverged(t, ns, name, 2)
	blue := landingPool("blue", 2)
	blue.Storage.StorageClassName = ptr.To(class)
	movePatch(t, ns, name, 2, blue)
	awaitMoved(t, ns, name, map[string]int32{v1alpha1.DefaultPoolName: 2, "blue": 2})
	awaitClaimsBound(t, ns, name, 2)
	awaitClaimsBound(t, ns, name+"-blue", 2)
	startResizer(t, ns, name)
	before := podUIDs(t, ns, name)

	blue.Storage.Size = resource.MustParse("2Gi")
	movePatch(t, ns, name, 2, blue)
	awaitStatus(t, ns, name, "blue's volumes grown", func(bc *v1alpha1.BrokerCluster) bool {
		for _, p := range bc.Status.Pools {
			if p.Name != "blue" || p.Storage == nil || p.Storage.Size.String() != "2Gi" || len(p.Storage.Claims) != 2 {
				continue
			}
			return !slices.ContainsFunc(p.Storage.Claims, func(c v1alpha1.ClaimGrowth) bool { return c.State != v1alpha1.ClaimResized })
		}
		return false
	})
	if got := claimSizes(t, ns, name+"-blue", 2); got["datadir-"+name+"-blue-0"] != "2Gi/2Gi" || got["datadir-"+name+"-blue-1"] != "2Gi/2Gi" {
		t.Errorf("blue's claims %v, want 2Gi asked and had", got)
	}
	if got := claimSizes(t, ns, name, 2); got[claimOf(name, 0)] != "1Gi/1Gi" || got[claimOf(name, 1)] != "1Gi/1Gi" {
		t.Errorf("the default pool's claims %v, want them untouched at 1Gi", got)
	}
	awaitStatus(t, ns, name, "blue's claim template grown", func(*v1alpha1.BrokerCluster) bool {
		sts, err := env.Kube.AppsV1().StatefulSets(ns).Get(t.Context(), name+"-blue", metav1.GetOptions{})
		if err != nil || len(sts.Spec.VolumeClaimTemplates) == 0 {
			return false
		}
		size := sts.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests["storage"]
		return size.String() == "2Gi"
	})
	if got := changedPods(t, ns, name, before); len(got) > 0 {
		t.Errorf("pods %v restarted or made, want none", got)
	}
}

// A move outside every maintenance window grows the new pool and decommissions nothing, status
// naming the next window; once the windows are removed the move finishes, each old broker once.
func TestAMoveWaitsForItsWindow(t *testing.T) {
	t.Parallel()
	const name = "pool-window"
	ns, _ := startPoolCluster(t, name, time.Second)
	closed := time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Minute)
	setWindows(t, ns, name, []v1alpha1.MaintenanceWindow{{Start: closed.Format("15:04"), Duration: metav1.Duration{Duration: time.Hour}}})
	old := env.NodeIDs(t, ns, name, 3)
	movePatch(t, ns, name, 0, landingPool("blue", 3))
	awaitStatus(t, ns, name, "blue grown, the move waiting for its window", func(bc *v1alpha1.BrokerCluster) bool {
		return bc.Status.ObservedGeneration == bc.Generation && bc.Status.NextMaintenanceWindow != nil && activeIn(ns, name, "blue") == 3
	})
	awaitEventMessage(t, ns, name, "WaitForMaintenanceWindow", "Normal", "no maintenance window is open")
	if calls := adminCalls(ns, name, "decommission"); len(calls) > 0 {
		t.Fatalf("decommissioned %v outside every window", calls)
	}
	setWindows(t, ns, name, nil)
	awaitMoved(t, ns, name, map[string]int32{v1alpha1.DefaultPoolName: 0, "blue": 3})
	checkEachOnce(t, ns, name, old)
	checkBrokersSafe(t, ns, name)
}

// A paused cluster with a move pending moves nothing: blue's StatefulSet is not made and no
// broker is decommissioned, and the preview names the default pool's pods the move will remove,
// highest ordinal first; resumed, it moves.
func TestAPausedClusterWithAMovePendingMovesNothing(t *testing.T) {
	t.Parallel()
	const name = "pool-paused"
	ns, _ := startPoolCluster(t, name, time.Second)
	setPaused(t, ns, name, `"true"`)
	movePatch(t, ns, name, 0, landingPool("blue", 3))
	bc := awaitStatus(t, ns, name, "the preview of the move", func(bc *v1alpha1.BrokerCluster) bool {
		p := bc.Status.DisruptionPreview
		return p != nil && p.ObservedGeneration == bc.Generation && len(p.Disruptions) == 3
	})
	var pods []string
	for _, d := range bc.Status.DisruptionPreview.Disruptions {
		if d.Action != v1alpha1.DisruptionDecommission || !strings.HasPrefix(d.Reason, "pool default: ") {
			t.Errorf("planned %s %s: %s, want the default pool's decommissions", d.Action, d.Pod, d.Reason)
		}
		pods = append(pods, d.Pod)
	}
	if want := []string{name + "-2", name + "-1", name + "-0"}; !slices.Equal(pods, want) {
		t.Errorf("preview names %v, want %v", pods, want)
	}
	if _, err := env.Kube.AppsV1().StatefulSets(ns).Get(t.Context(), name+"-blue", metav1.GetOptions{}); err == nil {
		t.Error("a paused cluster made blue's StatefulSet")
	}
	if calls := adminCalls(ns, name, "decommission"); len(calls) > 0 {
		t.Errorf("a paused cluster decommissioned %v", calls)
	}
	setPaused(t, ns, name, "null")
	awaitMoved(t, ns, name, map[string]int32{v1alpha1.DefaultPoolName: 0, "blue": 3})
	checkBrokersSafe(t, ns, name)
}
