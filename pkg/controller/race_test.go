package controller

import (
	"testing"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// TestSeedRace reproduces the seed's race: the controller's BrokerCluster informer lags behind
// the controller's own status writes (every watch event is held back until the test releases
// it), while a 5 → 2 scale-down runs. Reading the plain informer cache with the guards off,
// the next reconcile sees the old status, picks the broker that has just been decommissioned,
// and decommissions it a second time. Reading through the write-back overlay it never does,
// and the guards never have to fire. If the overlay were left out of the read path, the
// writeback cases would fail like the cache case.
func TestSeedRace(t *testing.T) {
	tests := []struct {
		name     string
		strategy ReadStrategy
		guards   Guards
		// wantDoubles: the simulator must see at least one decommission of a broker that was
		// not an active member; otherwise it must see none.
		wantDoubles bool
		// wantGuards: the guards must fire (they stand in for the fresh read); otherwise never.
		wantGuards bool
	}{
		{"cache without guards decommissions twice", ReadCache, noGuards, true, false},
		{"cache with guards is saved by the guards", ReadCache, DefaultGuards(), false, true},
		{"uncached without guards", ReadUncached, noGuards, false, false},
		{"writeback without guards", ReadWriteback, noGuards, false, false},
		{"writeback with guards never needs them", ReadWriteback, DefaultGuards(), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOptions{strategy: tt.strategy, guards: tt.guards, hold: true})
			h.bringUp(5)
			ids := h.nodeIDs()
			h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
			h.staleReads = 0

			// The race: from here on the informer sees none of the controller's writes.
			h.holding = true
			for range 12 {
				if _, err := h.reconcile(); err != nil {
					t.Logf("reconcile: %v", err)
				}
				if st := h.stored().Status; st.CurrentReplicas == 2 && st.DecommissioningBroker == nil {
					break
				}
			}
			held := h.holder.Pending()
			doubles := h.sim.DoubleDecommissions()
			guardFired := h.counter("broker_operator_guard_fired_total", "guard", guardAdminCheck) +
				h.counter("broker_operator_guard_fired_total", "guard", guardPrecondition)
			t.Logf("%s: %d held events, %d stale reads, decommission calls %v, guards fired %v, double decommissions %v",
				tt.name, held, h.staleReads, h.decommissionCalls(), guardFired, doubles)
			if held == 0 {
				t.Fatal("no BrokerCluster event was held back: the informer did not lag")
			}

			if tt.wantDoubles {
				if len(doubles) == 0 {
					t.Fatalf("no double decommission with the plain cache and no guards; calls %v", h.decommissionCalls())
				}
				if h.staleReads == 0 {
					t.Error("no stale read was counted")
				}
				return
			}
			if len(doubles) > 0 {
				t.Fatalf("double decommissions: %v", doubles)
			}
			if tt.wantGuards && guardFired == 0 {
				t.Error("the guards never fired, yet the reads were stale")
			}
			if !tt.wantGuards && guardFired != 0 {
				t.Errorf("guards fired %v times; fresh reads should leave them nothing to do", guardFired)
			}
			if tt.strategy != ReadCache {
				if h.staleReads != 0 {
					t.Errorf("%d stale BrokerCluster reads", h.staleReads)
				}
				want := []int{ids[4], ids[3], ids[2]}
				if got := h.decommissionCalls(); len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
					t.Errorf("decommission calls %v, want %v while the informer lagged", got, want)
				}
			}
			if tt.strategy == ReadWriteback {
				if n := h.counter("writeback_reads_served_from_overlay_total", "resource", "brokerclusters"); n == 0 {
					t.Error("no read was served from the overlay")
				}
			}

			// Let the informer catch up; the cluster settles at 2 with no broker lost.
			h.holding = false
			h.syncInformers()
			h.settle(20)
			if d := h.sim.DoubleDecommissions(); len(d) > 0 {
				t.Errorf("double decommissions after the informer caught up: %v", d)
			}
			if l := h.sim.LeftBeforeDecommission(); len(l) > 0 {
				t.Errorf("brokers left before their decommission finished: %v", l)
			}
			if n := len(h.decommissionCalls()); n != 3 {
				t.Errorf("%d decommission calls, want 3", n)
			}
		})
	}
}
