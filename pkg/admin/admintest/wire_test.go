package admintest_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// do sends a raw request to one broker and returns the status and the message of the body.
func do(t *testing.T, method, url string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body strings.Builder
	buf := make([]byte, 512)
	n, _ := resp.Body.Read(buf)
	body.Write(buf[:n])
	return resp.StatusCode, body.String()
}

func TestAuthAnswersAsRedpanda(t *testing.T) {
	s, _ := newSim(t, admintest.Options{Username: "admin", Password: "pw", Users: map[string]string{"viewer": "v"}})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 2)
	base := c.URLs(1)[0]
	decom := base + "/v1/brokers/" + itoa(ids[1]) + "/decommission"
	basic := func(u, p string) map[string]string {
		r, _ := http.NewRequest("GET", "http://x", nil)
		r.SetBasicAuth(u, p)
		return map[string]string{"Authorization": r.Header.Get("Authorization")}
	}
	for _, tc := range []struct {
		name, method, url string
		header            map[string]string
		status            int
		message           string
	}{
		{"no credentials, user route", "GET", base + "/v1/brokers", nil, 401, "Forbidden (authentication is required)"},
		{"no credentials, superuser route", "PUT", decom, nil, 403, "Forbidden (superuser role required)"},
		{"no credentials, public route", "GET", base + "/v1/cluster/health_overview", nil, 200, ""},
		{"wrong password", "GET", base + "/v1/brokers", basic("admin", "nope"), 401, "Unauthorized"},
		{"unknown user", "GET", base + "/v1/brokers", basic("who", "x"), 401, "Unauthorized"},
		{"user on a user route", "GET", base + "/v1/brokers", basic("viewer", "v"), 200, ""},
		{"user on a superuser route", "PUT", decom, basic("viewer", "v"), 403, "Forbidden (superuser role required)"},
		{"user asks node_config", "GET", base + "/v1/node_config", basic("viewer", "v"), 403, "Forbidden (superuser role required)"},
		{"malformed base64", "GET", base + "/v1/brokers", map[string]string{"Authorization": "Basic !!!"}, 400, "Malformed Authorization header"},
		{"no password", "GET", base + "/v1/brokers", map[string]string{"Authorization": "Basic YWRtaW46"}, 400, "Malformed Authorization header"},
		{"other scheme", "GET", base + "/v1/brokers", map[string]string{"Authorization": "Token x"}, 400, "Unsupported Authorization method"},
		{"superuser", "PUT", decom, basic("admin", "pw"), 200, ""},
	} {
		status, body := do(t, tc.method, tc.url, tc.header)
		if status != tc.status || !strings.Contains(body, tc.message) {
			t.Errorf("%s: %d %s, want %d %q", tc.name, status, body, tc.status, tc.message)
		}
	}
	// The client maps them exactly.
	anon, _ := admin.NewClient(admin.Config{URLs: c.URLs(2)})
	if _, err := anon.Brokers(context.Background()); !errors.Is(err, admin.ErrUnauthorized) {
		t.Errorf("anonymous list: %v", err)
	}
	viewer, _ := admin.NewClient(admin.Config{URLs: c.URLs(2), Username: "viewer", Password: "v"})
	if err := viewer.Recommission(context.Background(), ids[1]); !errors.Is(err, admin.ErrForbidden) {
		t.Errorf("viewer recommission: %v", err)
	}
	if calls := c.Calls(); calls[len(calls)-1].User != "viewer" {
		t.Errorf("call log user = %q, want viewer", calls[len(calls)-1].User)
	}
}

func TestTLSWithARuntimeCA(t *testing.T) {
	s, _ := newSim(t, admintest.Options{TLS: true})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 2)
	if !strings.HasPrefix(s.BrokerAddressTemplate(), "https://") || !strings.HasPrefix(c.URLs(1)[0], "https://") {
		t.Fatalf("TLS URLs: %s %v", s.BrokerAddressTemplate(), c.URLs(1))
	}
	if _, err := clientFor(t, c, 2).Broker(context.Background(), ids[0]); err != nil {
		t.Fatalf("with the CA: %v", err)
	}
	noCA, _ := admin.NewClient(admin.Config{URLs: c.URLs(2), Timeout: 5 * time.Second})
	if _, err := noCA.Brokers(context.Background()); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("without the CA: %v, want a certificate error", err)
	}
}

