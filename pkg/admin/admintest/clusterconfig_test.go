package admintest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// newConfigCluster starts a simulator with one cluster of brokers joined and a client of its
// cluster configuration endpoints; ids are the brokers' node IDs by ordinal.
func newConfigCluster(t *testing.T, brokers int) (c *admintest.Cluster, cl admin.ClusterConfigClient, ids []int) {
	t.Helper()
	s, _ := newSim(t, admintest.Options{})
	c = s.Cluster("ns", "c")
	ids = joinAll(c, brokers)
	cl, err := admin.NewClusterConfigClient(c.Config(brokers))
	if err != nil {
		t.Fatal(err)
	}
	return c, cl, ids
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func TestClusterConfigWriteBumpsVersionAndNoOpDoesNot(t *testing.T) {
	_, cl, _ := newConfigCluster(t, 3)
	ctx := context.Background()

	first, err := cl.PatchClusterConfig(ctx, admin.ConfigPatch{Upsert: map[string]json.RawMessage{"auto_create_topics_enabled": raw("true")}})
	if err != nil {
		t.Fatal(err)
	}
	again, err := cl.PatchClusterConfig(ctx, admin.ConfigPatch{Upsert: map[string]json.RawMessage{"auto_create_topics_enabled": raw(`"true"`)}})
	if err != nil {
		t.Fatal(err)
	}
	if again.ConfigVersion != first.ConfigVersion {
		t.Errorf("upserting the value a property has already gave version %d, want the current %d", again.ConfigVersion, first.ConfigVersion)
	}
	dry, err := cl.PatchClusterConfig(ctx, admin.ConfigPatch{Upsert: map[string]json.RawMessage{"log_segment_size": raw("2097152")}, DryRun: true})
	if err != nil || dry.ConfigVersion != first.ConfigVersion {
		t.Fatalf("dry run: %+v, %v; want version %d and no write", dry, err, first.ConfigVersion)
	}
	second, err := cl.PatchClusterConfig(ctx, admin.ConfigPatch{Remove: []string{"auto_create_topics_enabled"}})
	if err != nil || second.ConfigVersion != first.ConfigVersion+1 {
		t.Fatalf("remove: %+v, %v; want version %d", second, err, first.ConfigVersion+1)
	}

	set, err := cl.ClusterConfig(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(set) != 0 {
		t.Errorf("after the dry run and the remove, properties set away from defaults = %v, want none", set)
	}
	all, err := cl.ClusterConfig(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if string(all["log_segment_size"]) != "134217728" {
		t.Errorf("log_segment_size = %s, want the default 134217728 (the dry run must not apply)", all["log_segment_size"])
	}
}

// A property written with its default value is not "set": Redpanda's GET without defaults
// filters on the value (config/property.h, is_default).
func TestClusterConfigWithoutDefaultsLeavesOutValuesEqualToTheirDefault(t *testing.T) {
	_, cl, _ := newConfigCluster(t, 3)
	ctx := context.Background()

	if _, err := cl.PatchClusterConfig(ctx, admin.ConfigPatch{Upsert: map[string]json.RawMessage{
		"enable_sasl": raw("true"), "sasl_mechanisms": raw(`["SCRAM"]`),
	}}); err != nil {
		t.Fatal(err)
	}
	set, err := cl.ClusterConfig(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(set) != 1 || string(set["enable_sasl"]) != "true" {
		t.Errorf("properties away from their defaults = %s, want only enable_sasl", set)
	}
}

func TestClusterConfigValidationErrorsChangeNothing(t *testing.T) {
	_, cl, _ := newConfigCluster(t, 3)
	ctx := context.Background()

	_, err := cl.PatchClusterConfig(ctx, admin.ConfigPatch{Upsert: map[string]json.RawMessage{
		"log_segment_size":           raw("1024"),
		"default_topic_replications": raw("2"),
		"no_such_property":           raw("1"),
		"enable_sasl":                raw(`"maybe"`),
		"auto_create_topics_enabled": raw("true"),
	}})
	var ve *admin.ConfigValidationError
	if !errors.As(err, &ve) || !errors.Is(err, admin.ErrBadRequest) {
		t.Fatalf("err = %v, want a *ConfigValidationError matching ErrBadRequest", err)
	}
	want := map[string]string{
		"log_segment_size":           "too small, must be at least 1048576",
		"default_topic_replications": "value must be odd",
		"no_such_property":           "Unknown property",
		"enable_sasl":                "expected type boolean",
	}
	if !reflect.DeepEqual(ve.Properties, want) {
		t.Errorf("validation errors = %v, want %v", ve.Properties, want)
	}
	set, err := cl.ClusterConfig(ctx, false)
	if err != nil || len(set) != 0 {
		t.Errorf("a refused write applied %v (err %v); it must change nothing", set, err)
	}
}

func TestClusterConfigForceAcceptsUnknownAndReportsIt(t *testing.T) {
	_, cl, _ := newConfigCluster(t, 2)
	ctx := context.Background()
	if _, err := cl.PatchClusterConfig(ctx, admin.ConfigPatch{Upsert: map[string]json.RawMessage{"no_such_property": raw("1")}, Force: true}); err != nil {
		t.Fatal(err)
	}
	st, err := cl.ClusterConfigStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range st {
		if !reflect.DeepEqual(n.Unknown, []string{"no_such_property"}) || len(n.Invalid) != 0 {
			t.Errorf("node %d: unknown %v invalid %v, want the forced property unknown", n.NodeID, n.Unknown, n.Invalid)
		}
	}
}

func TestClusterConfigRestartFlagUntilBrokerRestarts(t *testing.T) {
	c, cl, ids := newConfigCluster(t, 3)
	ctx := context.Background()

	// enable_rack_awareness needs no restart.
	res, err := cl.PatchClusterConfig(ctx, admin.ConfigPatch{Upsert: map[string]json.RawMessage{"enable_rack_awareness": raw("true")}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := cl.ClusterConfigStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range st {
		if n.Restart || n.ConfigVersion != res.ConfigVersion {
			t.Fatalf("after enable_rack_awareness: node %d restart=%t version=%d, want false and %d", n.NodeID, n.Restart, n.ConfigVersion, res.ConfigVersion)
		}
	}

	// kafka_rpc_server_tcp_recv_buf needs one (configuration.cc: no needs_restart::no).
	c.Down(2) // broker of ordinal 2 is not running when the write happens
	res, err = cl.PatchClusterConfig(ctx, admin.ConfigPatch{Upsert: map[string]json.RawMessage{"kafka_rpc_server_tcp_recv_buf": raw("65536")}})
	if err != nil {
		t.Fatal(err)
	}
	c.Down(0)
	c.Join(0) // ordinal 0 restarts
	c.Join(2) // ordinal 2 starts with the new config
	st, err = cl.ClusterConfigStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]bool{}
	for _, n := range st {
		got[n.NodeID] = n.Restart
		if n.ConfigVersion != res.ConfigVersion {
			t.Errorf("node %d at version %d, want %d", n.NodeID, n.ConfigVersion, res.ConfigVersion)
		}
	}
	want := map[int]bool{ids[0]: false, ids[1]: true, ids[2]: false}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("restart flags by node = %v, want %v (only the broker that kept running waits)", got, want)
	}
}

func TestClusterConfigWireShapes(t *testing.T) {
	s, _ := newSim(t, admintest.Options{Username: "admin", Password: "pw"})
	c := s.Cluster("ns", "c")
	joinAll(c, 1)
	base := c.URLs(1)[0]
	do := func(method, path, body string, auth bool) (int, string) {
		req, _ := http.NewRequest(method, base+path, bytes.NewBufferString(body))
		if auth {
			req.SetBasicAuth("admin", "pw")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(bytes.TrimSpace(b))
	}
	if code, _ := do(http.MethodGet, "/v1/cluster_config/status", "", false); code != http.StatusForbidden {
		t.Errorf("status without credentials: %d, want 403 (a superuser route)", code)
	}
	if code, body := do(http.MethodPut, "/v1/cluster_config", `{"upsert":{}}`, true); code != http.StatusBadRequest {
		t.Errorf("PUT without remove: %d %s, want 400 (schema requires upsert and remove)", code, body)
	}
	if code, body := do(http.MethodPut, "/v1/cluster_config", `{"upsert":{"x":1},"remove":[]}`, true); code != http.StatusBadRequest || body != `{"x":"Unknown property"}` {
		t.Errorf("PUT unknown: %d %s, want 400 {\"x\":\"Unknown property\"}", code, body)
	}
	if code, body := do(http.MethodGet, "/v1/cluster_config/status", "", true); code != http.StatusOK || body != `[{"node_id":`+itoa(mustNodeID(t, c, 0))+`,"restart":false,"config_version":0,"invalid":[],"unknown":[]}]` {
		t.Errorf("status: %d %s; want empty invalid and unknown lists present", code, body)
	}
	if code, body := do(http.MethodGet, "/v1/cluster_config?key=nope", "", true); code != http.StatusBadRequest {
		t.Errorf("GET unknown key: %d %s, want 400", code, body)
	}
}

func mustNodeID(t *testing.T, c *admintest.Cluster, ordinal int) int {
	t.Helper()
	id, ok := c.NodeID(ordinal)
	if !ok {
		t.Fatalf("no broker at ordinal %d", ordinal)
	}
	return id
}
