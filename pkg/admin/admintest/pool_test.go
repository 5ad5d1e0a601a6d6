package admintest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// The operator renders a pool pod's admin address with .Name its StatefulSet, <cluster>-<pool>,
// and .Ordinal its ordinal there: both templates must send that to the pool's broker, and the
// default pool's must still reach the default pool's.
func TestAddressTemplatesReachPoolBrokers(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("team-a", "c")
	blue := c.Pool("blue")
	other := s.Cluster("team-a", "other")
	defaultIDs := joinAll(c, 2)
	blueIDs := []int{blue.Join(0), blue.Join(1)}

	for _, tc := range []struct {
		name, template string
		port           int
	}{
		{"BrokerAddressTemplate at the cluster's admin port", s.BrokerAddressTemplate(), c.AdminPort()},
		{"AddressTemplateFor at the default admin port", s.AddressTemplateFor(other, c), admin.DefaultAdminPort},
	} {
		tmpl, err := admin.ParseAddressTemplate(tc.template, admin.DefaultClusterDomain)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, set := range []struct {
			name string
			urls []string
			ids  []int
		}{{"c", c.URLs(2), defaultIDs}, {"c-blue", blue.URLs(2), blueIDs}} {
			urls, err := tmpl.URLs("team-a", set.name, 2, tc.port)
			if err != nil || !slices.Equal(urls, set.urls) {
				t.Fatalf("%s: %s renders %v, %v; want %v", tc.name, set.name, urls, err, set.urls)
			}
			before := len(c.Calls())
			for ordinal, u := range urls {
				cl, err := admin.NewClient(admin.Config{URLs: []string{u}})
				if err != nil {
					t.Fatal(err)
				}
				if nc, err := cl.NodeConfig(context.Background(), 0); err != nil || nc.NodeID != set.ids[ordinal] {
					t.Errorf("%s: %s-%d answered node_config %+v, %v; want node %d", tc.name, set.name, ordinal, nc, err, set.ids[ordinal])
				}
			}
			wantPool := strings.TrimPrefix(strings.TrimPrefix(set.name, "c"), "-")
			for i, call := range c.Calls()[before:] {
				if call.Pool != wantPool || call.Ordinal != i {
					t.Errorf("%s: call %v; want it answered by pool %q ordinal %d", tc.name, call, wantPool, i)
				}
			}
		}
	}
	if blue.AdminPort() == c.AdminPort() || blue.StatefulSet() != "c-blue" || c.Pool("").StatefulSet() != "c" {
		t.Errorf("pool blue: port %d (cluster %d), StatefulSet %q", blue.AdminPort(), c.AdminPort(), blue.StatefulSet())
	}
	if c.Pool("blue").AdminPort() != blue.AdminPort() || !slices.Equal(c.Pools(), []string{"blue"}) {
		t.Errorf("naming pool blue again: port %d, pools %v; want the same pool", c.Pool("blue").AdminPort(), c.Pools())
	}
}

// Without named pools the template is what it always was: a generic template for every cluster.
func TestBrokerAddressTemplateWithoutPoolsIsGeneric(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	s.Cluster("ns", "c")
	if got := s.BrokerAddressTemplate(); got != "http://127.0.0.1:{{add .Port .Ordinal}}" {
		t.Errorf("BrokerAddressTemplate = %q", got)
	}
}

