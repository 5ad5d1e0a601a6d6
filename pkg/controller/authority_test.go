package controller

import (
	"fmt"
	"strings"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// The membership a decommission relies on is read from the controller leader, right before the
// call, and status names the broker that answered.
func TestMembershipFactsAreReadFromTheControllerLeader(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	ids := h.nodeIDs()
	h.cluster.SetControllerLeader(1)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	h.reconcile()

	list := lastListBeforeDecommission(t, h)
	if list.Ordinal != 1 {
		t.Errorf("the brokers list the decommission relied on came from ordinal %d, want the controller leader's, 1", list.Ordinal)
	}
	want := fmt.Sprintf("broker %d, the controller leader (pod %s-1)", ids[1], testName)
	if got := h.stored().Status.MembershipReadFrom; got != want {
		// the decommission's call follows its status write: the source shows at the next write
		h.reconcileAfterPoll()
		if got = h.stored().Status.MembershipReadFrom; got != want {
			t.Errorf("status.membershipReadFrom = %q, want %q", got, want)
		}
	}
}

// When the controller leader does not answer, any broker does, and status says why.
func TestMembershipFactsFallBackToAnyBrokerWhenTheLeaderDoesNotAnswer(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	ids := h.nodeIDs()
	h.cluster.SetControllerLeader(1)
	h.cluster.SetBrokerFault(1, admintest.Fault{Refuse: true})
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	h.reconcile()
	h.reconcileAfterPoll()

	if got := h.decommissionCalls(); len(got) != 1 || got[0] != ids[2] {
		t.Fatalf("decommission calls %v, want one of broker %d", got, ids[2])
	}
	if list := lastListBeforeDecommission(t, h); list.Ordinal == 1 {
		t.Errorf("the brokers list came from the refusing leader")
	}
	got := h.stored().Status.MembershipReadFrom
	if want := fmt.Sprintf("any broker: the controller leader, broker %d, did not answer", ids[1]); !strings.HasPrefix(got, want) {
		t.Errorf("status.membershipReadFrom = %q, want it to start %q", got, want)
	}
}

// lastListBeforeDecommission is the last GET /v1/brokers answered before the first decommission.
func lastListBeforeDecommission(t *testing.T, h *harness) admintest.Call {
	t.Helper()
	var list *admintest.Call
	for _, c := range h.cluster.Calls() {
		if c.Method == "PUT" && strings.HasSuffix(c.Path, "/decommission") {
			if list == nil {
				t.Fatal("no brokers list was read before the decommission")
			}
			return *list
		}
		if c.Method == "GET" && c.Path == "/v1/brokers" && c.Status == 200 {
			list = &c
		}
	}
	t.Fatal("no decommission was called")
	return admintest.Call{}
}
