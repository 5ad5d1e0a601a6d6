//go:build e2e

package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller"
)

// createAt creates a 3-broker cluster whose image names Redpanda version tag, so that the
// simulated brokers run it (brokersim takes a pod's version from its image tag), and waits until
// it has converged.
func createAt(t *testing.T, ns, name, tag string) []int {
	t.Helper()
	bc := env.BrokerCluster(ns, name, 3)
	bc.Spec.Image = "registry.invalid/broker:" + tag
	env.Sim.Cluster(ns, name).SetDrainTime(time.Second)
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Create(t.Context(), bc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.AwaitConverged(t, ns, name, 3)
	return env.NodeIDs(t, ns, name, 3)
}

// A broker whose own pre-restart probe reports an acks=1 risk waits, with a condition naming the
// partition, while the other brokers roll; once its probe is clean it restarts too.
func TestABrokerWhoseRestartRisksDataWaitsWhileTheOthersRoll(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "risk"
	createAt(t, ns, name, "v25.1.2")
	sim := env.Sim.Cluster(ns, name)
	sim.SetRestartRisks(2, admin.RestartRisks{Acks1DataLoss: []string{"kafka/orders/3"}})
	setImage(t, ns, name, "registry.invalid/broker:v25.1.3")
	awaitStatus(t, ns, name, "the others rolled, broker 2 held with its partition named", func(bc *v1alpha1.BrokerCluster) bool {
		d := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionDegraded)
		return bc.Status.UpdatedReplicas == 2 && bc.Status.Restart == nil && d != nil &&
			d.Reason == controller.ReasonClusterUnhealthy && strings.Contains(d.Message, "kafka/orders/3")
	})
	pod, err := env.Kube.CoreV1().Pods(ns).Get(t.Context(), name+"-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if img := pod.Spec.Containers[0].Image; img != "registry.invalid/broker:v25.1.2" {
		t.Fatalf("pod %s-2 runs %s: the broker at risk was restarted", name, img)
	}
	sim.SetRestartRisks(2, admin.RestartRisks{})
	awaitImageRolledOut(t, ns, name, 3, "registry.invalid/broker:v25.1.3")
	if o := maintenanceOverlaps(ns, name); len(o) > 0 {
		t.Errorf("two brokers in maintenance at once: %v", o)
	}
	checkBrokersSafe(t, ns, name)
}

// A restarted broker that takes a while to reclaim its load holds back the next restart until
// its own post_restart_probe says it has.
func TestTheNextRestartWaitsForASlowRecovery(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "recovery"
	createAt(t, ns, name, "v25.1.2")
	const recovery = 4 * time.Second
	env.Sim.Cluster(ns, name).SetRecoveryTime(recovery)
	setImage(t, ns, name, "registry.invalid/broker:v25.1.3")
	awaitImageRolledOut(t, ns, name, 3, "registry.invalid/broker:v25.1.3")
	ons := maintenanceOns(ns, name)
	if len(ons) != 3 {
		t.Fatalf("%d brokers went into maintenance, want 3", len(ons))
	}
	for i := 1; i < len(ons); i++ {
		if gap := ons[i].At.Sub(ons[i-1].At); gap < recovery {
			t.Errorf("restart %d began %s after the one before, sooner than the %s the broker before took to recover", i, gap, recovery)
		}
	}
	checkBrokersSafe(t, ns, name)
}

// The controller leader restarts last.
func TestTheControllerLeaderRestartsLast(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "leader-last"
	ids := createAt(t, ns, name, "v25.1.2")
	env.Sim.Cluster(ns, name).SetControllerLeader(2)
	setImage(t, ns, name, "registry.invalid/broker:v25.1.3")
	awaitImageRolledOut(t, ns, name, 3, "registry.invalid/broker:v25.1.3")
	var order []int
	for _, c := range maintenanceOns(ns, name) {
		order = append(order, c.NodeID)
	}
	if want := []int{ids[1], ids[0], ids[2]}; !slices.Equal(order, want) {
		t.Errorf("brokers restarted in the order %v, want %v: the controller leader (ordinal 2) last", order, want)
	}
	checkBrokersSafe(t, ns, name)
}

// maintenanceOns are the maintenance-on calls the cluster's brokers accepted, in order.
func maintenanceOns(ns, name string) []admintest.Call {
	var out []admintest.Call
	for _, c := range env.Sim.Cluster(ns, name).Calls() {
		if c.Method == "PUT" && c.Status == 200 && c.Path == fmt.Sprintf("/v1/brokers/%d/maintenance", c.NodeID) {
			out = append(out, c)
		}
	}
	return out
}
