package brokers

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// movingCluster is half-way through a move from the default pool to blue: blue has three
// brokers, the default pool two, broker 101 of the default pool draining.
func movingCluster() *v1alpha1.BrokerCluster {
	bc := newBrokerCluster(0)
	blue := v1alpha1.BrokerPool{Name: "blue", Replicas: 3}
	blue.Storage.Size = resource.MustParse("20Gi")
	bc.Spec.Pools = []v1alpha1.BrokerPool{blue}
	bc.Status.CurrentReplicas = 2
	bc.Status.DecommissioningBroker = ptr.To[int32](101)
	bc.Status.Pools = []v1alpha1.PoolStatus{
		{Name: v1alpha1.DefaultPoolName, Replicas: 2, DecommissioningBroker: ptr.To[int32](101)},
		{Name: "blue", Replicas: 3},
	}
	return bc
}

func TestFocusView(t *testing.T) {
	bc := movingCluster()
	blue := FocusView(bc, "blue")
	if objects.FocusPool(blue) != "blue" || objects.FocusSet(blue) != testName+"-blue" {
		t.Errorf("focus %q, set %q", objects.FocusPool(blue), objects.FocusSet(blue))
	}
	if blue.Spec.Replicas != 3 || blue.Spec.Storage.Size.String() != "20Gi" || blue.Status.CurrentReplicas != 3 || blue.Status.DecommissioningBroker != nil {
		t.Errorf("blue's view: D=%d C=%d B=%v storage %s", blue.Spec.Replicas, blue.Status.CurrentReplicas, blue.Status.DecommissioningBroker, blue.Spec.Storage.Size.String())
	}
	def := FocusView(bc, v1alpha1.DefaultPoolName)
	if def.Spec.Replicas != 0 || def.Status.CurrentReplicas != 2 || def.Status.DecommissioningBroker == nil || objects.FocusSet(def) != testName {
		t.Errorf("the default pool's view: D=%d C=%d B=%v set %s", def.Spec.Replicas, def.Status.CurrentReplicas, def.Status.DecommissioningBroker, objects.FocusSet(def))
	}
	if len(def.Spec.Pools) != 1 || len(def.Status.Pools) != 2 {
		t.Errorf("a view keeps every pool in sight: spec %v, status %v", def.Spec.Pools, def.Status.Pools)
	}
	bc.Status.Pools = append(bc.Status.Pools, v1alpha1.PoolStatus{Name: "green", Replicas: 1})
	if green := FocusView(bc, "green"); green.Spec.Replicas != 0 || green.Status.CurrentReplicas != 1 {
		t.Errorf("a removed pool's view: D=%d C=%d, want 0 and 1", green.Spec.Replicas, green.Status.CurrentReplicas)
	}
	if _, marked := bc.Annotations[objects.AnnotationFocusPool]; marked || objects.FocusPool(bc) != v1alpha1.DefaultPoolName {
		t.Error("FocusView marked the BrokerCluster it was given")
	}
}

func TestAddressLayoutPutsTheFocusPoolFirst(t *testing.T) {
	tmpl, err := admin.ParseAddressTemplate(admin.DefaultAddressTemplate, admin.DefaultClusterDomain)
	if err != nil {
		t.Fatal(err)
	}
	urls, err := addressLayout(tmpl, FocusView(movingCluster(), "blue"), 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"http://redpanda-blue-0.redpanda-blue.team-a.svc.cluster.local:9644",
		"http://redpanda-blue-1.redpanda-blue.team-a.svc.cluster.local:9644",
		"http://redpanda-blue-2.redpanda-blue.team-a.svc.cluster.local:9644",
		"http://redpanda-0.redpanda.team-a.svc.cluster.local:9644",
		"http://redpanda-1.redpanda.team-a.svc.cluster.local:9644",
	}
	if !slices.Equal(urls, want) {
		t.Errorf("URLs\n%v\nwant\n%v", urls, want)
	}
	plain, err := addressLayout(tmpl, newBrokerCluster(2), 2)
	if err != nil || len(plain) != 2 || plain[1] != "http://redpanda-1.redpanda.team-a.svc.cluster.local:9644" {
		t.Errorf("a cluster without pools: %v, %v", plain, err)
	}
}

// elsewhereBlue is blue's three pods, seen from the default pool.
func elsewhereBlue(ids ...int32) step.Elsewhere {
	e := step.Elsewhere{Pools: []step.OtherPool{{Name: "blue", Set: testName + "-blue", Desired: 3, Current: 3}}}
	for i, id := range ids {
		e.Pods = append(e.Pods, step.PoolPod{Pool: "blue", Ordinal: int32(i), ID: id, IDKnown: id >= 0})
	}
	return e
}

