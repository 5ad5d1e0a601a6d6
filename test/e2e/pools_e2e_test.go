//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/test/framework"
)

// landingPool is a pool whose pods land on the fake Nodes, as env.BrokerCluster's do: a pool
// takes nothing from the default pool's fields.
func landingPool(name string, replicas int32) v1alpha1.BrokerPool {
	return v1alpha1.BrokerPool{
		Name: name, Replicas: replicas,
		Storage:      v1alpha1.StorageSpec{Size: resource.MustParse("1Gi")},
		Tolerations:  framework.FakeNodeTolerations(),
		NodeSelector: framework.FakeNodeSelector(),
	}
}

// movePatch moves every broker of a cluster to the pools given, in one merge patch, as the docs
// say to.
func movePatch(t *testing.T, ns, name string, replicas int32, pools ...v1alpha1.BrokerPool) {
	t.Helper()
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"replicas": replicas, "pools": pools}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("move %s/%s: %v", ns, name, err)
	}
}

// awaitMoved waits until the cluster's default pool has want brokers and each pool its own, with
// nothing decommissioning and the cluster Ready.
func awaitMoved(t *testing.T, ns, name string, want map[string]int32) *v1alpha1.BrokerCluster {
	t.Helper()
	var bc *v1alpha1.BrokerCluster
	last := ""
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		if bc, err = env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Get(ctx, name, metav1.GetOptions{}); err != nil {
			last = err.Error()
			return false, nil
		}
		got := map[string]int32{}
		for _, p := range bc.Status.Pools {
			got[p.Name] = p.Replicas
		}
		last = fmt.Sprintf("pools %v, decommissioning %v, conditions %v", got, bc.Status.DecommissioningBroker, bc.Status.Conditions)
		for pool, n := range want {
			if got[pool] != n {
				return false, nil
			}
		}
		return bc.Status.DecommissioningBroker == nil && bc.Status.ObservedGeneration == bc.Generation &&
			meta.IsStatusConditionTrue(bc.Status.Conditions, v1alpha1.ConditionReady), nil
	})
	if err != nil {
		t.Fatalf("%s/%s did not move: %s", ns, name, last)
	}
	return bc
}

// activeIn counts the simulator's active members of a pool ("" for the default pool).
func activeIn(ns, name, pool string) int {
	n := 0
	for _, b := range env.Sim.Cluster(ns, name).Brokers() {
		if b.Pool == pool && b.Status == admin.MembershipActive {
			n++
		}
	}
	return n
}

// startPoolCluster starts an operator in a new namespace and a cluster of three brokers that
// drain for drain, whose simulated brokers serve pool blue too: the pool is declared before the
// operator renders its address template.
func startPoolCluster(t *testing.T, name string, drain time.Duration) (string, *admintest.Cluster) {
	t.Helper()
	ns := env.NewNamespace(t)
	sim := env.Sim.Cluster(ns, name)
	sim.Pool("blue")
	startOperator(t, ns, "a")
	env.CreateCluster(t, ns, name, 3, drain)
	env.AwaitConverged(t, ns, name, 3)
	return ns, sim
}

// checkEachOnce fails the test unless the brokers decommissioned are exactly want, each once.
func checkEachOnce(t *testing.T, ns, name string, want []int) {
	t.Helper()
	got := adminCalls(ns, name, "decommission")
	slices.Sort(got)
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Errorf("decommission calls %v, want each of the old brokers %v once", got, want)
	}
}

// TestMoveToAPool moves three brokers to pool blue with one patch, as docs/pools.md says: blue's
// brokers join before the first decommission, each old broker is decommissioned once, the seeds
// name blue's brokers, and a cluster without pools in the same namespace is left untouched.
func TestMoveToAPool(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	const name, bystander = "move", "still"
	env.Sim.Cluster(ns, name).Pool("blue") // the address template names the pool's listeners
	startOperator(t, ns, "a")
	env.CreateCluster(t, ns, name, 3, time.Second)
	env.CreateCluster(t, ns, bystander, 3, time.Second)
	env.AwaitConverged(t, ns, name, 3)
	env.AwaitConverged(t, ns, bystander, 3)
	old := env.NodeIDs(t, ns, name, 3)
	untouched := podUIDs(t, ns, bystander)

	// Watch for the first decommission and count blue's active brokers at that moment.
	blueAtFirstDecommission := make(chan int, 1)
	go func() {
		_ = wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, 3*time.Minute, true, func(context.Context) (bool, error) {
			if len(adminCalls(ns, name, "decommission")) == 0 {
				return false, nil
			}
			blueAtFirstDecommission <- activeIn(ns, name, "blue")
			return true, nil
		})
	}()
	movePatch(t, ns, name, 0, landingPool("blue", 3))
	bc := awaitMoved(t, ns, name, map[string]int32{v1alpha1.DefaultPoolName: 0, "blue": 3})

	select {
	case n := <-blueAtFirstDecommission:
		if n != 3 {
			t.Errorf("the first decommission came while blue had %d active brokers, want 3", n)
		}
	case <-t.Context().Done():
	}
	checkEachOnce(t, ns, name, old)
	if n := activeIn(ns, name, "blue"); n != 3 {
		t.Errorf("blue has %d active brokers after the move, want 3", n)
	}
	checkBrokersSafe(t, ns, name)
	cm, err := env.Kube.CoreV1().ConfigMaps(ns).Get(t.Context(), name+"-seeds", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("seeds ConfigMap: %v", err)
	}
	if seeds := cm.Data["seed_servers"]; strings.Contains(seeds, name+"-0.") || !strings.Contains(seeds, name+"-blue-0.") {
		t.Errorf("seeds after the move %s: want blue's brokers, none of the old pool's", seeds)
	}
	if len(bc.Status.Pools) != 2 {
		t.Errorf("status.pools = %+v, want the default pool and blue", bc.Status.Pools)
	}
	// kubectl get bc -o wide shows each pool and its brokers.
	row := tableRow(t, ns, name)
	if pools := fmt.Sprint(row["Pools"]); pools != "default 0/0, blue 3/3" {
		t.Errorf("printer column Pools %q, want \"default 0/0, blue 3/3\"", pools)
	}
	if after := podUIDs(t, ns, bystander); !maps.Equal(after, untouched) {
		t.Errorf("the cluster without pools had its pods changed while another moved: %v, then %v", untouched, after)
	}
	checkNoForbidden(t)
}