// c-blue-0 and c-0 are two brokers with IDs of their own; IDs are unique across every pool and
// never an ordinal; each advertises its own pod's stable host name.
func TestPoolsShareOneMembership(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	blue, green := c.Pool("blue"), c.Pool("green")
	ids := joinAll(c, 2)
	ids = append(ids, blue.Join(0), blue.Join(1), green.Join(0))
	seen := map[int]bool{}
	for i, id := range ids {
		if seen[id] || id < 2 {
			t.Fatalf("join %d got node ID %d (all %v): IDs must be unique across pools and never ordinals", i, id, ids)
		}
		seen[id] = true
	}
	if c0, _ := c.NodeID(0); c0 == ids[2] {
		t.Fatalf("c-0 and c-blue-0 share node %d", c0)
	}
	if again := blue.Join(0); again != ids[2] {
		t.Errorf("c-blue-0 joining again got node %d, want its own %d", again, ids[2])
	}

	blue.Down(0)
	brokers, err := clientFor(t, c, 2).Brokers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]struct {
		addr  string
		alive bool
	}{
		ids[0]: {"c-0.c.ns.svc.cluster.local", true},
		ids[1]: {"c-1.c.ns.svc.cluster.local", true},
		ids[2]: {"c-blue-0.c-blue.ns.svc.cluster.local", false},
		ids[3]: {"c-blue-1.c-blue.ns.svc.cluster.local", true},
		ids[4]: {"c-green-0.c-green.ns.svc.cluster.local", true},
	}
	if len(brokers) != len(want) {
		t.Fatalf("listed %d brokers, want %d: %+v", len(brokers), len(want), brokers)
	}
	for _, b := range brokers {
		if w := want[b.NodeID]; b.InternalRPCAddress != w.addr || b.IsAlive != w.alive {
			t.Errorf("broker %d: %s alive %v; want %s alive %v", b.NodeID, b.InternalRPCAddress, b.IsAlive, w.addr, w.alive)
		}
	}
	h, err := clientFor(t, c, 1).HealthOverview(context.Background())
	if err != nil || !slices.Equal(h.NodesDown, []int{ids[2]}) || len(h.AllNodes) != 5 {
		t.Errorf("health %+v, %v; want c-blue-0's node %d down of 5", h, err, ids[2])
	}

	var states []string
	for _, b := range c.Brokers() {
		states = append(states, b.Pool+"/"+itoa(b.Ordinal))
	}
	if strings.Join(states, " ") != "/0 /1 blue/0 blue/1 green/0" {
		t.Errorf("Brokers: %v", states)
	}
}

