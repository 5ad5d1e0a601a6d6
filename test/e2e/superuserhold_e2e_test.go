//go:build e2e

package e2e

import (
	"crypto/rand"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// Kafka SASL added while a user of the superuser's name exists with another password: nothing is
// enforced, and no broker restarts onto listeners that require SASL (Degraded
// SASLWaitsForSuperuser). The user's password put in the Secret ends the hold, and the brokers
// roll onto the new template one at a time.
func TestSASLRolloutWaitsForTheSuperuser(t *testing.T) {
	t.Parallel()
	const (
		name = "held"
		user = "operator-superuser"
	)
	theirs := "pw-" + rand.Text()
	ns, cluster := runningClusterWithoutSecurity(t, name)
	// Users are written on the controller leader, and any broker may lead (here not pod 0, which led
	// in some runs and not in others): the client knows every broker, to follow the redirect.
	cluster.SetControllerLeader(2)
	users, err := admin.NewUsersClient(cluster.Config(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := users.CreateUser(t.Context(), admin.User{Name: user, Password: theirs, Mechanism: admin.SCRAMSHA512}); err != nil {
		t.Fatal(err)
	}
	before := podUIDs(t, ns, name)

	secret := turnSecurityOn(t, ns, name, user, "pw-"+rand.Text())
	awaitDegraded(t, ns, name, "SASLWaitsForSuperuser", "SuperuserPasswordDiffers")
	awaitEvent(t, ns, name, "HoldForSuperuser")
	if changed := changedPods(t, ns, name, before); len(changed) > 0 {
		t.Errorf("pods %v restarted before the superuser was in place", changed)
	}
	if calls := adminCalls(ns, name, "maintenance"); len(calls) > 0 {
		t.Errorf("maintenance mode turned on for brokers %v before the superuser was in place", calls)
	}

	s, err := env.Kube.CoreV1().Secrets(ns).Get(t.Context(), secret, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Data[admin.SecretKeyPassword] = []byte(theirs)
	if _, err := env.Kube.CoreV1().Secrets(ns).Update(t.Context(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitSecurityReady(t, ns, name)
	awaitStatus(t, ns, name, "every broker restarted onto SASL", func(bc *v1alpha1.BrokerCluster) bool {
		return bc.Status.Restart == nil && len(changedPods(t, ns, name, before)) == 3
	})
	env.AwaitConverged(t, ns, name, 3)
	got := adminCalls(ns, name, "maintenance")
	brokers := slices.Compact(slices.Sorted(slices.Values(got)))
	if want := slices.Sorted(slices.Values(env.NodeIDs(t, ns, name, 3))); !slices.Equal(brokers, want) {
		t.Errorf("maintenance on for brokers %v, want each of %v", got, want)
	}
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}