// TestMoveWaitsForAnOldBrokerThatWentDown moves three brokers to blue. Once the first old
// broker has left, another old broker goes down while the next decommission's call is being
// refused (503): its retry reads the facts afresh and decommissions nothing while that broker is
// down, the cluster says why, and once it is back the move finishes, each broker once.
func TestMoveWaitsForAnOldBrokerThatWentDown(t *testing.T) {
	t.Parallel()
	const name = "movedown"
	ns, sim := startPoolCluster(t, name, time.Second)
	old := env.NodeIDs(t, ns, name, 3)

	movePatch(t, ns, name, 0, landingPool("blue", 3))
	env.AwaitDraining(t, ns, name)
	// From now on every PUT fails until the broker is down, so the next decommission's first
	// call that could succeed comes after it went down.
	sim.SetFault(admintest.Fault{Status: http.StatusServiceUnavailable, Method: http.MethodPut})
	awaitStatus(t, ns, name, "the first old broker gone", func(bc *v1alpha1.BrokerCluster) bool {
		return bc.Status.CurrentReplicas == 2
	})
	// Once its pod is gone too: PodSync tells the simulator again which pods run, and would
	// bring a broker marked down before that back.
	err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return slices.Equal(env.Pods.Running(ns, name), []int{0, 1}), nil
	})
	if err != nil {
		t.Fatalf("pod %s-2 still runs: %v", name, env.Pods.Running(ns, name))
	}
	sim.Down(0)
	awaitHealthCheckSince(t, ns, name, len(sim.Calls()))
	sim.SetFault(admintest.Fault{})
	calls := len(adminCalls(ns, name, "decommission"))
	awaitStatus(t, ns, name, "Degraded naming the down broker", func(bc *v1alpha1.BrokerCluster) bool {
		c := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionDegraded)
		return c != nil && c.Status == metav1.ConditionTrue && strings.Contains(c.Message, fmt.Sprint(old[0]))
	})
	// A decommission would follow a health check that found the cluster healthy: after three
	// more health checks, none has come.
	for range 3 {
		awaitHealthCheckSince(t, ns, name, len(sim.Calls()))
	}
	if now := len(adminCalls(ns, name, "decommission")); now != calls {
		t.Errorf("%d decommissions while broker %d was down", now-calls, old[0])
	}
	sim.Join(0)
	awaitMoved(t, ns, name, map[string]int32{v1alpha1.DefaultPoolName: 0, "blue": 3})
	checkEachOnce(t, ns, name, old)
	checkBrokersSafe(t, ns, name)
}

// TestChangeOfMindDuringAMove moves three brokers to blue and, while the first old broker
// drains, sets the default pool back to 3 and blue to 0: the draining broker is recommissioned,
// blue's brokers leave through decommission, and no old broker is decommissioned twice.
func TestChangeOfMindDuringAMove(t *testing.T) {
	t.Parallel()
	const name = "mind"
	ns, sim := startPoolCluster(t, name, time.Hour)

	movePatch(t, ns, name, 0, landingPool("blue", 3))
	draining := env.AwaitDraining(t, ns, name)
	movePatch(t, ns, name, 3, landingPool("blue", 0))
	// The simulator's drain time counts for drains under way too: made short before the
	// recommission, it would let the draining broker leave first.
	err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, convergeLimit, true, func(context.Context) (bool, error) {
		return len(adminCalls(ns, name, "recommission")) > 0, nil
	})
	if err != nil {
		t.Fatalf("broker %d was never recommissioned after the change of mind: %v", draining, err)
	}
	sim.SetDrainTime(time.Second) // blue's brokers drain quickly
	awaitMoved(t, ns, name, map[string]int32{v1alpha1.DefaultPoolName: 3, "blue": 0})

	if got := adminCalls(ns, name, "recommission"); !slices.Equal(got, []int{int(draining)}) {
		t.Errorf("recommission calls %v, want broker %d once", got, draining)
	}
	if n := activeIn(ns, name, "blue"); n != 0 {
		t.Errorf("blue has %d active brokers after the change of mind, want 0", n)
	}
	if n := activeIn(ns, name, ""); n != 3 {
		t.Errorf("the default pool has %d active brokers, want 3", n)
	}
	checkBrokersSafe(t, ns, name)
}