func TestRedirectToTheControllerLeader(t *testing.T) {
	s, _ := newSim(t, admintest.Options{Username: "admin", Password: "pw"})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 3) // the leader is the lowest alive node: ordinal 0
	c.SetBrokerFault(2, admintest.Fault{Redirect: true, Method: http.MethodPut})
	cl, _ := admin.NewClient(admin.Config{URLs: c.URLs(3)[2:], Username: "admin", Password: "pw"})
	if err := cl.Decommission(context.Background(), ids[1]); !errors.Is(err, admin.ErrUnavailable) {
		t.Fatalf("a client that knows only ordinal 2 must not follow to ordinal 0: %v", err)
	}
	full := clientFor(t, c, 3)
	// Start with ordinal 2: its 307 is followed to the leader, with the credentials.
	cl2, _ := admin.NewClient(admin.Config{URLs: []string{c.URLs(3)[2], c.URLs(3)[0]}, Username: "admin", Password: "pw"})
	if err := cl2.Decommission(context.Background(), ids[1]); err != nil {
		t.Fatalf("followed redirect: %v", err)
	}
	calls := c.Calls()
	last := calls[len(calls)-2:]
	if last[0].Ordinal != 2 || last[0].Status != 307 || last[1].Ordinal != 0 || last[1].Status != 200 || last[1].User != "admin" {
		t.Errorf("calls = %v, want 307 from ordinal 2 then 200 from the leader as admin", last)
	}
	if d := s.DoubleDecommissions(); len(d) != 0 {
		t.Errorf("double decommissions: %v", d)
	}
	_ = full
}

func TestTimeoutAnswers504AfterTheNodeOperationTimeout(t *testing.T) {
	s, clock := newSim(t, admintest.Options{NodeOperationTimeout: 5 * time.Second})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 2)
	holding := make(chan struct{}, 1)
	c.SetFault(admintest.Fault{Timeout: true, Method: http.MethodPut, Times: 1, Holding: holding})
	errc := make(chan error, 1)
	go func() { errc <- clientFor(t, c, 1).EnableMaintenance(context.Background(), ids[1]) }()
	select {
	case <-holding: // the handler waits on the clock before it signals
	case err := <-errc:
		t.Fatalf("the call ended before the broker held it: %v", err)
	}
	clock.Advance(4 * time.Second)
	select {
	case err := <-errc:
		t.Fatalf("answered before the timeout: %v", err)
	default:
	}
	clock.Advance(time.Second)
	err := <-errc
	var apiErr *admin.Error
	if !errors.Is(err, admin.ErrUnavailable) || !errors.As(err, &apiErr) || apiErr.StatusCode != 504 {
		t.Fatalf("err = %v, want 504", err)
	}
	if b, _ := clientFor(t, c, 1).Broker(context.Background(), ids[1]); b.MaintenanceStatus.Draining {
		t.Errorf("the timed-out call acted")
	}
}

func TestMissingHealthReport(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	joinAll(c, 2)
	c.SetHealthReportMissing(true)
	cl := clientFor(t, c, 2)
	if _, err := cl.Brokers(context.Background()); !errors.Is(err, admin.ErrUnavailable) {
		t.Errorf("list: %v, want 503", err)
	}
	h, err := cl.HealthOverview(context.Background())
	if err != nil || h.IsHealthy || !slices.Contains(h.UnhealthyReasons, "no_health_report") {
		t.Errorf("health = %+v, %v", h, err)
	}
	c.SetHealthReportMissing(false)
	if _, err := cl.Brokers(context.Background()); err != nil {
		t.Errorf("after the report is back: %v", err)
	}
}

