package topics

import (
	"strings"
	"testing"

	k8stesting "k8s.io/client-go/testing"

	"github.com/broker-operator/broker-operator/internal/controllertest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

const clusterRolePath = "../../deploy/rbac/cluster_role.yaml"

// The ClusterRole grants what a BrokerTopic's life needs (its informers, finalizer, status,
// deletion) and nothing on BrokerTopics that the controller never sends.
func TestClusterRoleGrantsWhatTopicsUse(t *testing.T) {
	h := newHarness(t)
	bt := topic("orders", 3, 0)
	bt.Spec.DeletionPolicy = v1alpha1.TopicDelete
	h.create(bt)
	h.mustSync("orders")
	h.update("orders", func(bt *v1alpha1.BrokerTopic) { bt.Spec.Partitions = 4 })
	h.mustSync("orders")
	h.delete("orders")
	h.mustSync("orders")

	used := map[string]bool{}
	for _, a := range h.client.Actions() {
		if !isTestsOwn(a) {
			used[controllertest.Used(a)] = true
		}
	}
	granted := controllertest.Granted(t, clusterRolePath)
	for p := range used {
		if !granted[p] {
			t.Errorf("the controller sends %s, which %s does not grant", p, clusterRolePath)
		}
	}
	for p := range granted {
		if strings.Contains(p, "/brokertopics") && !used[p] {
			t.Errorf("%s grants %s, which the controller never sends", clusterRolePath, p)
		}
	}
}

// isTestsOwn tells the harness's writes and reads (the user's kubectl) from the controller's:
// the controller never creates, gets or deletes a BrokerTopic or a BrokerCluster.
func isTestsOwn(a k8stesting.Action) bool {
	switch a.GetVerb() {
	case "create", "get", "delete":
		return true
	case "update":
		// The user's updates are of the resource itself and set no finalizer; the harness's
		// delete sets deletionTimestamp. Both come from the test: tell them by the object.
		u, ok := a.(k8stesting.UpdateAction)
		if !ok || a.GetSubresource() != "" {
			return false
		}
		bt, ok := u.GetObject().(*v1alpha1.BrokerTopic)
		return ok && bt.Annotations["test"] == "user"
	}
	return false
}
