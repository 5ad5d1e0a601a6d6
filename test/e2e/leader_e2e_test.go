//go:build e2e

package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/test/brokersim"
)

// leaderLine is what the operator logs when it wins the Lease.
const leaderLine = `"Started leading"`

// TestLeaderFailover runs two replicas with leader election and kills the leader: the standby
// takes the Lease over and carries on scaling.
func TestLeaderFailover(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	replicas := []*operator{startOperator(t, ns, "a"), startOperator(t, ns, "b")}
	const name = "failover"
	createCluster(t, ns, name, 3, 500*time.Millisecond)
	awaitConverged(t, ns, name, 3)
	ids := nodeIDs(t, ns, name, 3)

	leader, standby := awaitLeader(t, replicas)
	holder := leaseHolder(t, ns)
	if holder == "" {
		t.Fatal("the Lease has no holder while an operator leads")
	}
	leader.kill(t)

	scale(t, ns, name, 2)
	awaitConverged(t, ns, name, 2)
	if !standby.logContains(leaderLine) {
		t.Errorf("%s never logged that it started leading", standby)
	}
	if now := leaseHolder(t, ns); now == holder || now == "" {
		t.Errorf("Lease holder is %q after the leader died, want the standby (not %q)", now, holder)
	}
	if got := adminCalls(ns, name, "decommission"); !slices.Equal(got, []int{ids[2]}) {
		t.Errorf("decommission calls for brokers %v, want [%d]", got, ids[2])
	}
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}

// awaitLeader waits until exactly one of the replicas says it leads.
func awaitLeader(t *testing.T, replicas []*operator) (leader, standby *operator) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, convergeLimit, true, func(context.Context) (bool, error) {
		a, b := replicas[0].logContains(leaderLine), replicas[1].logContains(leaderLine)
		switch {
		case a && b:
			t.Fatalf("both %s and %s say they lead", replicas[0], replicas[1])
		case a:
			leader, standby = replicas[0], replicas[1]
		case b:
			leader, standby = replicas[1], replicas[0]
		}
		return leader != nil, nil
	})
	if err != nil {
		t.Fatalf("no replica started leading: %v", err)
	}
	return leader, standby
}

func leaseHolder(t *testing.T, leaseName string) string {
	t.Helper()
	lease, err := env.kube.CoordinationV1().Leases(brokersim.OperatorNamespace).Get(t.Context(), leaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("read the Lease: %v", err)
	}
	return ptr.Deref(lease.Spec.HolderIdentity, "")
}
