//go:build e2e

package e2e

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// TestBadUsersRejected checks that the real apiserver turns bad BrokerUsers away with the
// messages docs/users.md quotes, on create and on update.
func TestBadUsersRejected(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	users := env.Brokers.BrokersV1alpha1().BrokerUsers(ns)
	user := func(name string, rules ...v1alpha1.ACLRule) *v1alpha1.BrokerUser {
		bu := &v1alpha1.BrokerUser{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       v1alpha1.BrokerUserSpec{ClusterRef: v1alpha1.ClusterReference{Name: "kafka"}},
		}
		if rules != nil {
			bu.Spec.Authorization = &v1alpha1.UserAuthorization{ACLs: rules}
		}
		return bu
	}
	rule := func(typ v1alpha1.ACLResourceType, name string, pattern v1alpha1.ACLPatternType, ops ...v1alpha1.ACLOperation) v1alpha1.ACLRule {
		return v1alpha1.ACLRule{Resource: v1alpha1.ACLResource{Type: typ, Name: name, PatternType: pattern}, Operations: ops}
	}

	for _, tc := range []struct {
		name string
		bu   *v1alpha1.BrokerUser
		want string
	}{
		{"a topic without a name", user("bad", rule(v1alpha1.ACLTopic, "", "", "Read")), "resource.name is required"},
		{"a cluster with a name", user("bad", rule(v1alpha1.ACLCluster, "c", "", "Describe")), "resource.name is required"},
		{"a prefixed cluster", user("bad", rule(v1alpha1.ACLCluster, "", v1alpha1.ACLPrefixed, "Describe")), "patternType must be literal"},
		{"a topic ACL with IdempotentWrite", user("bad", rule(v1alpha1.ACLTopic, "t", "", "IdempotentWrite")), "a topic ACL's operations are"},
		{"a group ACL with Write", user("bad", rule(v1alpha1.ACLGroup, "g", "", "Write")), "a group ACL's operations are"},
		{"a cluster ACL with Read", user("bad", rule(v1alpha1.ACLCluster, "", "", "Read")), "a cluster ACL's operations are"},
		{"a transactionalId ACL with Read", user("bad", rule(v1alpha1.ACLTransactionalID, "tx", "", "Read")), "a transactionalId ACL's operations are"},
		{"an unknown operation", user("bad", rule(v1alpha1.ACLTopic, "t", "", "Erase")), "operations"},
		{"a name too long for the generated Secret", user(strings.Repeat("a", 242)), "the generated Secret is named"},
	} {
		_, err := users.Create(t.Context(), tc.bu, metav1.CreateOptions{})
		expectInvalid(t, "create with "+tc.name, err, tc.want)
	}

	if _, err := users.Create(t.Context(), user("good", rule(v1alpha1.ACLTopic, "orders", v1alpha1.ACLPrefixed, "Read", "Describe")), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create a valid BrokerUser: %v", err)
	}
	bu, err := users.Get(t.Context(), "good", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bu.Spec.ClusterRef.Name = "other"
	_, err = users.Update(t.Context(), bu, metav1.UpdateOptions{})
	expectInvalid(t, "update with another cluster", err, "spec.clusterRef is immutable")
}