func TestDrainStuckUntilAScaleUp(t *testing.T) {
	s, clock := newSim(t, admintest.Options{DrainTime: time.Minute})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 3)
	c.SetReplicationFactor(3)
	cl := clientFor(t, c, 3)
	ctx := context.Background()
	if err := cl.Decommission(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	st, err := cl.DecommissionStatus(ctx, ids[2])
	if err != nil || st.Finished || st.ReplicasLeft == 0 || len(st.AllocationFailures) == 0 || st.MovingPartitions != 0 {
		t.Fatalf("stuck drain = %+v, %v; want replicas left and allocation failures", st, err)
	}
	// A draining broker still holds its replicas: nothing is under-replicated until one is down.
	if h, _ := cl.HealthOverview(ctx); !h.IsHealthy {
		t.Errorf("stuck drain, all alive: %+v", h)
	}
	c.Down(0)
	if h, _ := cl.HealthOverview(ctx); h.IsHealthy || !slices.Contains(h.UnderReplicatedPartitions, "kafka/simulated/0") {
		t.Errorf("rf 3 with a broker down: %+v, want under-replicated partitions", h)
	}
	c.Join(0)
	c.Join(3) // scale-up: a fourth broker gives the replicas a place
	clock.Advance(30 * time.Second)
	st, _ = cl.DecommissionStatus(ctx, ids[2])
	if st.Finished || len(st.AllocationFailures) != 0 || st.ReplicasLeft == 0 {
		t.Fatalf("half-way after the scale-up: %+v", st)
	}
	clock.Advance(30 * time.Second)
	if st, _ = cl.DecommissionStatus(ctx, ids[2]); !st.Finished {
		t.Fatalf("after the scale-up and the drain time: %+v", st)
	}
}

func TestMaintenanceDrainsLeadershipOverTime(t *testing.T) {
	s, clock := newSim(t, admintest.Options{ReplicasPerBroker: 10})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 3)
	c.SetMaintenanceDrainTime(10 * time.Second)
	cl := clientFor(t, c, 3)
	ctx := context.Background()
	if err := cl.EnableMaintenance(ctx, ids[1]); err != nil {
		t.Fatal(err)
	}
	b, _ := cl.Broker(ctx, ids[1])
	if m := b.MaintenanceStatus; !m.Draining || m.Finished || m.Transferring != 10 || m.Partitions != 10 {
		t.Fatalf("at the start: %+v", m)
	}
	clock.Advance(5 * time.Second)
	if b, _ = cl.Broker(ctx, ids[1]); b.MaintenanceStatus.Transferring != 5 || b.MaintenanceStatus.Finished {
		t.Fatalf("half-way: %+v", b.MaintenanceStatus)
	}
	clock.Advance(5 * time.Second)
	if b, _ = cl.Broker(ctx, ids[1]); !b.MaintenanceStatus.Finished || !b.MaintenanceStatus.Draining {
		t.Fatalf("done: %+v", b.MaintenanceStatus)
	}
}

func TestRestartWithANewVersionAndOverlaps(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 3)
	cl := clientFor(t, c, 3)
	ctx := context.Background()
	c.SetPodVersion(2, "v24.3.1")
	c.Down(2)
	if h, _ := cl.HealthOverview(ctx); h.IsHealthy || !slices.Equal(h.NodesDown, ids[2:]) {
		t.Errorf("with ordinal 2 restarting: %+v", h)
	}
	if got := c.Join(2); got != ids[2] {
		t.Fatalf("restart changed the node ID: %d", got)
	}
	brokers, _ := cl.Brokers(ctx)
	if brokers[2].Version != "v24.3.1" || brokers[0].Version != admintest.DefaultVersion {
		t.Errorf("versions = %q %q", brokers[2].Version, brokers[0].Version)
	}
	if o := s.Overlaps(); len(o) != 0 {
		t.Fatalf("one restart at a time is no overlap: %v", o)
	}
	_ = cl.EnableMaintenance(ctx, ids[1])
	c.Down(0)
	if o := s.Overlaps(); len(o) != 1 || !strings.Contains(o[0], "in maintenance") {
		t.Fatalf("overlaps = %v, want ordinal 0 restarting while ordinal 1 is in maintenance", o)
	}
}

func TestGhostsAndRefusedRejoin(t *testing.T) {
	s, _ := newSim(t, admintest.Options{DrainTime: 0})
	c := s.Cluster("ns", "c")
	c.SetPodVolume(0, "pvc-a")
	c.SetPodVolume(1, "pvc-b")
	ids := joinAll(c, 2)
	ghost := c.AddGhost()
	cl := clientFor(t, c, 2)
	ctx := context.Background()
	brokers, _ := cl.Brokers(ctx)
	if len(brokers) != 3 || brokers[2].NodeID != ghost || brokers[2].IsAlive || brokers[2].MembershipStatus != admin.MembershipActive {
		t.Fatalf("brokers = %+v, want the ghost active and not alive", brokers)
	}
	if err := cl.Decommission(ctx, ids[1]); err != nil {
		t.Fatal(err)
	}
	c.FinishDrains()
	c.Leave(1)
	if got := c.Join(1); got != -1 { // same volume: refused
		t.Fatalf("rejoin with a decommissioned node's data got node %d", got)
	}
	if r := s.RefusedJoins(); len(r) != 1 || !strings.Contains(r[0], "Preventing decommissioned node") {
		t.Fatalf("RefusedJoins = %v", r)
	}
	c.Leave(1)
	c.SetPodVolume(1, "pvc-b2")
	if got := c.Join(1); got < 0 || got == ids[1] {
		t.Fatalf("a fresh volume must join as a fresh broker, got %d", got)
	}
}

