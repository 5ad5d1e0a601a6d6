//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// setWindows replaces spec.maintenanceWindows.
func setWindows(t *testing.T, ns, name string, windows []v1alpha1.MaintenanceWindow) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"spec": map[string]any{"maintenanceWindows": windows}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Patch(t.Context(), name, types.MergePatchType, body, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// A rollout outside every window waits for the next one, with the opening in status and nothing
// called. A window that opens now lets the first broker restart; when it closes while that
// broker recovers, the broker finishes and the next waits for tomorrow's window. Without windows
// the rollout ends. The windows are computed from the real clock, in UTC.
func TestARolloutWaitsForItsWindowAndFinishesItsBrokerWhenItCloses(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "windows"
	ids := createAt(t, ns, name, "v25.1.2")

	// Every day from two hours ago, for an hour: closed now, open again tomorrow.
	now := time.Now().UTC()
	closed := now.Add(-2 * time.Hour).Truncate(time.Minute)
	setWindows(t, ns, name, []v1alpha1.MaintenanceWindow{{Start: closed.Format("15:04"), Duration: metav1.Duration{Duration: time.Hour}}})
	setImage(t, ns, name, "registry.invalid/broker:v25.1.3")
	bc := awaitStatus(t, ns, name, "status.nextMaintenanceWindow", func(bc *v1alpha1.BrokerCluster) bool {
		return bc.Status.ObservedGeneration == bc.Generation && bc.Status.NextMaintenanceWindow != nil
	})
	if want := closed.Add(24 * time.Hour); !bc.Status.NextMaintenanceWindow.Time.Equal(want) {
		t.Errorf("status.nextMaintenanceWindow = %v, want %v", bc.Status.NextMaintenanceWindow.Time, want)
	}
	awaitEventMessage(t, ns, name, "WaitForMaintenanceWindow", "Normal", "no maintenance window is open")
	if c := maintenanceCalls(ns, name); len(c) > 0 {
		t.Fatalf("maintenance calls %v outside every window", c)
	}

	// A window open from the start of this minute until 30 to 60 s from now. The restarted
	// broker takes 90 s to reclaim its load, so the window closes before the next may start.
	env.Sim.Cluster(ns, name).SetRecoveryTime(90 * time.Second)
	now = time.Now().UTC()
	opened := now.Truncate(time.Minute)
	length := max(time.Minute, now.Sub(opened)+30*time.Second).Round(time.Second)
	setWindows(t, ns, name, []v1alpha1.MaintenanceWindow{{Start: opened.Format("15:04"), Duration: metav1.Duration{Duration: length}}})
	awaitStatus(t, ns, name, "the first broker restarted and the next held for tomorrow's window", func(bc *v1alpha1.BrokerCluster) bool {
		return bc.Status.UpdatedReplicas == 1 && bc.Status.NextMaintenanceWindow != nil &&
			bc.Status.NextMaintenanceWindow.Time.Equal(opened.Add(24*time.Hour))
	})
	ons := maintenanceOns(ns, name)
	if len(ons) != 1 || !slices.Contains(ids, ons[0].NodeID) {
		t.Fatalf("maintenance-on calls %v, want one broker's restart", ons)
	}
	want := []string{fmt.Sprintf("on %d", ons[0].NodeID), fmt.Sprintf("off %d", ons[0].NodeID)}
	if got := maintenanceCalls(ns, name); !slices.Equal(got, want) {
		t.Fatalf("maintenance calls %v, want only broker %d's restart finished: %v", got, ons[0].NodeID, want)
	}

	// No windows: any time. The rollout goes on.
	env.Sim.Cluster(ns, name).SetRecoveryTime(0)
	setWindows(t, ns, name, nil)
	awaitImageRolledOut(t, ns, name, 3, "registry.invalid/broker:v25.1.3")
	if o := maintenanceOverlaps(ns, name); len(o) > 0 {
		t.Errorf("two brokers in maintenance at once: %v", o)
	}
	checkBrokersSafe(t, ns, name)
}
