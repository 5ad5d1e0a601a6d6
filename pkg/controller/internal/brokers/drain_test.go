package brokers

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

func TestStalledDrainDescribesAllocationFailures(t *testing.T) {
	r := &drainReport{status: admin.DecommissionStatus{ReplicasLeft: 9, AllocationFailures: []string{"kafka/a/0", "kafka/a/1", "kafka/b/0", "kafka/b/1", "kafka/b/2", "kafka/c/0"}}, stalled: true}
	msg := r.describe(7)
	for _, want := range []string{"broker 7", "9 partition replicas left", "6 cannot be placed", "kafka/a/0", "kafka/b/2, ...", "no progress"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
}

// The admin calls of one reconcile share a deadline: brokers that hang one after another
// cannot hold it for the sum of their timeouts.
func TestAdminCallsShareTheReconcileDeadline(t *testing.T) {
	sim := admintest.NewServer(admintest.Options{})
	defer sim.Close()
	cluster := sim.Cluster(testNamespace, testName)
	for o := range 3 {
		cluster.Join(o)
	}
	cluster.SetFault(admintest.Fault{Hang: true})
	cfg := cluster.Config(3)
	cfg.Timeout = 200 * time.Millisecond
	client, err := admin.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithDeadline(context.Background(), time.Now().Add(300*time.Millisecond))
	_, err = BoundByDeadline(ctx, client).Brokers(context.Background())
	if err == nil {
		t.Fatal("a hanging cluster answered")
	}
	if !WaitsOnAdmin(err) {
		t.Errorf("%v: want the cluster to wait on the admin API (Degraded), not a plain retry", err)
	}
	if n := len(cluster.Calls()); n >= 3 {
		t.Errorf("%d brokers asked; the deadline (300ms, 200ms per broker) must stop before the third", n)
	}
}