// A pool broker is decommissioned through any broker of the cluster, like any other; once
// removed its pod may go, and a pod that comes back on a fresh volume runs a new broker.
func TestDecommissionOfAPoolBroker(t *testing.T) {
	s, _ := newSim(t, admintest.Options{DrainTime: time.Hour})
	c := s.Cluster("ns", "c")
	blue := c.Pool("blue")
	joinAll(c, 3)
	id := blue.Join(0)
	ctx := context.Background()

	// Asked through the pool's own broker, as an operator that renders the pool's URLs does.
	cl, err := admin.NewClient(blue.Config(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Decommission(ctx, id); err != nil {
		t.Fatal(err)
	}
	if b, err := clientFor(t, c, 3).Broker(ctx, id); err != nil || b.MembershipStatus != admin.MembershipDraining {
		t.Fatalf("the default pool's brokers see %+v, %v; want node %d draining", b, err, id)
	}
	if err := cl.Decommission(ctx, id); !errors.Is(err, admin.ErrAlreadyDecommissioned) {
		t.Errorf("second decommission: %v", err)
	}
	if d := s.DoubleDecommissions(); len(d) != 1 || !strings.Contains(d[0], "via pool blue ordinal 0") {
		t.Errorf("DoubleDecommissions = %q; want the second call, naming the pool's pod", d)
	}
	c.FinishDrains()
	if _, ok := blue.NodeID(0); ok {
		t.Error("a removed broker still has a node ID")
	}
	blue.Leave(0)
	if l := s.LeftBeforeDecommission(); len(l) != 0 {
		t.Errorf("a decommissioned pool broker's pod left: %q", l)
	}
	if again := blue.Join(0); again == id || again <= id {
		t.Errorf("c-blue-0 back on a fresh volume got node %d; want a new ID after %d", again, id)
	}
	for o := range 3 {
		if _, ok := c.NodeID(o); !ok {
			t.Errorf("default pool's ordinal %d lost its broker", o)
		}
	}
}

// A pool's SyncPods acts on its own pods only: c-blue-1 leaving is not c-1 leaving, and the
// default pool's sync leaves blue's pods alone.
func TestPoolSyncPodsTouchesOnlyItsPool(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	blue := c.Pool("blue")
	c.SyncPods([]int{0, 1}, 2)
	blue.SyncPods([]int{0, 1}, 2)
	c.SyncPods([]int{0, 1}, 2) // the default pool's event again: blue's pods keep running
	blueID, _ := blue.NodeID(1)

	blue.SyncPods([]int{0}, 1)
	left := s.LeftBeforeDecommission()
	if len(left) != 1 || !strings.Contains(left[0], "pool blue ordinal 1") {
		t.Fatalf("LeftBeforeDecommission = %q; want c-blue-1 named", left)
	}
	running := map[string]bool{}
	for _, b := range c.Brokers() {
		if b.PodRunning {
			running[b.Pool+"/"+itoa(b.Ordinal)] = true
		}
	}
	if !running["/0"] || !running["/1"] || !running["blue/0"] || running["blue/1"] {
		t.Errorf("running after c-blue-1 left: %v", running)
	}
	if id, ok := blue.NodeID(1); !ok || id != blueID {
		t.Errorf("c-blue-1's broker: %d %v; want %d still a member, listed as not alive", id, ok, blueID)
	}
}

// Maintenance is one broker at a time across the whole cluster, and a restart in one pool while
// a broker of another is in maintenance is an overlap.
func TestMaintenanceSpansPools(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	blue := c.Pool("blue")
	ids := joinAll(c, 2)
	blueID := blue.Join(0)
	cl := clientFor(t, c, 2)
	ctx := context.Background()
	if err := cl.EnableMaintenance(ctx, blueID); err != nil {
		t.Fatal(err)
	}
	if err := cl.EnableMaintenance(ctx, ids[0]); !errors.Is(err, admin.ErrInvalidStateTransition) {
		t.Errorf("a second broker into maintenance, in another pool: %v", err)
	}
	c.Down(1)
	if o := s.Overlaps(); len(o) != 1 || !strings.Contains(o[0], "ordinal 1 restarting") || !strings.Contains(o[0], "pool blue ordinal 0) in maintenance") {
		t.Errorf("Overlaps = %q", o)
	}
}

// The in-process transport resolves a pool's URLs as its listeners do.
func TestTransportReachesPoolBrokers(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	blue := c.Pool("blue")
	c.Join(0)
	blue.Join(0)
	resp, err := (&http.Client{Transport: s.Transport()}).Get(blue.URLs(1)[0] + "/v1/node_config")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if id, _ := blue.NodeID(0); !strings.Contains(string(body), `"node_id":`+itoa(id)) {
		t.Errorf("c-blue-0 in process: %s; want node %d", body, id)
	}
}

// A pool name is what the CRD allows, and never "default", the default pool's name in status.
func TestPoolNamesAreChecked(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	for _, name := range []string{"default", "Blue", "1a", "a_b", "blue-"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Pool(%q) did not panic", name)
				}
			}()
			c.Pool(name)
		}()
	}
	if len(c.Pools()) != 0 {
		t.Errorf("refused names made pools: %v", c.Pools())
	}
}

// A controller leader in another pool at the same ordinal is another broker: c-0 redirects to
// c-blue-0's own listener.
func TestRedirectToALeaderInAnotherPool(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	blue := c.Pool("blue")
	ids := joinAll(c, 2)
	blue.Join(0)
	blue.SetControllerLeader(0)
	c.SetBrokerFault(0, admintest.Fault{Redirect: true, Method: http.MethodPut})
	cl, err := admin.NewClient(admin.Config{URLs: []string{c.URLs(1)[0], blue.URLs(1)[0]}})
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Decommission(context.Background(), ids[1]); err != nil {
		t.Fatalf("followed redirect: %v", err)
	}
	calls := c.Calls()
	last := calls[len(calls)-2:]
	if last[0].Pool != "" || last[0].Ordinal != 0 || last[0].Status != http.StatusTemporaryRedirect ||
		last[1].Pool != "blue" || last[1].Ordinal != 0 || last[1].Status != http.StatusOK {
		t.Errorf("calls = %v; want 307 from c-0, then 200 from the leader c-blue-0", last)
	}
	if !strings.Contains(last[1].String(), "ns/c/blue[0]") {
		t.Errorf("a pool call is written %q", last[1].String())
	}
}
