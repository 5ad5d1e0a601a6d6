package admintest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

func TestAddressTemplatesRouteToEachBroker(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("team-a", "redpanda")
	other := s.Cluster("team-a", "other")
	ids := joinAll(c, 3)

	for _, tc := range []struct {
		name, template string
		port           int
	}{
		{"BrokerAddressTemplate at the cluster's admin port", s.BrokerAddressTemplate(), c.AdminPort()},
		{"AddressTemplateFor at the default admin port", s.AddressTemplateFor(other, c), admin.DefaultAdminPort},
	} {
		tmpl, err := admin.ParseAddressTemplate(tc.template, admin.DefaultClusterDomain)
		if err != nil {
			t.Fatalf("%s: the simulator's template does not parse: %v", tc.name, err)
		}
		urls, err := tmpl.URLs("team-a", "redpanda", 3, tc.port)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(urls, " ") != strings.Join(c.URLs(3), " ") {
			t.Fatalf("%s: template URLs %v, cluster URLs %v", tc.name, urls, c.URLs(3))
		}
		before := len(c.Calls())
		for ordinal, u := range urls {
			// One URL per client: the call can only be answered by that broker.
			cl, err := admin.NewClient(admin.Config{URLs: []string{u}})
			if err != nil {
				t.Fatal(err)
			}
			nc, err := cl.NodeConfig(context.Background(), 0)
			if err != nil || nc.NodeID != ids[ordinal] {
				t.Fatalf("%s: broker %d: %+v, %v", tc.name, ordinal, nc, err)
			}
		}
		for i, call := range c.Calls()[before:] {
			if call.Ordinal != i || call.Path != "/v1/node_config" {
				t.Errorf("%s: call %d = %+v; want it answered by ordinal %d", tc.name, i, call, i)
			}
		}
	}

	// A cluster AddressTemplateFor does not name is rendered as BrokerAddressTemplate renders it.
	tmpl, err := admin.ParseAddressTemplate(s.AddressTemplateFor(other), admin.DefaultClusterDomain)
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := tmpl.URL("team-a", "redpanda", 1, c.AdminPort()); u != c.URLs(2)[1] {
		t.Errorf("a cluster not named: %s, want %s", u, c.URLs(2)[1])
	}
}

// rpadmin takes a broker address only as scheme://host:port with at most the path "/"
// (common-go net/hostport.go, ParseHostMaybeScheme), so each URL must be exactly that.
func TestEachBrokerHasItsOwnHostPort(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	a, b := s.Cluster("ns", "a"), s.Cluster("ns", "b")
	urls := append(a.URLs(3), b.URLs(3)...)
	seen := map[string]bool{}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || u.Path != "" || u.Hostname() != "127.0.0.1" || seen[u.Host] {
			t.Fatalf("URL %q: want scheme://127.0.0.1:PORT, distinct per broker (all: %v)", raw, urls)
		}
		seen[u.Host] = true
	}
}

func TestCallLogRecordsEveryCallInOrder(t *testing.T) {
	s, clock := newSim(t, admintest.Options{DrainTime: time.Second})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 2)
	cl := clientFor(t, c, 2)
	ctx := context.Background()

	_, _ = cl.Brokers(ctx)
	_ = cl.Decommission(ctx, ids[1])
	clock.Advance(time.Second)
	_, _ = cl.DecommissionStatus(ctx, ids[1])
	_ = cl.Decommission(ctx, ids[1])

	calls := s.Calls()
	want := []struct {
		method, path string
		nodeID       int
		status       int
	}{
		{"GET", "/v1/brokers", -1, 200},
		{"PUT", fmt.Sprintf("/v1/brokers/%d/decommission", ids[1]), ids[1], 200},
		{"GET", fmt.Sprintf("/v1/brokers/%d/decommission", ids[1]), ids[1], 200},
		{"PUT", fmt.Sprintf("/v1/brokers/%d/decommission", ids[1]), ids[1], 404},
	}
	if len(calls) != len(want) {
		t.Fatalf("calls = %v", calls)
	}
	for i, w := range want {
		got := calls[i]
		if got.Seq != i+1 || got.Namespace != "ns" || got.Name != "c" || got.Ordinal != 0 ||
			got.Method != w.method || got.Path != w.path || got.NodeID != w.nodeID || got.Status != w.status {
			t.Errorf("call %d = %+v, want %+v", i, got, w)
		}
	}
	if !calls[2].At.Equal(epoch.Add(time.Second)) {
		t.Errorf("call 3 at %v, want the simulator clock's time", calls[2].At)
	}
	if d := s.DoubleDecommissions(); len(d) != 1 || !strings.Contains(d[0], "call #4") {
		t.Errorf("DoubleDecommissions = %q, want call #4", d)
	}
}

