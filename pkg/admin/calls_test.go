package admin

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestBrokerDecodesMaintenanceAndVersion(t *testing.T) {
	rec, url := newBroker(t, http.StatusOK, `{"node_id":3,"num_cores":2,"membership_status":"active",
		"internal_rpc_address":"127.0.0.1","internal_rpc_port":33145,"version":"v24.2.4",
		"maintenance_status":{"draining":true,"finished":false,"errors":false,"partitions":12,"eligible":10,"transferring":4,"failed":0}}`)
	b, err := mustClient(t, Config{URLs: []string{url}}).Broker(context.Background(), 3)
	if err != nil {
		t.Fatal(err)
	}
	want := Broker{NodeID: 3, MembershipStatus: MembershipActive, InternalRPCAddress: "127.0.0.1", InternalRPCPort: 33145,
		Version: "v24.2.4", MaintenanceStatus: MaintenanceStatus{Draining: true, Partitions: 12, Eligible: 10, Transferring: 4}}
	if b != want {
		t.Errorf("Broker = %+v, want %+v", b, want)
	}
	if r := rec.last(); r.Method != http.MethodGet || r.URL.Path != "/v1/brokers/3" {
		t.Errorf("sent %s %s, want GET /v1/brokers/3", r.Method, r.URL.Path)
	}
}

func TestBrokerRefusesAnAnswerAboutAnotherBroker(t *testing.T) {
	_, url := newBroker(t, http.StatusOK, `{"node_id":4,"membership_status":"active"}`)
	if _, err := mustClient(t, Config{URLs: []string{url}}).Broker(context.Background(), 3); !errors.Is(err, ErrBadResponse) {
		t.Fatalf("err = %v, want ErrBadResponse", err)
	}
}

