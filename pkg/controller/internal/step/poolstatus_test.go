package step

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// moving is a cluster half-way through a move from the default pool to blue: blue has its
// three brokers, the default pool is down to two with broker 7 draining, and green was removed
// from the spec with one broker left.
func moving() *v1alpha1.BrokerCluster {
	bc := &v1alpha1.BrokerCluster{}
	bc.Name = "c"
	bc.Spec.Replicas = 0
	bc.Spec.Pools = []v1alpha1.BrokerPool{{Name: "blue", Replicas: 3}}
	bc.Status.CurrentReplicas = 2
	bc.Status.DecommissioningBroker = ptr.To[int32](7)
	bc.Status.Pools = []v1alpha1.PoolStatus{
		{Name: DefaultPool, Replicas: 2, DecommissioningBroker: ptr.To[int32](7)},
		{Name: "blue", Replicas: 3},
		{Name: "green", Replicas: 1},
	}
	return bc
}

func TestPoolsOfAndTheirCounts(t *testing.T) {
	bc := moving()
	if !HasPools(bc) {
		t.Error("HasPools is false for a cluster with spec.pools")
	}
	if got := PoolsOf(bc); !slices.Equal(got, []string{DefaultPool, "blue", "green"}) {
		t.Errorf("PoolsOf = %v", got)
	}
	for _, tc := range []struct {
		pool             string
		desired, current int32
	}{{DefaultPool, 0, 2}, {"blue", 3, 3}, {"green", 0, 1}, {"red", 0, 0}} {
		if d, c := PoolDesired(bc, tc.pool), PoolCurrent(bc, tc.pool); d != tc.desired || c != tc.current {
			t.Errorf("pool %s: D=%d C=%d, want D=%d C=%d", tc.pool, d, c, tc.desired, tc.current)
		}
	}
	if got := DecommissioningPool(bc); got != DefaultPool {
		t.Errorf("DecommissioningPool = %q, want the default pool", got)
	}
	plain := &v1alpha1.BrokerCluster{}
	plain.Status.DecommissioningBroker = ptr.To[int32](2)
	if HasPools(plain) || DecommissioningPool(plain) != DefaultPool || !slices.Equal(PoolsOf(plain), []string{DefaultPool}) {
		t.Error("a cluster without pools is its default pool alone")
	}
}

func TestFocusStatusShowsThePoolsOwnCAndB(t *testing.T) {
	bc := moving()
	if st := FocusStatus(bc, "blue"); st.CurrentReplicas != 3 || st.DecommissioningBroker != nil {
		t.Errorf("blue's focus: C=%d B=%v, want 3 and none (broker 7 is the default pool's)", st.CurrentReplicas, st.DecommissioningBroker)
	}
	if st := FocusStatus(bc, DefaultPool); st.CurrentReplicas != 2 || st.DecommissioningBroker == nil || *st.DecommissioningBroker != 7 {
		t.Errorf("default focus: C=%d B=%v, want 2 and 7", st.CurrentReplicas, st.DecommissioningBroker)
	}
}

