//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller"
)

// TestRolloutWaitsForABrokerThatWentDownBeforeMaintenance restarts 3 brokers. After the
// rollout's first health check found the cluster healthy and recorded the restart of the
// highest ordinal's broker, its maintenance-on calls fail (503) until another broker has gone
// down. The retry reads the facts afresh: it does not turn maintenance on or delete the pod
// while that broker is down, and says so in Degraded. Once the broker is back, the rollout
// finishes, one broker at a time.
func TestRolloutWaitsForABrokerThatWentDownBeforeMaintenance(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "freshfacts"
	env.CreateCluster(t, ns, name, 3, time.Second)
	env.AwaitConverged(t, ns, name, 3)
	ids := env.NodeIDs(t, ns, name, 3)
	pods := recordPods(t, ns, name)
	sim := env.Sim.Cluster(ns, name)
	// Every PUT fails until the broker is down, so the first maintenance call that could
	// succeed comes after it went down.
	sim.SetFault(admintest.Fault{Status: http.StatusServiceUnavailable, Method: http.MethodPut})
	sim.SetControllerLeader(0) // the controller leader restarts last: ordinal 2 restarts first

	setImage(t, ns, name, "registry.invalid/broker:2")
	awaitFailedMaintenanceCall(t, ns, name, ids[2])
	if !healthCheckedBefore(ns, name) {
		t.Fatal("the restart's maintenance call came without a health check before it")
	}
	sim.Down(1)
	// A retry whose facts were read just before the broker went down could send its call just
	// after; the fault refuses it. It goes only once a health check has been served since: every
	// call the operator makes for this cluster after that follows facts that show the broker down.
	awaitHealthCheckSince(t, ns, name, len(sim.Calls()))
	sim.SetFault(admintest.Fault{})

	bc := awaitStatus(t, ns, name, "Degraded ClusterUnhealthy naming the down broker", func(bc *v1alpha1.BrokerCluster) bool {
		c := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionDegraded)
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == controller.ReasonClusterUnhealthy &&
			strings.Contains(c.Message, fmt.Sprint(ids[1]))
	})
	if r := bc.Status.Restart; r == nil || r.NodeID != int32(ids[2]) {
		t.Errorf("restart %+v while waiting, want broker %d's still recorded", r, ids[2])
	}
	if got := maintenanceCalls(ns, name); len(got) > 0 {
		t.Errorf("maintenance calls %v while broker %d was down, want none", got, ids[1])
	}
	if d := pods.deleted(); len(d) > 0 {
		t.Errorf("pods %v deleted while broker %d was down", d, ids[1])
	}

	sim.Join(1)
	awaitImageRolledOut(t, ns, name, 3, "registry.invalid/broker:2")
	want := []string{
		fmt.Sprintf("on %d", ids[2]), fmt.Sprintf("off %d", ids[2]),
		fmt.Sprintf("on %d", ids[1]), fmt.Sprintf("off %d", ids[1]),
		fmt.Sprintf("on %d", ids[0]), fmt.Sprintf("off %d", ids[0]),
	}
	if got := maintenanceCalls(ns, name); !slices.Equal(got, want) {
		t.Errorf("maintenance calls %v, want %v", got, want)
	}
	if o := maintenanceOverlaps(ns, name); len(o) > 0 {
		t.Errorf("two brokers in maintenance at once: %v", o)
	}
	if n := pods.maxAway(); n > 1 {
		t.Errorf("%d broker pods were away or not ready at once, want at most 1", n)
	}
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}

// awaitFailedMaintenanceCall waits until the simulator has refused a maintenance-on call for
// broker id.
func awaitFailedMaintenanceCall(t *testing.T, ns, name string, id int) {
	t.Helper()
	path := fmt.Sprintf("/v1/brokers/%d/maintenance", id)
	err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return slices.ContainsFunc(env.Sim.Cluster(ns, name).Calls(), func(c admintest.Call) bool {
			return c.Method == http.MethodPut && c.Path == path && c.Status == http.StatusServiceUnavailable
		}), nil
	})
	if err != nil {
		t.Fatalf("no refused maintenance call for broker %d: %v", id, err)
	}
}

// awaitHealthCheckSince waits until the cluster's health_overview has been read in a call after
// the first mark calls.
func awaitHealthCheckSince(t *testing.T, ns, name string, mark int) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		calls := env.Sim.Cluster(ns, name).Calls()
		return len(calls) > mark && slices.ContainsFunc(calls[mark:], func(c admintest.Call) bool {
			return strings.HasSuffix(c.Path, "/v1/cluster/health_overview")
		}), nil
	})
	if err != nil {
		t.Fatalf("no health check after the broker went down: %v", err)
	}
}

// healthCheckedBefore reports whether a health_overview call came before the first
// maintenance call.
func healthCheckedBefore(ns, name string) bool {
	for _, c := range env.Sim.Cluster(ns, name).Calls() {
		switch {
		case strings.HasSuffix(c.Path, "/v1/cluster/health_overview"):
			return true
		case strings.HasSuffix(c.Path, "/maintenance"):
			return false
		}
	}
	return false
}
