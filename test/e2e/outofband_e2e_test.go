//go:build e2e

package e2e

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// A restart's pod deleted by someone else while its broker's leadership moves away (kubectl
// delete pod, a drain with no webhook): the rollout goes on with the pod that replaced it and
// finishes, that broker's maintenance mode on throughout, until it is back.
func TestARestartWhosePodSomeoneElseDeletedFinishes(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "out-of-band"
	createAt(t, ns, name, "v25.1.2")
	sim := env.Sim.Cluster(ns, name)
	sim.SetMaintenanceDrainTime(time.Hour) // the first broker's leadership never finishes moving
	setImage(t, ns, name, "registry.invalid/broker:v25.1.3")
	bc := awaitStatus(t, ns, name, "a broker draining for its restart", func(bc *v1alpha1.BrokerCluster) bool {
		return bc.Status.Restart != nil && bc.Status.Restart.Step == v1alpha1.RestartDraining && len(maintenanceOns(ns, name)) == 1
	})
	r := *bc.Status.Restart
	uid := types.UID(r.PodUID)
	if err := env.Kube.CoreV1().Pods(ns).Delete(t.Context(), r.Pod, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}); err != nil {
		t.Fatalf("delete pod %s as someone else: %v", r.Pod, err)
	}
	sim.SetMaintenanceDrainTime(0)
	awaitImageRolledOut(t, ns, name, 3, "registry.invalid/broker:v25.1.3")

	var calls []string
	for _, c := range sim.Calls() {
		if c.NodeID == int(r.NodeID) && c.Status == 200 && c.Path == fmt.Sprintf("/v1/brokers/%d/maintenance", c.NodeID) {
			calls = append(calls, c.Method)
		}
	}
	if len(calls) != 2 || calls[0] != "PUT" || calls[1] != "DELETE" {
		t.Errorf("broker %d's maintenance calls %v: want it on once and off once, after it was back", r.NodeID, calls)
	}
	if o := maintenanceOverlaps(ns, name); len(o) > 0 {
		t.Errorf("two brokers in maintenance at once: %v", o)
	}
	if left := maintenanceLeftOn(ns, name); len(left) > 0 {
		t.Errorf("brokers left in maintenance mode: %v", left)
	}
	checkBrokersSafe(t, ns, name)
}