func TestBasicAuthIsEnforcedWhenConfigured(t *testing.T) {
	s, _ := newSim(t, admintest.Options{Username: "admin", Password: "pw"})
	c := s.Cluster("ns", "c")
	joinAll(c, 1)
	if _, err := clientFor(t, c, 1).Brokers(context.Background()); err != nil {
		t.Fatalf("with the server's credentials: %v", err)
	}
	bad, _ := admin.NewClient(admin.Config{URLs: c.URLs(1), Username: "admin", Password: "wrong"})
	if _, err := bad.Brokers(context.Background()); !errors.Is(err, admin.ErrUnauthorized) {
		t.Fatalf("with a wrong password: %v", err)
	}
}

// A broker answers at the root of its host:port only: a path-prefixed URL, as a shared listener
// would take, is an unknown path.
func TestUnknownPathsAnswerNotFound(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	joinAll(c, 1)
	base := c.URLs(1)[0]
	for _, path := range []string{"/v1/nope", "/nope", "/ns/c/0/v1/brokers", "/ns/c/0/v1/node_config"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, resp.StatusCode)
		}
	}
	resp, err := http.Get(base + "/v1/brokers/abc/decommission")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("GET /v1/brokers/abc/decommission = %d, want 400", resp.StatusCode)
	}
}

func TestStartRejectsBadOptions(t *testing.T) {
	for _, opts := range []admintest.Options{
		{DrainTime: -1}, {ReplicasPerBroker: -1}, {Password: "x"}, {Host: "256.0.0.1"}, {Host: "localhost"},
		{ClientCAPEM: []byte("x")}, {TLS: true, ClientCAPEM: []byte("not PEM")},
	} {
		if s, err := admintest.Start(opts); err == nil {
			s.Close()
			t.Errorf("Start(%+v) succeeded", opts)
		}
	}
}

// TestConcurrentUseIsSafe drives several clusters from many goroutines while faults and
// membership change; run with -race. Each broker is decommissioned by exactly one goroutine,
// so no double decommission may be reported.
func TestConcurrentUseIsSafe(t *testing.T) {
	s, clock := newSim(t, admintest.Options{DrainTime: time.Second})
	const clusters, brokers = 4, 5
	var wg sync.WaitGroup
	for i := range clusters {
		c := s.Cluster("ns", fmt.Sprintf("c%d", i))
		ids := joinAll(c, brokers)
		cfg := c.Config(brokers)
		cfg.Timeout = 5 * time.Second
		cl, err := admin.NewClient(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for b := 1; b < brokers; b++ {
			wg.Go(func() {
				ctx := context.Background()
				for {
					err := cl.Decommission(ctx, ids[b])
					if err == nil {
						return
					}
					if !errors.Is(err, admin.ErrUnavailable) {
						t.Errorf("decommission %d: %v", ids[b], err)
						return
					}
				}
			})
		}
		wg.Go(func() {
			for range 20 {
				_, _ = cl.Brokers(context.Background())
				c.SetBrokerFault(0, admintest.Fault{Status: http.StatusServiceUnavailable, Times: 1})
				clock.Advance(100 * time.Millisecond)
				_ = c.Brokers()
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			s.SetFault(admintest.Fault{Status: http.StatusServiceUnavailable, Method: http.MethodPut, Times: 3})
			_ = s.Calls()
		}
	})
	wg.Wait()
	s.SetFault(admintest.Fault{})
	if d := s.DoubleDecommissions(); len(d) != 0 {
		t.Errorf("DoubleDecommissions = %q", d)
	}
	for i := range clusters {
		c := s.Cluster("ns", fmt.Sprintf("c%d", i))
		c.FinishDrains()
		for b := 1; b < brokers; b++ {
			c.Leave(b)
		}
	}
	if l := s.LeftBeforeDecommission(); len(l) != 0 {
		t.Errorf("LeftBeforeDecommission = %q", l)
	}
}

func TestFakeClock(t *testing.T) {
	clock := admintest.NewFakeClock(epoch)
	clock.Advance(time.Minute)
	if got := clock.Now(); !got.Equal(epoch.Add(time.Minute)) {
		t.Errorf("Now = %v", got)
	}
}
