package admin

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzLimit is a small body cap, so the fuzzer reaches it often.
const fuzzLimit = 4096

func FuzzDecodeBrokers(f *testing.F) {
	for _, seed := range []string{
		brokersBody,
		`[]`,
		`[{"node_id":0,"membership_status":"active"}]`,
		`[{"node_id":1,"membership_status":"draining","is_alive":true,"internal_rpc_address":"c-1.c.ns.svc.cluster.local","internal_rpc_port":33145}]`,
		`[{"node_id":1,"membership_status":"active"},{"node_id":1,"membership_status":"active"}]`,
		`[{"node_id":-1,"membership_status":"active"}]`,
		`[{"node_id":2147483648,"membership_status":"active"}]`,
		`[{"node_id":1.5,"membership_status":"active"}]`,
		`[{"node_id":1,"membership_status":"active","internal_rpc_port":70000}]`,
		`[{"node_id":1,"membership_status":"active","version":"v24.2.4","maintenance_status":{"draining":true,"finished":false,"errors":true,"partitions":5,"eligible":4,"transferring":2,"failed":1}}]`,
		`[{"node_id":1,"membership_status":"active","maintenance_status":{"draining":true,"partitions":-1}}]`,
		`[{"node_id":1,"membership_status":"active","rack":"a","disk_space":[{"path":"/d","free":5,"total":10}]}]`,
		`[{"node_id":1,"membership_status":"active","disk_space":[{"path":"/d","free":11,"total":10}]}]`,
		`[null]`, `null`, ``, `[`, `[{"node_id":1,"membership_st`, `{"node_id":1}`, `"text"`,
		`[{"node_id":1,"membership_status":"active"}] trailing`,
		strings.Repeat("[", 200),
		`[{"node_id":1e400,"membership_status":"active"}]`,
		"[{\"node_id\":1,\"membership_status\":\"\xff\xfe\"}]",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		brokers, err := decodeBrokers(bytes.NewReader(data), fuzzLimit)
		checkErrorMessage(t, data)
		if len(data) > fuzzLimit && err == nil {
			t.Fatalf("a %d-byte body beyond the %d-byte cap was accepted", len(data), fuzzLimit)
		}
		if err != nil {
			return
		}
		seen := map[int]bool{}
		for _, b := range brokers {
			if b.NodeID < 0 || b.NodeID > math.MaxInt32 || seen[b.NodeID] {
				t.Fatalf("invalid or duplicate node ID accepted: %+v", brokers)
			}
			seen[b.NodeID] = true
			m := b.MaintenanceStatus
			if b.MembershipStatus == "" || b.InternalRPCPort < 0 || b.InternalRPCPort > 65535 ||
				min(m.Partitions, m.Eligible, m.Transferring, m.Failed) < 0 || b.Disk.Free < 0 || b.Disk.Free > b.Disk.Total {
				t.Fatalf("invalid broker accepted: %+v", b)
			}
		}
		// What was accepted survives a round trip through the wire format.
		again, err := decodeBrokers(bytes.NewReader(encodeBrokers(t, brokers)), math.MaxInt32)
		if err != nil || !slices.Equal(again, brokers) {
			t.Fatalf("round trip: %+v, %v; want %+v", again, err, brokers)
		}
	})
}

func FuzzDecodeDecommissionStatus(f *testing.F) {
	for _, seed := range []string{
		`{"finished":true,"replicas_left":0,"allocation_failures":[],"partitions":[]}`,
		`{"finished":false,"replicas_left":7,"allocation_failures":["kafka/t/1"],"partitions":[{"ns":"kafka","topic":"t","partition":1,"moving_to":{"node_id":3,"core":0},"bytes_left_to_move":10}]}`,
		`{"finished":false}`, `{"replicas_left":3}`, `{"finished":"yes"}`, `{"finished":false,"replicas_left":-1}`,
		`{"finished":false,"replicas_left":99999999999}`, `{"finished":true,"partitions":null}`,
		`null`, `[]`, ``, `{`, `{"finished":tru`, `{"finished":true}{}`,
		strings.Repeat(`{"a":`, 300),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := decodeDecommissionStatus(bytes.NewReader(data), fuzzLimit)
		checkErrorMessage(t, data)
		if len(data) > fuzzLimit && err == nil {
			t.Fatalf("a %d-byte body beyond the %d-byte cap was accepted", len(data), fuzzLimit)
		}
		if err != nil {
			return
		}
		if st.ReplicasLeft < 0 || st.MovingPartitions < 0 {
			t.Fatalf("negative counts accepted: %+v", st)
		}
	})
}

