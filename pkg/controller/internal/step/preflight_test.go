package step

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

func TestPreflightReplicationFactor(t *testing.T) {
	p := Placement{Asked: true, Target: 2, Partitions: []PartitionReplicas{
		{Topic: "kafka/logs", Replicas: []int32{1, 2}},
		{Topic: "kafka/orders", ID: 0, Replicas: []int32{1, 2, 3}},
		{Topic: "kafka/orders", ID: 1, Replicas: []int32{2, 3, 1}},
	}}
	why := p.Refused()
	for _, want := range []string{"topic kafka/orders", "replication factor 3", "only 2 brokers would remain", "spec.replicas at 3 or more"} {
		if !strings.Contains(why, want) {
			t.Errorf("Refused() = %q, want it to say %q", why, want)
		}
	}
	p.Target = 3
	if why := p.Refused(); why != "" {
		t.Errorf("three brokers left for replication factor 3: Refused() = %q, want none", why)
	}
	if why := (Placement{Target: 1, Partitions: p.Partitions}).Refused(); why != "" {
		t.Errorf("not asked: Refused() = %q, want none", why)
	}
	if why := (Placement{Asked: true, NoRoute: true, Target: 1}).Refused(); why != "" {
		t.Errorf("no route: Refused() = %q, want none", why)
	}
}

// The replication factor part holds exactly when no partition has more replicas than brokers
// remain, whatever the partitions.
func TestPreflightReplicationFactorProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		p := Placement{Asked: true, Target: int32(rng.IntN(6))}
		widest := 0
		for i := range rng.IntN(5) {
			n := 1 + rng.IntN(5)
			widest = max(widest, n)
			p.Partitions = append(p.Partitions, PartitionReplicas{Topic: "kafka/t" + string(rune('a'+i)), Replicas: make([]int32, n)})
		}
		if got, want := p.Refused() != "", int(p.Target) < widest; got != want {
			t.Fatalf("%+v: refused %v, want %v (%q)", p, got, want, p.Refused())
		}
	}
}

func TestPreflightRacks(t *testing.T) {
	p := placement(3, 3)
	p.RackAware = true
	p.RacksNow = []string{"a", "b", "c", "c"}
	p.Remains = []string{"a", "c", "c"}
	why := p.Refused()
	for _, want := range []string{"rack awareness", "kafka/orders", "only 2 of the 3 racks", "a, c of a, b, c"} {
		if !strings.Contains(why, want) {
			t.Errorf("Refused() = %q, want it to say %q", why, want)
		}
	}
	p.Remains = []string{"a", "b", "c"}
	if why := p.Refused(); why != "" {
		t.Errorf("every rack kept: Refused() = %q", why)
	}
	// A cluster on fewer racks than the factor loses nothing it had by keeping them all.
	p.RacksNow, p.Remains = []string{"a", "b", "b", "a"}, []string{"a", "b", "a"}
	if why := p.Refused(); why != "" {
		t.Errorf("both racks kept: Refused() = %q", why)
	}
	p.RackAware, p.Remains = false, []string{"a", "a", "a"}
	if why := p.Refused(); why != "" {
		t.Errorf("rack awareness off: Refused() = %q", why)
	}
}

func TestPreflightDisk(t *testing.T) {
	const gi = int64(1) << 30
	d := DiskFit{Asked: true, MinFreeBytes: 5 * gi, AlertPercent: 5,
		Leaving:   []BrokerDisk{{ID: 3, Known: true, Free: 40 * gi, Total: 100 * gi}},
		Remaining: []BrokerDisk{{ID: 1, Known: true, Free: 30 * gi, Total: 100 * gi}, {ID: 2, Known: true, Free: 30 * gi, Total: 100 * gi}}}
	// 60 GiB to move; each remaining broker takes 30 - max(5, 5) = 25: 50 GiB.
	room, needed, ok := d.Room()
	if !ok || room != 50*gi || needed != 60*gi {
		t.Fatalf("Room() = %d, %d, %v; want 50 GiB, 60 GiB", room/gi, needed/gi, ok)
	}
	why := (Placement{Asked: true, Target: 2, Disk: d}).Refused()
	for _, want := range []string{"60.0 GiB", "50.0 GiB", "storage_min_free_bytes", "storage_space_alert_free_threshold_percent"} {
		if !strings.Contains(why, want) {
			t.Errorf("Refused() = %q, want it to say %q", why, want)
		}
	}
	// The percentage counts when it is the larger floor: 20% of 100 GiB leaves 10 each.
	d.AlertPercent = 20
	if room, _, _ := d.Room(); room != 20*gi {
		t.Errorf("with a 20%% alert threshold, room %d GiB, want 20", room/gi)
	}
	d.AlertPercent, d.Leaving[0].Free = 5, 60*gi
	if why := d.Refused(); why != "" {
		t.Errorf("40 GiB into 50: Refused() = %q", why)
	}
	d.Remaining[1].Known = false
	if why := d.Refused(); why != "" {
		t.Errorf("a disk not known: Refused() = %q, want none (the health gate holds a broker down)", why)
	}
}

