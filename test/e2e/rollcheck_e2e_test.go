//go:build e2e

package e2e

import (
	"fmt"
	"slices"
	"testing"
)

// checkRolledOneAtATime checks a finished rolling restart of the brokers ids (by ordinal): each
// went into maintenance once, highest ordinal first, never two at once; their pods went in the
// same order, at most one away at a time; and the same brokers run afterwards.
func checkRolledOneAtATime(t *testing.T, ns, name string, ids []int, pods *podLog) {
	t.Helper()
	var want []string
	for _, id := range slices.Backward(ids) {
		want = append(want, fmt.Sprintf("on %d", id), fmt.Sprintf("off %d", id))
	}
	if got := maintenanceCalls(ns, name); !slices.Equal(got, want) {
		t.Errorf("maintenance calls %v, want %v (each broker once, highest ordinal first)", got, want)
	}
	if o := maintenanceOverlaps(ns, name); len(o) > 0 {
		t.Errorf("two brokers in maintenance at once: %v", o)
	}
	checkPodsRolledHighestFirst(t, name, len(ids), pods)
	if got := env.NodeIDs(t, ns, name, len(ids)); !slices.Equal(got, ids) {
		t.Errorf("brokers after the restarts %v, want the same %v", got, ids)
	}
}

// checkPodsRolledHighestFirst checks from the pods' watch events that the replicas pods were
// deleted highest ordinal first and that at most one was away or not ready at a time.
func checkPodsRolledHighestFirst(t *testing.T, name string, replicas int, pods *podLog) {
	t.Helper()
	var want []string
	for i := replicas - 1; i >= 0; i-- {
		want = append(want, fmt.Sprintf("%s-%d", name, i))
	}
	if got := slices.Compact(pods.deleted()); !slices.Equal(got, want) {
		t.Errorf("pods deleted in the order %v, want highest first %v", pods.deleted(), want)
	}
	if n := pods.maxAway(); n > 1 {
		t.Errorf("%d broker pods were away or not ready at once, want at most 1", n)
	}
}