// checkErrorMessage asserts that any body yields a short, valid message.
func checkErrorMessage(t *testing.T, data []byte) {
	msg := errorMessage(data)
	if len(msg) > maxMessageLen+len("...") || !utf8.ValidString(msg) {
		t.Fatalf("errorMessage returned %d bytes, valid UTF-8 %v", len(msg), utf8.ValidString(msg))
	}
}

// encodeBrokers writes brokers in the API's wire format.
func encodeBrokers(t *testing.T, brokers []Broker) []byte {
	t.Helper()
	wire := make([]map[string]any, 0, len(brokers))
	for _, b := range brokers {
		w := map[string]any{
			"node_id": b.NodeID, "membership_status": string(b.MembershipStatus), "is_alive": b.IsAlive,
			"internal_rpc_address": b.InternalRPCAddress, "internal_rpc_port": b.InternalRPCPort,
			"version": b.Version,
			"maintenance_status": map[string]any{
				"draining": b.MaintenanceStatus.Draining, "finished": b.MaintenanceStatus.Finished,
				"errors": b.MaintenanceStatus.Errors, "partitions": b.MaintenanceStatus.Partitions,
				"eligible": b.MaintenanceStatus.Eligible, "transferring": b.MaintenanceStatus.Transferring,
				"failed": b.MaintenanceStatus.Failed,
			},
		}
		if b.Rack != "" {
			w["rack"] = b.Rack
		}
		if b.Disk.Known {
			w["disk_space"] = []map[string]any{{"path": "/var/lib/redpanda/data", "free": b.Disk.Free, "total": b.Disk.Total}}
		}
		wire = append(wire, w)
	}
	data, err := json.Marshal(wire)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestDecodeRejectsWhatTheAPINeverSends(t *testing.T) {
	for _, body := range []string{`null`, ``, `[{"node_id":1}]`, `[{"membership_status":"active"}]`, `[1]`} {
		if _, err := decodeBrokers(strings.NewReader(body), fuzzLimit); err == nil {
			t.Errorf("decodeBrokers(%q) accepted it", body)
		}
	}
	for _, body := range []string{`null`, `{}`, `{"finished":null}`} {
		if _, err := decodeDecommissionStatus(strings.NewReader(body), fuzzLimit); err == nil {
			t.Errorf("decodeDecommissionStatus(%q) accepted it", body)
		}
	}
}

func FuzzDecodeHealthOverview(f *testing.F) {
	for _, seed := range []string{
		`{"is_healthy":true,"unhealthy_reasons":[],"controller_id":1,"all_nodes":[1,2],"nodes_down":[],"leaderless_partitions":[],"leaderless_count":0,"under_replicated_partitions":[],"under_replicated_count":0,"bytes_in_cloud_storage":-1}`,
		`{"is_healthy":false,"unhealthy_reasons":["nodes_down"],"controller_id":-1,"nodes_down":[2]}`,
		`{"is_healthy":true,"controller_id":-2}`, `{"is_healthy":true,"all_nodes":[-1]}`, `{"is_healthy":true,"leaderless_count":-1}`,
		`{}`, `null`, `[]`, ``, `{"is_healthy":tru`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := decodeHealthOverview(bytes.NewReader(data), fuzzLimit)
		if err != nil {
			return
		}
		if h.ControllerID < -1 || h.LeaderlessCount < len(h.LeaderlessPartitions) || h.UnderReplicatedCount < len(h.UnderReplicatedPartitions) {
			t.Fatalf("inconsistent overview accepted: %+v", h)
		}
		for _, id := range slices.Concat(h.AllNodes, h.NodesDown, h.NodesInRecoveryMode) {
			if id < 0 {
				t.Fatalf("negative node ID accepted: %+v", h)
			}
		}
	})
}

func FuzzDecodeNodeConfig(f *testing.F) {
	for _, seed := range []string{
		`{"node_id":3,"advertised_rpc_api":{"address":"127.0.0.1","port":33145},"data_directory":{"data_directory":"/var/lib/redpanda/data"}}`,
		`{"node_id":null}`, `{"node_id":-1}`, `{"node_id":3,"advertised_rpc_api":{"port":70000}}`, `{"node_id":3,"advertised_rpc_api":null}`,
		`{}`, `null`, `[]`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		nc, err := decodeNodeConfig(bytes.NewReader(data), fuzzLimit)
		if err != nil {
			return
		}
		if nc.NodeID < 0 || nc.NodeID > math.MaxInt32 || nc.AdvertisedRPCPort < 0 || nc.AdvertisedRPCPort > 65535 {
			t.Fatalf("invalid node config accepted: %+v", nc)
		}
	})
}