func TestAdvertiseLoopbackNeverNamesThePod(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	c.SetAdvertiseLoopback(true)
	ids := joinAll(c, 2)
	cl := clientFor(t, c, 2)
	brokers, _ := cl.Brokers(context.Background())
	for _, b := range brokers {
		if _, ok := admin.OrdinalFromAddress(b.InternalRPCAddress, "c"); ok || b.InternalRPCAddress != "127.0.0.1" {
			t.Errorf("broker %+v names its pod", b)
		}
	}
	nc, err := cl.NodeConfig(context.Background(), 1)
	if err != nil || nc.NodeID != ids[1] || nc.AdvertisedRPCAddress != "127.0.0.1" {
		t.Errorf("NodeConfig(1) = %+v, %v; node_config still tells the ID", nc, err)
	}
}

func TestOneSecureClusterBesidePlainOnes(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	plain := s.Cluster("ns", "plain")
	secure, err := s.NewCluster("ns", "secure", admintest.Security{TLS: true, Username: "admin", Password: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.NewCluster("ns", "secure", admintest.Security{}); err == nil {
		t.Error("NewCluster of an existing cluster succeeded")
	}
	if s.Cluster("ns", "secure") != secure {
		t.Error("Cluster did not return the secure cluster")
	}
	joinAll(plain, 2)
	ids := joinAll(secure, 2)
	if !strings.HasPrefix(secure.URLs(1)[0], "https://") || !strings.HasPrefix(plain.URLs(1)[0], "http://") {
		t.Fatalf("URLs %v %v", secure.URLs(1), plain.URLs(1))
	}
	if _, err := clientFor(t, plain, 2).Brokers(context.Background()); err != nil {
		t.Errorf("plain cluster: %v", err)
	}
	if err := clientFor(t, secure, 2).EnableMaintenance(context.Background(), ids[1]); err != nil {
		t.Errorf("secure cluster with its config: %v", err)
	}
	noCreds, _ := admin.NewClient(admin.Config{URLs: secure.URLs(2), CACertPEM: s.CACertPEM()})
	if err := noCreds.DisableMaintenance(context.Background(), ids[1]); !errors.Is(err, admin.ErrForbidden) {
		t.Errorf("secure cluster without credentials: %v, want 403", err)
	}
}

func TestControllerLeaderCanMove(t *testing.T) {
	s, _ := newSim(t, admintest.Options{})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 3)
	c.SetControllerLeader(2)
	cl := clientFor(t, c, 3)
	if h, _ := cl.HealthOverview(context.Background()); h.ControllerID != ids[2] {
		t.Fatalf("controller = %d, want %d", h.ControllerID, ids[2])
	}
	c.SetBrokerFault(0, admintest.Fault{Redirect: true})
	if err := cl.EnableMaintenance(context.Background(), ids[1]); err != nil {
		t.Fatal(err)
	}
	calls := c.Calls()
	if last := calls[len(calls)-1]; last.Ordinal != 2 || last.Status != 200 {
		t.Errorf("last call %v, want the redirect followed to the new leader, ordinal 2", last)
	}
	c.Down(2)
	if h, _ := cl.HealthOverview(context.Background()); h.ControllerID != ids[0] {
		t.Errorf("with the chosen leader down: controller %d, want the lowest alive %d", h.ControllerID, ids[0])
	}
}

func TestManyClustersFindPorts(t *testing.T) {
	// 100 clusters of 8 ports: aligned blocks, each its own.
	s, _ := newSim(t, admintest.Options{PortsPerCluster: 8})
	seen := map[int]bool{}
	for i := range 100 {
		c := s.Cluster("ns", "c"+itoa(i))
		if p := c.AdminPort(); seen[p] || p%8 != 0 {
			t.Fatalf("cluster %d got port %d (aligned blocks, never shared)", i, p)
		} else {
			seen[p] = true
		}
	}
}
