package admin

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// GET /v1/cluster/partitions?with_internal=true: every topic's partitions with their replicas
// (redpanda-data/redpanda src/v/redpanda/admin/api-doc/cluster.json, cluster_partition).
func TestClusterPartitionsDecodesAndAsksForInternalTopics(t *testing.T) {
	rec, url := newBroker(t, http.StatusOK, `[
 {"ns":"kafka","topic":"orders","partition_id":0,"leader_id":1,"replicas":[{"node_id":1,"core":0},{"node_id":2,"core":1},{"node_id":3,"core":0}],"disabled":false},
 {"ns":"kafka_internal","topic":"id_allocator","partition_id":0,"replicas":[{"node_id":2,"core":0}],"disabled":false}
]`)
	c := mustClient(t, Config{URLs: []string{url}})
	got, err := c.ClusterPartitions(context.Background())
	if err != nil {
		t.Fatalf("ClusterPartitions: %v", err)
	}
	if len(got) != 2 || got[0].Namespace != "kafka" || got[0].Topic != "orders" || !slices.Equal(got[0].Replicas, []int{1, 2, 3}) || got[1].Topic != "id_allocator" {
		t.Errorf("ClusterPartitions = %+v", got)
	}
	req := rec.last()
	if req.URL.Path != "/v1/cluster/partitions" || req.URL.RawQuery != "with_internal=true" {
		t.Errorf("request %s?%s, want /v1/cluster/partitions?with_internal=true", req.URL.Path, req.URL.RawQuery)
	}
}

func TestClusterPartitionsRefusesAPartitionWithoutReplicas(t *testing.T) {
	for _, body := range []string{`[{"ns":"kafka","topic":"t","partition_id":0,"replicas":[]}]`, `[{"ns":"kafka","topic":"t","replicas":[{"node_id":1}]}]`, `{}`} {
		if _, err := decodeClusterPartitions(strings.NewReader(body), 1<<20); err == nil {
			t.Errorf("decodeClusterPartitions(%s) accepted it", body)
		}
	}
}
