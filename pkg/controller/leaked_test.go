package controller

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// A broker left in maintenance mode by someone else (a preStop hook, a person) is taken out of
// it at the next reconcile that asks the admin API, before the scale-down that flag would hold
// back, with a Warning event that names it.
func TestALeakedMaintenanceFlagIsClearedBeforeTheNextStep(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	ids := h.nodeIDs()
	client, err := admin.NewClient(h.cluster.Config(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := client.EnableMaintenance(t.Context(), ids[0]); err != nil {
		t.Fatal(err)
	}
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	h.reconcile()
	if got, want := h.maintenanceCalls(), []string{fmt.Sprintf("on %d", ids[0]), fmt.Sprintf("off %d", ids[0])}; !slices.Equal(got, want) {
		t.Fatalf("maintenance calls %v, want %v: the leaked flag taken off", got, want)
	}
	if !slices.ContainsFunc(h.events(), func(e string) bool {
		return strings.Contains(e, "Warning ClearLeakedMaintenance") && strings.Contains(e, fmt.Sprintf("broker %d", ids[0]))
	}) {
		t.Errorf("no Warning event names the cleared broker: %v", h.events())
	}
	h.settle(30)
	if got := h.decommissionCalls(); len(got) != 1 || got[0] != ids[2] {
		t.Errorf("decommission calls %v, want the scale-down to go on with broker %d", got, ids[2])
	}
}