// A pod is known by its pool and ordinal: the default pool's pod 2 runs no broker when every
// member runs on a pod of the default pool or of blue; without blue in sight, it is unknown.
func TestAPodWithNoBrokerCountsEveryPool(t *testing.T) {
	members := loopbackMembers(100, 101, 103, 104, 105)
	pods := map[int]*corev1.Pod{0: testPod(0, true, "100"), 1: testPod(1, true, "101"), 2: testPod(2, false, "")}
	for _, tc := range []struct {
		name      string
		elsewhere step.Elsewhere
		want      step.Membership
	}{
		{"blue in sight", elsewhereBlue(103, 104, 105), step.MemberAbsent},
		{"blue not in sight", step.Elsewhere{}, step.MemberUnidentified},
		{"a blue pod whose broker is not named", elsewhereBlue(103, 104, -1), step.MemberUnidentified},
	} {
		view := NewView(testName, members)
		view.elsewhere = tc.elsewhere
		ids, err := IdentifyPods(context.Background(), nodeConfigs{}, pods, view, 2)
		if err != nil {
			t.Fatal(err)
		}
		view.identities = ids
		if v := VictimOf(2, view); v.Status != tc.want {
			t.Errorf("%s: victim %+v, want %s", tc.name, v, tc.want)
		}
	}
}

func TestGhostsCountEveryPool(t *testing.T) {
	bc := newBrokerCluster(2)
	bc.Status.CurrentReplicas = 2
	blueAddr := func(o int) string {
		return admin.StableHostName(testName+"-blue", testNamespace, o, admin.DefaultClusterDomain)
	}
	members := []admin.Broker{
		{NodeID: 100, MembershipStatus: admin.MembershipActive, IsAlive: true, InternalRPCAddress: admin.StableHostName(testName, testNamespace, 0, admin.DefaultClusterDomain)},
		{NodeID: 101, MembershipStatus: admin.MembershipActive, IsAlive: true, InternalRPCAddress: admin.StableHostName(testName, testNamespace, 1, admin.DefaultClusterDomain)},
		{NodeID: 103, MembershipStatus: admin.MembershipActive, IsAlive: false, InternalRPCAddress: blueAddr(0)}, // recorded on blue-0
		{NodeID: 104, MembershipStatus: admin.MembershipActive, IsAlive: false, InternalRPCAddress: blueAddr(1)}, // blue-1 is away
		{NodeID: 99, MembershipStatus: admin.MembershipActive, IsAlive: false, InternalRPCAddress: blueAddr(7)},  // no pod of blue's: a ghost
	}
	pods := map[int]*corev1.Pod{0: testPod(0, true, "100"), 1: testPod(1, true, "101")}
	view := NewView(testName, members)
	view.elsewhere = step.Elsewhere{Pools: elsewhereBlue().Pools, Pods: []step.PoolPod{{Pool: "blue", Ordinal: 0, ID: 103, IDKnown: true}}}
	if got := FindGhosts(bc, view, pods); !slices.Equal(got, []int32{99}) {
		t.Errorf("ghosts %v, want [99]: blue's brokers are no ghosts of the default pool", got)
	}
	view.elsewhere = step.Elsewhere{}
	if got := FindGhosts(bc, view, pods); !slices.Equal(got, []int32{99, 103, 104}) {
		t.Errorf("without blue in sight: ghosts %v, want [99 103 104]", got)
	}
}

func TestPlacementCountsEveryPoolsBrokers(t *testing.T) {
	bc := FocusView(movingCluster(), v1alpha1.DefaultPoolName)
	byID := map[int32]admin.Broker{}
	for _, id := range []int32{100, 101, 103, 104, 105} {
		byID[id] = admin.Broker{NodeID: int(id), Rack: "r" + string(rune('0'+id%3)), Disk: admin.DiskSpace{Known: true, Free: 10, Total: 20}}
	}
	view := NewView(testName, nil)
	view.elsewhere = elsewhereBlue(103, 104, 105)
	p := step.Placement{Target: bc.Spec.Replicas}
	view.placeElsewhere(&p, byID)
	if len(p.Remains) != 3 || len(p.Disk.Remaining) != 3 || len(p.Disk.Leaving) != 0 || len(p.RacksNow) != 3 {
		t.Errorf("blue's brokers: remains %v, remaining disks %d, leaving %d", p.Remains, len(p.Disk.Remaining), len(p.Disk.Leaving))
	}
}

// The controller leader may run in another pool: its URL follows the focus pool's.
func TestURLOfALeaderInAnotherPool(t *testing.T) {
	bc := FocusView(movingCluster(), v1alpha1.DefaultPoolName) // the default pool (2 brokers) first, then blue's 3
	view := NewView(testName, loopbackMembers(100, 101, 103, 104, 105))
	view.elsewhere = elsewhereBlue(103, 104, 105)
	view.identities = map[int]identity{0: {ID: 100, Known: true}, 1: {ID: 101, Known: true}}
	for _, tc := range []struct {
		id    int32
		index int
		pod   string
	}{{101, 1, testName + "-1"}, {103, 2, testName + "-blue-0"}, {105, 4, testName + "-blue-2"}} {
		index, pod, ok := view.urlOf(bc, tc.id)
		if !ok || index != tc.index || pod != tc.pod {
			t.Errorf("urlOf(%d) = %d, %s, %v; want %d, %s", tc.id, index, pod, ok, tc.index, tc.pod)
		}
	}
	tmpl, _ := admin.ParseAddressTemplate(admin.DefaultAddressTemplate, admin.DefaultClusterDomain)
	urls, err := addressLayout(tmpl, bc, bc.Status.CurrentReplicas)
	if err != nil || !strings.Contains(urls[4], testName+"-blue-2.") {
		t.Errorf("URL 4 is %v (%v), want blue-2's", urls, err)
	}
	if _, _, ok := view.urlOf(bc, 99); ok {
		t.Error("urlOf found a pod for a broker no pod runs")
	}
}
