//go:build e2e

package e2e

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// Admin API auth and Kafka SASL added to a running cluster: the superuser is created, made a
// superuser and only then is authentication required and SASL turned on; the operator is never
// refused, and the brokers roll onto the new pod template one at a time as the superuser.
func TestSecurityTurnedOnForARunningCluster(t *testing.T) {
	t.Parallel()
	const (
		name = "later"
		user = "operator-superuser"
	)
	password := "pw-" + rand.Text()
	ns, cluster := runningClusterWithoutSecurity(t, name)

	turnSecurityOn(t, ns, name, user, password)
	awaitSecurityReady(t, ns, name)
	for _, reason := range []string{"SuperuserCreated", "SuperuserGranted", "AdminAPIAuthEnforced"} {
		awaitEvent(t, ns, name, reason)
	}
	awaitConfigApplied(t, ns, name)
	env.AwaitConverged(t, ns, name, 3)

	if u, ok := cluster.User(user); !ok || u.Password != password || u.Mechanism != string(admin.SCRAMSHA512) {
		t.Errorf("user %s exists %t with mechanism %s; want the Secret's password, SCRAM-SHA-512", user, ok, u.Mechanism)
	}
	cfg := readConfigAs(t, cluster, user, password)
	if string(cfg["admin_api_require_auth"]) != "true" || string(cfg["enable_sasl"]) != "true" || string(cfg["superusers"]) != `["`+user+`"]` {
		t.Errorf("admin_api_require_auth %s, enable_sasl %s, superusers %s", cfg["admin_api_require_auth"], cfg["enable_sasl"], cfg["superusers"])
	}
	if _, err := configAs(t, cluster, "", "").ClusterConfig(t.Context(), false); !errors.Is(err, admin.ErrForbidden) {
		t.Errorf("an anonymous caller got %v, want forbidden", err)
	}
	// The create and the superusers write come before admin_api_require_auth's.
	var order []string
	for _, c := range cluster.Calls() {
		switch {
		case c.Method == http.MethodPost && c.Path == "/v1/security/users" && c.Status == http.StatusOK:
			order = append(order, "user")
		case c.Method == http.MethodPut && c.Path == "/v1/cluster_config" && c.Status == http.StatusOK:
			order = append(order, "config")
		}
		if c.User == user && (c.Status == http.StatusUnauthorized || c.Status == http.StatusForbidden) {
			t.Errorf("the brokers refused the operator: %v", c)
		}
	}
	if len(order) < 3 || !slices.Equal(order[:3], []string{"user", "config", "config"}) {
		t.Errorf("writes %v, want the user, superusers, then admin_api_require_auth", order)
	}

	// Taking auth away would lock the operator out: the CRD refuses it. The operator is
	// still writing status, so a conflict is retried as kubectl edit would; only the
	// refusal ends the loop.
	clusters := env.Brokers.BrokersV1alpha1().BrokerClusters(ns)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		bc, err := clusters.Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		bc.Spec.AdminAPI.Auth, bc.Spec.Kafka = nil, nil
		_, err = clusters.Update(t.Context(), bc, metav1.UpdateOptions{})
		return err
	})
	expectInvalid(t, "removing spec.adminAPI.auth", err, "spec.adminAPI.auth cannot be removed")
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}