// A hold writes Degraded ScaleDownWouldNotFit naming the topic, clears B, shows the desired size
// in the Scaling condition, and is told once; raising spec.replicas ends it with a Normal event.
func TestHoldScaleDownStatusAndEvents(t *testing.T) {
	bc := &v1alpha1.BrokerCluster{}
	bc.Name, bc.Spec.Replicas = "rp", 2
	bc.Status.CurrentReplicas, bc.Status.DecommissioningBroker = 3, ptr.To[int32](102)
	o := Observation{Cluster: "rp", Desired: 2, Current: 3, Decommissioning: ptr.To[int32](102), Target: MemberActive, AdminCheck: true, Placement: placement(2, 3)}
	s := Decide(o)
	if s.Kind != HoldScaleDown {
		t.Fatalf("Decide = %s, want HoldScaleDown", s.Kind)
	}
	current, b, lc := Change(bc, s, o, false)
	if b != nil || current != 3 {
		t.Errorf("Change: current %d, B %v; want 3 and B cleared", current, OptionalID(b))
	}
	now := time.Unix(1000, 0)
	st := NextStatus(bc, s, Write{Current: current, Decommissioning: b, Lifecycle: lc}, now)
	deg := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded)
	if deg == nil || deg.Status != metav1.ConditionTrue || deg.Reason != ReasonScaleDownWouldNotFit || !strings.Contains(deg.Message, "kafka/orders") || !strings.Contains(deg.Message, "replication factor 3") {
		t.Errorf("Degraded = %+v, want ScaleDownWouldNotFit naming kafka/orders and its factor", deg)
	}
	if sc := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionScaling); sc == nil || !strings.Contains(sc.Message, "from 3 to 2 brokers is held") {
		t.Errorf("Scaling = %+v, want the held scale-down from 3 to 2", sc)
	}
	ev := Events(s, &bc.Status, &st)
	if len(ev) != 1 || ev[0].Type != v1.EventTypeWarning || ev[0].Reason != string(HoldScaleDown) {
		t.Errorf("events of the first hold = %+v, want one Warning HoldScaleDown", ev)
	}
	held := bc.DeepCopy()
	held.Status = st
	if ev := Events(s, &held.Status, &st); len(ev) != 0 {
		t.Errorf("events of the hold again = %+v, want none", ev)
	}
	held.Spec.Replicas = 3
	steady := Decide(Observation{Cluster: "rp", Desired: 3, Current: 3})
	next := NextStatus(held, steady, Write{Current: 3}, now)
	ev = Events(steady, &held.Status, &next)
	if len(ev) != 1 || ev[0].Reason != string(HoldScaleDown) || ev[0].Type != v1.EventTypeNormal {
		t.Errorf("events once spec.replicas went back up = %+v, want one Normal HoldScaleDown saying it ended", ev)
	}
	if deg := meta.FindStatusCondition(next.Conditions, v1alpha1.ConditionDegraded); deg.Status != metav1.ConditionFalse {
		t.Errorf("Degraded after the scale-up = %+v, want False", deg)
	}
}

func TestWaitForDataFitsHolds(t *testing.T) {
	if k := WaitFor(FactDataFits); k != HoldScaleDown {
		t.Errorf("WaitFor(FactDataFits) = %s, want HoldScaleDown", k)
	}
	for _, k := range []Kind{StartDecommission, Decommission} {
		if !containsFact(Rows[k].Facts, FactDataFits) {
			t.Errorf("row %s does not rely on %q", k, FactDataFits)
		}
	}
}

func containsFact(fs []Fact, f Fact) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

// With pools the brokers that remain are several pools': the refusal says so rather than name
// spec.replicas alone.
func TestPreflightRefusalWithPools(t *testing.T) {
	p := Placement{Asked: true, Target: 2, Pools: true, Partitions: []PartitionReplicas{{Topic: "kafka/orders", Replicas: []int32{1, 2, 3}}}}
	got := p.Refused()
	if !strings.Contains(got, "keep at least 3 brokers across the pools' replicas") || strings.Contains(got, "spec.replicas") {
		t.Errorf("refusal %q, want it to speak of the pools' replicas", got)
	}
}
