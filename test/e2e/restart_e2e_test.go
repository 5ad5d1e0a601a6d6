//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// TestOperatorRestartMidDecommission kills the operator while a broker drains. The next one
// resumes from status: it waits for the same drain, and decommissions nothing again.
func TestOperatorRestartMidDecommission(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	first := startOperator(t, ns, "first")
	const name = "restart"
	env.CreateCluster(t, ns, name, 3, time.Hour)
	env.AwaitConverged(t, ns, name, 3)
	ids := env.NodeIDs(t, ns, name, 3)
	steps := recordStatusSteps(t, ns, name)

	env.Scale(t, ns, name, 2)
	draining := env.AwaitDraining(t, ns, name)
	if int(draining) != ids[2] {
		t.Fatalf("broker %d is being decommissioned, want %d (ordinal 2)", draining, ids[2])
	}
	first.kill(t)
	killedAt := len(env.Sim.Calls())

	second := startOperator(t, ns, "second")
	// The new operator has picked the drain up once it asks the brokers how it is going; until
	// then the drain must not end, or there would be nothing left to resume.
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, convergeLimit, true, func(context.Context) (bool, error) {
		for _, c := range env.Sim.Cluster(ns, name).Calls() {
			if c.Seq > killedAt && c.Method == http.MethodGet {
				return true, nil
			}
		}
		return second.exited(), nil
	})
	if err != nil || second.exited() {
		t.Fatalf("the restarted operator never checked on the drain of broker %d (exited: %v): %v", draining, second.exited(), err)
	}
	env.Sim.Cluster(ns, name).SetDrainTime(0) // the drain ends now
	env.AwaitConverged(t, ns, name, 2)

	if got := adminCalls(ns, name, "decommission"); !slices.Equal(got, []int{ids[2]}) {
		t.Errorf("decommission calls for brokers %v, want [%d] once", got, ids[2])
	}
	want := []string{"current=3 decommissioning=none", fmt.Sprintf("current=3 decommissioning=%d", ids[2]), "current=2 decommissioning=none"}
	if got := steps.since(want[0]); !slices.Equal(got, want) {
		t.Errorf("status went through\n %q\nwant\n %q", got, want)
	}
	var afterRestart []string
	for _, c := range env.Sim.Cluster(ns, name).Calls() {
		if c.Seq > killedAt && c.Method == http.MethodPut {
			afterRestart = append(afterRestart, c.String())
		}
	}
	if len(afterRestart) > 0 {
		t.Errorf("the restarted operator changed brokers, want it only to watch the drain:\n%s", strings.Join(afterRestart, "\n"))
	}
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}
