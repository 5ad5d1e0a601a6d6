package admintest_test

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"slices"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// getAll GETs url and returns the status and the whole body.
func getAll(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func keys(m map[string]json.RawMessage) []string { return slices.Sorted(maps.Keys(m)) }

// GET /v1/brokers writes the members server.cc get_brokers always writes, and the health report's
// only for brokers that report; a removed broker's decommission status is {finished,
// replicas_left} only, as seastar writes get_decommission_progress_handler's answer.
func TestBrokerListAndRemovedStatusAreRedpandasShape(t *testing.T) {
	s, _ := newSim(t, admintest.Options{DrainTime: 0})
	c := s.Cluster("ns", "c")
	ids := joinAll(c, 3)
	c.Down(2)
	base := c.URLs(1)[0]

	code, body := getAll(t, base+"/v1/brokers")
	var list []map[string]json.RawMessage
	if code != http.StatusOK || json.Unmarshal([]byte(body), &list) != nil || len(list) != 3 {
		t.Fatalf("GET /v1/brokers = %d, %d entries: %s", code, len(list), body)
	}
	always := []string{"in_fips_mode", "internal_rpc_address", "internal_rpc_port", "is_alive", "maintenance_status", "membership_status", "node_id", "num_cores"}
	reporting := slices.Sorted(slices.Values(append(slices.Clone(always), "disk_space", "recovery_mode_enabled", "version")))
	if got := keys(list[0]); !slices.Equal(got, reporting) {
		t.Errorf("a reporting broker's entry has %v, want %v", got, reporting)
	}
	if got := keys(list[2]); !slices.Equal(got, always) {
		t.Errorf("a broker that is down has %v, want %v", got, always)
	}

	if err := clientFor(t, c, 2).Decommission(context.Background(), ids[1]); err != nil {
		t.Fatal(err)
	}
	c.FinishDrains()
	code, body = getAll(t, base+"/v1/brokers/"+itoa(ids[1])+"/decommission")
	var st map[string]json.RawMessage
	if code != http.StatusOK || json.Unmarshal([]byte(body), &st) != nil {
		t.Fatalf("decommission status = %d %s", code, body)
	}
	if got := keys(st); !slices.Equal(got, []string{"finished", "replicas_left"}) || string(st["finished"]) != "true" || string(st["replicas_left"]) != "0" {
		t.Errorf("a removed broker's decommission status is %s, want {finished: true, replicas_left: 0} only", body)
	}
}