// A new password in the superuser's Secret is set on the user with the old one, and the
// operator goes on with it: a scale-down after the rotation decommissions as the superuser.
func TestSuperuserPasswordRotatedFromItsSecret(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	const (
		name = "rotate"
		user = "operator-superuser"
	)
	oldPassword, newPassword := "pw-"+rand.Text(), "pw-"+rand.Text()
	cluster, err := env.Sim.NewCluster(ns, name, admintest.Security{Username: user, Password: oldPassword})
	if err != nil {
		t.Fatal(err)
	}
	cluster.SetDrainTime(0)
	startOperator(t, ns, "a")
	createSecret(t, ns, name+"-superuser", map[string][]byte{admin.SecretKeyUsername: []byte(user), admin.SecretKeyPassword: []byte(oldPassword)})
	bc := env.BrokerCluster(ns, name, 3)
	bc.Spec.AdminAPI.Auth = &v1alpha1.AdminAPIAuth{SecretName: name + "-superuser"}
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Create(t.Context(), bc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.AwaitConverged(t, ns, name, 3)
	awaitSecurityReady(t, ns, name)
	ids := env.NodeIDs(t, ns, name, 3)

	secret, err := env.Kube.CoreV1().Secrets(ns).Get(t.Context(), name+"-superuser", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	secret.Data[admin.SecretKeyPassword] = []byte(newPassword)
	if _, err := env.Kube.CoreV1().Secrets(ns).Update(t.Context(), secret, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The operator does not watch Secrets: the scale-down is the change that makes it look.
	env.Scale(t, ns, name, 2)
	awaitEvent(t, ns, name, "SuperuserPasswordRotated")
	env.AwaitConverged(t, ns, name, 2)
	awaitSecurityReady(t, ns, name)

	if u, _ := cluster.User(user); u.Password != newPassword {
		t.Error("the user's password is not the Secret's new one")
	}
	if _, err := configAs(t, cluster, user, oldPassword).ClusterConfig(t.Context(), false); !errors.Is(err, admin.ErrUnauthorized) {
		t.Errorf("the old password got %v, want refused", err)
	}
	if got := adminCalls(ns, name, "decommission"); !slices.Equal(got, []int{ids[2]}) {
		t.Errorf("decommission calls %v, want [%d]", got, ids[2])
	}
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}

// runningClusterWithoutSecurity starts an operator in a new namespace and a simulated cluster
// of three brokers without admin API auth, and waits until it has converged.
func runningClusterWithoutSecurity(t *testing.T, name string) (string, *admintest.Cluster) {
	t.Helper()
	ns := env.NewNamespace(t)
	cluster, err := env.Sim.NewCluster(ns, name, admintest.Security{})
	if err != nil {
		t.Fatal(err)
	}
	startOperator(t, ns, "a")
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Create(t.Context(), env.BrokerCluster(ns, name, 3), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.AwaitConverged(t, ns, name, 3)
	return ns, cluster
}

// turnSecurityOn asks a running cluster for admin API auth and Kafka SASL (SCRAM-SHA-512) with
// this superuser, from a new Secret named after the cluster, and returns the Secret's name.
func turnSecurityOn(t *testing.T, ns, name, user, password string) string {
	t.Helper()
	secret := name + "-superuser"
	createSecret(t, ns, secret, map[string][]byte{admin.SecretKeyUsername: []byte(user), admin.SecretKeyPassword: []byte(password)})
	patchCluster(t, ns, name, []byte(`{"spec": {"adminAPI": {"auth": {"secretName": "`+secret+`"}},
		"kafka": {"sasl": {"mechanism": "SCRAM-SHA-512"}}}}`))
	return secret
}

// awaitSecurityReady waits until SecurityReady is True for the current generation.
func awaitSecurityReady(t *testing.T, ns, name string) {
	t.Helper()
	awaitStatus(t, ns, name, "SecurityReady", func(bc *v1alpha1.BrokerCluster) bool {
		c := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionSecurityReady)
		return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == bc.Generation
	})
}

// configAs is a cluster configuration client of cluster with these credentials ("" for none).
func configAs(t *testing.T, cluster *admintest.Cluster, user, password string) admin.ClusterConfigClient {
	t.Helper()
	cfg := cluster.Config(1)
	cfg.Username, cfg.Password = user, password
	cc, err := admin.NewClusterConfigClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cc
}

func readConfigAs(t *testing.T, cluster *admintest.Cluster, user, password string) map[string]json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), convergeLimit)
	defer cancel()
	cfg, err := configAs(t, cluster, user, password).ClusterConfig(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