func TestMergeFocusStatus(t *testing.T) {
	counts := map[string]PoolCounts{DefaultPool: {Ready: 2, Updated: 2}, "blue": {Ready: 3, Updated: 3}, "green": {Ready: 1}}
	goneGreen := map[string]PoolCounts{DefaultPool: {Ready: 2, Updated: 2}, "blue": {Ready: 3, Updated: 3}, "green": {Gone: true}}

	// The default pool's drain finished: C 2 -> 1, B cleared, in the top-level fields and the
	// default pool's entry; the others keep theirs.
	bc := moving()
	next := FocusStatus(bc, DefaultPool)
	next.CurrentReplicas, next.DecommissioningBroker = 1, nil
	st := MergeFocusStatus(bc, DefaultPool, next, counts)
	if st.CurrentReplicas != 1 || st.DecommissioningBroker != nil {
		t.Errorf("top level: C=%d B=%v, want 1 and none", st.CurrentReplicas, st.DecommissioningBroker)
	}
	want := []v1alpha1.PoolStatus{
		{Name: DefaultPool, Replicas: 1, ReadyReplicas: 2, UpdatedReplicas: 2},
		{Name: "blue", Replicas: 3, ReadyReplicas: 3, UpdatedReplicas: 3},
		{Name: "green", Replicas: 1, ReadyReplicas: 1},
	}
	if !poolsEqual(st.Pools, want) {
		t.Errorf("pools = %+v, want %+v", st.Pools, want)
	}

	// blue grows while the default pool drains: broker 7 stays recorded, on the default pool.
	bc = moving()
	bc.Spec.Pools[0].Replicas = 4
	next = FocusStatus(bc, "blue")
	next.CurrentReplicas = 4
	st = MergeFocusStatus(bc, "blue", next, counts)
	if st.CurrentReplicas != 2 || st.DecommissioningBroker == nil || *st.DecommissioningBroker != 7 {
		t.Errorf("top level after blue's growth: C=%d B=%v, want the default pool's 2 and 7", st.CurrentReplicas, st.DecommissioningBroker)
	}
	if e := poolEntry(st.Pools, "blue"); e == nil || e.Replicas != 4 || e.DecommissioningBroker != nil {
		t.Errorf("blue's entry = %+v, want 4 brokers", e)
	}
	if e := poolEntry(st.Pools, DefaultPool); e == nil || e.DecommissioningBroker == nil || *e.DecommissioningBroker != 7 {
		t.Errorf("default entry = %+v, want broker 7 still named", e)
	}

	// green starts a decommission of broker 9: its entry names it; its last broker gone drops it.
	bc = moving()
	bc.Status.DecommissioningBroker, bc.Status.Pools[0].DecommissioningBroker = nil, nil
	next = FocusStatus(bc, "green")
	next.DecommissioningBroker = ptr.To[int32](9)
	st = MergeFocusStatus(bc, "green", next, counts)
	if e := poolEntry(st.Pools, "green"); e == nil || e.DecommissioningBroker == nil || *e.DecommissioningBroker != 9 || *st.DecommissioningBroker != 9 {
		t.Errorf("green's entry = %+v, top B %v: want broker 9 on both", e, st.DecommissioningBroker)
	}
	bc.Status = st
	next = FocusStatus(bc, "green")
	next.CurrentReplicas, next.DecommissioningBroker = 0, nil
	st = MergeFocusStatus(bc, "green", next, counts)
	if e := poolEntry(st.Pools, "green"); e == nil {
		t.Error("green, removed from the spec and empty, was dropped while its StatefulSet is still there")
	}
	bc.Status = st
	st = MergeFocusStatus(bc, DefaultPool, FocusStatus(bc, DefaultPool), goneGreen)
	if e := poolEntry(st.Pools, "green"); e != nil {
		t.Errorf("green, removed from the spec, empty and gone, is still listed: %+v", e)
	}
	if st.CurrentReplicas != 2 {
		t.Errorf("green's step changed the default pool's C to %d", st.CurrentReplicas)
	}
}

func poolsEqual(a, b []v1alpha1.PoolStatus) bool {
	return slices.EqualFunc(a, b, func(x, y v1alpha1.PoolStatus) bool {
		return x.Name == y.Name && x.Replicas == y.Replicas && x.ReadyReplicas == y.ReadyReplicas &&
			x.UpdatedReplicas == y.UpdatedReplicas && ptr.Equal(x.DecommissioningBroker, y.DecommissioningBroker)
	})
}

func TestStatusPatchCarriesPools(t *testing.T) {
	bc := moving()
	next := *bc.Status.DeepCopy()
	next.Pools[1].ReadyReplicas = 2
	if p := StatusPatch(bc.Status, next, ""); !strings.Contains(string(p), `"pools":[`) {
		t.Errorf("patch %s does not carry status.pools", p)
	}
	if p := StatusPatch(bc.Status, *bc.Status.DeepCopy(), ""); p != nil {
		t.Errorf("an unchanged status patched %s", p)
	}
}
