//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/test/brokerenv"
)

// convergeLimit bounds each wait for a cluster to settle.
const convergeLimit = brokerenv.ConvergeLimit

// adminCalls returns the node IDs of the accepted admin calls of one kind ("decommission" or
// "recommission") that reached a cluster, in order.
func adminCalls(ns, name, kind string) []int {
	var ids []int
	for _, c := range env.Sim.Cluster(ns, name).Calls() {
		if c.Method == http.MethodPut && strings.HasSuffix(c.Path, "/"+kind) && c.Status == http.StatusOK {
			ids = append(ids, c.NodeID)
		}
	}
	return ids
}

// checkBrokersSafe fails the test if the operator decommissioned a broker that was not active,
// or if a broker's Pod went while the broker was still a member of this cluster.
func checkBrokersSafe(t *testing.T, ns, name string) {
	t.Helper()
	prefix := ns + "/" + name + ":"
	for _, d := range env.Sim.DoubleDecommissions() {
		if strings.HasPrefix(d, prefix) {
			t.Errorf("decommissioned twice: %s", d)
		}
	}
	for _, l := range env.Sim.LeftBeforeDecommission() {
		if strings.HasPrefix(l, prefix) {
			t.Errorf("pod went before its broker left: %s", l)
		}
	}
}

// checkNoForbidden fails the test if RBAC has refused the operator anything so far.
func checkNoForbidden(t *testing.T) {
	t.Helper()
	if err := env.checkNoForbiddenRequests(); err != nil {
		t.Error(err)
	}
}

// statusSteps records the distinct (currentReplicas, decommissioningBroker) pairs a
// BrokerCluster's status goes through, as its watch delivers them.
type statusSteps struct {
	mu    sync.Mutex
	steps []string
}

func recordStatusSteps(t *testing.T, ns, name string) *statusSteps {
	t.Helper()
	s := &statusSteps{}
	for _, bc := range watchBrokerCluster(t, ns, name, s.add) {
		s.add(&bc)
	}
	return s
}

// watchBrokerCluster lists the BrokerCluster ns/name and passes every version its watch then
// delivers to each, until the test ends. It returns what the list held; each sees only the
// watch's versions.
func watchBrokerCluster(t *testing.T, ns, name string, each func(*v1alpha1.BrokerCluster)) []v1alpha1.BrokerCluster {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	client := env.Brokers.BrokersV1alpha1().BrokerClusters(ns)
	selector := fields.OneTermEqualSelector("metadata.name", name).String()
	initial, err := client.List(ctx, metav1.ListOptions{FieldSelector: selector})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	open := func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		o.FieldSelector = selector
		return client.Watch(ctx, o)
	}
	watchFrom(t, ctx, cancel, initial.ResourceVersion, open, func(ev watch.Event) {
		if bc, ok := ev.Object.(*v1alpha1.BrokerCluster); ok {
			each(bc)
		}
	})
	return initial.Items
}

func (s *statusSteps) add(bc *v1alpha1.BrokerCluster) {
	step := fmt.Sprintf("current=%d decommissioning=%s", bc.Status.CurrentReplicas, brokerenv.BrokerString(bc.Status.DecommissioningBroker))
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.steps) == 0 || s.steps[len(s.steps)-1] != step {
		s.steps = append(s.steps, step)
	}
}

// since returns the steps from the first one equal to from.
func (s *statusSteps) since(from string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.Index(s.steps, from); i >= 0 {
		return slices.Clone(s.steps[i:])
	}
	return slices.Clone(s.steps)
}
