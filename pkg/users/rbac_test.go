package users

import (
	"strings"
	"testing"

	k8stesting "k8s.io/client-go/testing"

	"github.com/broker-operator/broker-operator/internal/controllertest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

const clusterRolePath = "../../deploy/rbac/cluster_role.yaml"

// The ClusterRole grants what a BrokerUser's life needs (its informers, finalizer, status,
// Secrets and their metadata watch, deletion) and nothing on BrokerUsers that the controller never sends, but for the
// finalizers subresource, which admission checks and no request uses.
func TestClusterRoleGrantsWhatUsersUse(t *testing.T) {
	h := newHarness(t)
	bu := user("app")
	bu.Spec.Authorization = readOrders()
	h.create(bu)
	h.mustSync("app")
	h.update("app", func(bu *v1alpha1.BrokerUser) { bu.Spec.Authorization.ACLs = nil })
	h.mustSync("app")
	h.delete("app")
	h.mustSync("app")

	used := map[string]bool{}
	for _, a := range append(append(h.client.Actions(), h.kube.Actions()...), h.meta.Actions()...) {
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
		if strings.Contains(p, "/brokerusers") && p != "broker-operator.dev/brokerusers/finalizers:update" && !used[p] {
			t.Errorf("%s grants %s, which the controller never sends", clusterRolePath, p)
		}
	}
}

// isTestsOwn tells the harness's writes and reads (the user's kubectl) from the controller's:
// the controller never creates, gets or deletes a BrokerUser or a BrokerCluster, and the
// harness makes the superuser's Secret.
func isTestsOwn(a k8stesting.Action) bool {
	if a.GetResource().Resource == "secrets" {
		c, ok := a.(k8stesting.CreateAction)
		return ok && c.GetObject().(interface{ GetName() string }).GetName() == "kafka-superuser"
	}
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
		bu, ok := u.GetObject().(*v1alpha1.BrokerUser)
		return ok && bu.Annotations["test"] == "user"
	}
	return false
}
