//go:build e2e

package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/test/brokersim"
)

// leaderLine is what the operator logs when it wins the Lease.
const leaderLine = `"Started leading"`

// TestLeaderFailover runs two replicas with leader election and kills the leader: the standby
// takes the Lease over and carries on scaling.
func TestLeaderFailover(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	replicas := []*operator{startOperator(t, ns, "a"), startOperator(t, ns, "b")}
	const name = "failover"
	env.CreateCluster(t, ns, name, 3, 500*time.Millisecond)
	env.AwaitConverged(t, ns, name, 3)
	ids := env.NodeIDs(t, ns, name, 3)

	leader, standby := awaitLeadingReplica(t, replicas)
	holder := leaseHolder(t, ns)
	if holder == "" {
		t.Fatal("the Lease has no holder while an operator leads")
	}
	leader.kill(t)

	env.Scale(t, ns, name, 2)
	env.AwaitConverged(t, ns, name, 2)
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

// awaitLeadingReplica waits until exactly one of the replicas says, in its log, that it leads.
func awaitLeadingReplica(t *testing.T, replicas []*operator) (leader, standby *operator) {
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

// leaseHolder is the holder identity of the Lease the operators of namespace ns elect their
// leader with (operatorFlags), "" when none holds it.
func leaseHolder(t *testing.T, ns string) string {
	t.Helper()
	holder, _, err := env.LeaseHolder(t.Context(), brokersim.OperatorNamespace, ns)
	if err != nil {
		t.Fatal(err)
	}
	return holder
}