func TestHealthOverviewDecodesRedpandasFields(t *testing.T) {
	rec, url := newBroker(t, http.StatusOK, `{"is_healthy":false,"unhealthy_reasons":["nodes_down","under_replicated_partitions"],
		"controller_id":101,"all_nodes":[101,102,103],"nodes_down":[103],"nodes_in_recovery_mode":[],
		"leaderless_partitions":[],"leaderless_count":0,
		"under_replicated_partitions":["kafka/t/0"],"under_replicated_count":200,"bytes_in_cloud_storage":-1}`)
	h, err := mustClient(t, Config{URLs: []string{url}}).HealthOverview(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h.IsHealthy || h.ControllerID != 101 || !slices.Equal(h.AllNodes, []int{101, 102, 103}) || !slices.Equal(h.NodesDown, []int{103}) ||
		!slices.Equal(h.UnhealthyReasons, []string{"nodes_down", "under_replicated_partitions"}) ||
		h.UnderReplicatedCount != 200 || !slices.Equal(h.UnderReplicatedPartitions, []string{"kafka/t/0"}) || h.LeaderlessCount != 0 {
		t.Errorf("HealthOverview = %+v", h)
	}
	if r := rec.last(); r.URL.Path != "/v1/cluster/health_overview" {
		t.Errorf("path %s", r.URL.Path)
	}
}

func TestHealthOverviewDefaultsForOlderReleases(t *testing.T) {
	_, url := newBroker(t, http.StatusOK, `{"is_healthy":true,"all_nodes":[1],"nodes_down":[],"leaderless_partitions":["kafka/a/0","kafka/a/1"]}`)
	h, err := mustClient(t, Config{URLs: []string{url}}).HealthOverview(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h.ControllerID != -1 || h.LeaderlessCount != 2 {
		t.Errorf("HealthOverview = %+v, want no controller and the list's length as count", h)
	}
	for _, body := range []string{`{}`, `{"is_healthy":true,"nodes_down":[-2]}`, `{"is_healthy":true,"controller_id":-7}`, `[]`} {
		_, url := newBroker(t, http.StatusOK, body)
		if _, err := mustClient(t, Config{URLs: []string{url}}).HealthOverview(context.Background()); !errors.Is(err, ErrBadResponse) {
			t.Errorf("%s: err = %v, want ErrBadResponse", body, err)
		}
	}
}

func TestMaintenanceUsesPutAndDelete(t *testing.T) {
	rec, url := newBroker(t, http.StatusOK, `{}`)
	c := mustClient(t, Config{URLs: []string{url}})
	if err := c.EnableMaintenance(context.Background(), 7); err != nil {
		t.Fatal(err)
	}
	if r := rec.last(); r.Method != http.MethodPut || r.URL.Path != "/v1/brokers/7/maintenance" {
		t.Errorf("enable sent %s %s", r.Method, r.URL.Path)
	}
	if err := c.DisableMaintenance(context.Background(), 7); err != nil {
		t.Fatal(err)
	}
	if r := rec.last(); r.Method != http.MethodDelete || r.URL.Path != "/v1/brokers/7/maintenance" {
		t.Errorf("disable sent %s %s", r.Method, r.URL.Path)
	}
}

func TestNodeConfigAsksOnlyTheBrokerAtThatOrdinal(t *testing.T) {
	other, otherURL := newBroker(t, http.StatusOK, `{"node_id":1}`)
	down := refusingURL(t)
	c := mustClient(t, Config{URLs: []string{otherURL, down}})
	if _, err := c.NodeConfig(context.Background(), 1); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable from the down broker", err)
	}
	if other.count() != 0 {
		t.Fatalf("NodeConfig(1) asked broker 0 (%d requests): it must never fail over", other.count())
	}
	nc, err := c.NodeConfig(context.Background(), 0)
	if err != nil || nc.NodeID != 1 {
		t.Fatalf("NodeConfig(0) = %+v, %v", nc, err)
	}
	if r := other.last(); r.Method != http.MethodGet || r.URL.Path != "/v1/node_config" {
		t.Errorf("sent %s %s", r.Method, r.URL.Path)
	}
	for _, ordinal := range []int{-1, 2} {
		if _, err := c.NodeConfig(context.Background(), ordinal); err == nil || !strings.Contains(err.Error(), "no broker URL") {
			t.Errorf("NodeConfig(%d) = %v, want a clear error", ordinal, err)
		}
	}
}

func TestNodeConfigDecodesNodeIDAndAddresses(t *testing.T) {
	_, url := newBroker(t, http.StatusOK, `{"data_directory":{"data_directory":"/var/lib/redpanda/data"},"node_id":104,
		"rpc_server":{"address":"0.0.0.0","port":33145},"advertised_rpc_api":{"address":"127.0.0.1","port":33145},"seed_servers":[]}`)
	nc, err := mustClient(t, Config{URLs: []string{url}}).NodeConfig(context.Background(), 0)
	want := NodeConfig{NodeID: 104, AdvertisedRPCAddress: "127.0.0.1", AdvertisedRPCPort: 33145, DataDirectory: "/var/lib/redpanda/data"}
	if err != nil || nc != want {
		t.Fatalf("NodeConfig = %+v, %v; want %+v", nc, err, want)
	}
	for _, body := range []string{`{"node_id":null}`, `{}`, `{"node_id":-1}`, `{"node_id":"1"}`} {
		_, url := newBroker(t, http.StatusOK, body)
		if _, err := mustClient(t, Config{URLs: []string{url}}).NodeConfig(context.Background(), 0); !errors.Is(err, ErrBadResponse) {
			t.Errorf("%s: err = %v, want ErrBadResponse (never a guessed node ID)", body, err)
		}
	}
}

func TestPostRestartProbeDecodesLoadReclaimed(t *testing.T) {
	for body, want := range map[string]int{`{"load_reclaimed_pc":0}`: 0, `{"load_reclaimed_pc":73}`: 73, `{"load_reclaimed_pc":100}`: 100} {
		rec, url := newBroker(t, http.StatusOK, body)
		pc, err := mustClient(t, Config{URLs: []string{url}}).PostRestartProbe(context.Background(), 0)
		if err != nil || pc != want {
			t.Errorf("%s: %d, %v; want %d", body, pc, err, want)
		}
		if r := rec.last(); r.Method != http.MethodGet || r.URL.Path != "/v1/broker/post_restart_probe" {
			t.Errorf("sent %s %s, want GET /v1/broker/post_restart_probe", r.Method, r.URL.Path)
		}
	}
	for _, body := range []string{`{}`, `{"load_reclaimed_pc":101}`, `{"load_reclaimed_pc":-1}`, `[]`} {
		_, url := newBroker(t, http.StatusOK, body)
		if _, err := mustClient(t, Config{URLs: []string{url}}).PostRestartProbe(context.Background(), 0); err == nil {
			t.Errorf("%s: accepted", body)
		}
	}
	// A broker before Redpanda 25.1 has no such route: seastar's 404.
	_, url := newBroker(t, http.StatusNotFound, `{"message":"Not found","code":404}`)
	if _, err := mustClient(t, Config{URLs: []string{url}}).PostRestartProbe(context.Background(), 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("404: %v, want ErrNotFound", err)
	}
}
