//go:build e2e

package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/users"
)

// rotationLimit bounds the wait for a rotated password: the Secret's watch, not the resync
// (set to an hour below), must bring it.
const rotationLimit = 30 * time.Second

// awaitUserReady waits until the BrokerUser has observed its spec and its Ready condition has
// status and reason, and returns it.
func awaitUserReady(t *testing.T, ns, name string, status metav1.ConditionStatus, reason string) *v1alpha1.BrokerUser {
	t.Helper()
	var bu *v1alpha1.BrokerUser
	awaitCondition(t, "BrokerUser "+name, users.ConditionReady, status, reason, func(ctx context.Context) (metav1.Object, []metav1.Condition, int64, error) {
		got, err := env.Brokers.BrokersV1alpha1().BrokerUsers(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, nil, 0, err
		}
		bu = got
		return got, got.Status.Conditions, got.Status.ObservedGeneration, nil
	})
	return bu
}

// saslCluster creates a BrokerCluster whose Kafka listeners ask for SCRAM-SHA-256, with the
// superuser's Secret.
func saslCluster(t *testing.T, ns, name string) {
	t.Helper()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name + "-superuser"}, Type: corev1.SecretTypeBasicAuth,
		StringData: map[string]string{"username": kfakeSuperuser, "password": kfakePassword}}
	if _, err := env.Kube.CoreV1().Secrets(ns).Create(t.Context(), secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bc := env.BrokerCluster(ns, name, 1)
	bc.Spec.Kafka = &v1alpha1.KafkaSpec{SASL: &v1alpha1.KafkaSASL{Mechanism: v1alpha1.SCRAMSHA256}}
	bc.Spec.AdminAPI.Auth = &v1alpha1.AdminAPIAuth{SecretName: secret.Name}
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Create(t.Context(), bc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestUserLifecycle runs a BrokerUser with ACLs through its life against a real apiserver and
// the operator process, with the admin API simulator for the SCRAM user and kfake for the
// ACLs: created with its password and ACLs, its password rotated by a change of its Secret,
// then deleted with its ACLs. Each step is checked where a user would look: the credential
// store, the principal's ACLs, the resource's status and its events.
func TestUserLifecycle(t *testing.T) {
	t.Parallel()
	kafka := startKafka(t, true)
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a", kafka.flag, "--user-resync-interval=1h")
	saslCluster(t, ns, "kafka")
	secrets := env.Kube.CoreV1().Secrets(ns)
	password := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "app-password"}, StringData: map[string]string{"password": "first-password"}}
	if _, err := secrets.Create(t.Context(), password, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// Created, with its password and ACLs.
	bu := &v1alpha1.BrokerUser{
		ObjectMeta: metav1.ObjectMeta{Name: "app"},
		Spec: v1alpha1.BrokerUserSpec{
			ClusterRef: v1alpha1.ClusterReference{Name: "kafka"},
			Authentication: &v1alpha1.UserAuthentication{Password: &v1alpha1.UserPassword{ValueFrom: v1alpha1.PasswordSource{
				SecretKeyRef: v1alpha1.SecretKeyReference{Name: "app-password"}}}},
			Authorization: &v1alpha1.UserAuthorization{ACLs: []v1alpha1.ACLRule{
				{Resource: v1alpha1.ACLResource{Type: v1alpha1.ACLTopic, Name: "orders"}, Operations: []v1alpha1.ACLOperation{"Read", "Describe"}},
				{Resource: v1alpha1.ACLResource{Type: v1alpha1.ACLGroup, Name: "orders-", PatternType: v1alpha1.ACLPrefixed}, Operations: []v1alpha1.ACLOperation{"Read"}},
				{Type: v1alpha1.ACLDeny, Resource: v1alpha1.ACLResource{Type: v1alpha1.ACLTopic, Name: "orders"}, Host: "10.0.0.1", Operations: []v1alpha1.ACLOperation{"Write"}},
			}},
		},
	}
	if _, err := env.Brokers.BrokersV1alpha1().BrokerUsers(ns).Create(t.Context(), bu, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := awaitUserReady(t, ns, "app", metav1.ConditionTrue, users.ReasonSynced)
	if got.Status.Origin != v1alpha1.UserCreated || got.Status.ACLs != 4 || got.Status.Mechanism != v1alpha1.SCRAMSHA256 || got.Status.SecretName != "app-password" {
		t.Errorf("status after create: origin %q, acls %d, mechanism %q, secret %q; want Created, 4 (one a rule and operation), SCRAM-SHA-256, app-password",
			got.Status.Origin, got.Status.ACLs, got.Status.Mechanism, got.Status.SecretName)
	}
	sim := env.Sim.Cluster(ns, "kafka")
	if c, ok := sim.User("app"); !ok || c.Password != "first-password" || c.Mechanism != "SCRAM-SHA-256" {
		t.Errorf("the credential store holds %+v (%v), want app with its Secret's password, SCRAM-SHA-256", c, ok)
	}
	wantACLs := []string{
		"User:app ALLOW DESCRIBE TOPIC orders LITERAL *",
		"User:app ALLOW READ GROUP orders- PREFIXED *",
		"User:app ALLOW READ TOPIC orders LITERAL *",
		"User:app DENY WRITE TOPIC orders LITERAL 10.0.0.1",
	}
	if acls, err := kafka.acls(t.Context(), "User:app"); err != nil || !slices.Equal(acls, wantACLs) {
		t.Errorf("the principal's ACLs in Kafka:\n%v (%v)\nwant\n%v", acls, err, wantACLs)
	}
	awaitEventAbout(t, ns, "BrokerUser", "app", users.EventUserCreated)
	awaitEventAbout(t, ns, "BrokerUser", "app", users.EventACLsUpdated)

	// Rotated: a change of the Secret sets the new password, long before any resync.
	retryUpdate(t, "rotate the password", func(ctx context.Context) error {
		s, err := secrets.Get(ctx, "app-password", metav1.GetOptions{})
		if err != nil {
			return err
		}
		s.Data["password"] = []byte("second-password")
		_, err = secrets.Update(ctx, s, metav1.UpdateOptions{})
		return err
	})
	rotated, err := secrets.Get(t.Context(), "app-password", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, rotationLimit, true, func(ctx context.Context) (bool, error) {
		c, ok := sim.User("app")
		return ok && c.Password == "second-password", nil
	}); err != nil {
		t.Fatalf("the rotated password was not set within %s", rotationLimit)
	}
	// The password is set before the status that records it is written: wait for that write
	// too, not only for Ready, which was already True before the rotation.
	var recorded string
	if err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, rotationLimit, true, func(ctx context.Context) (bool, error) {
		got, err := env.Brokers.BrokersV1alpha1().BrokerUsers(ns).Get(ctx, "app", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		recorded = got.Status.PasswordVersion
		return recorded == rotated.ResourceVersion, nil
	}); err != nil {
		t.Errorf("status.passwordVersion %q after the rotation, want the Secret's resourceVersion %q", recorded, rotated.ResourceVersion)
	}
	awaitUserReady(t, ns, "app", metav1.ConditionTrue, users.ReasonSynced)
	awaitEventAbout(t, ns, "BrokerUser", "app", users.EventPasswordSet)

	// Deleted: its ACLs, then the user, then the resource.
	if err := env.Brokers.BrokersV1alpha1().BrokerUsers(ns).Delete(t.Context(), "app", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitGone(t, "BrokerUser app", func(ctx context.Context) bool {
		_, err := env.Brokers.BrokersV1alpha1().BrokerUsers(ns).Get(ctx, "app", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	if c, ok := sim.User("app"); ok {
		t.Errorf("the deleted user is still in the credential store: %+v", c)
	}
	if acls, err := kafka.acls(t.Context(), "User:app"); err != nil || len(acls) != 0 {
		t.Errorf("the deleted user's ACLs remain: %v (%v)", acls, err)
	}
	awaitEventAbout(t, ns, "BrokerUser", "app", users.EventUserDeleted)
	checkNoForbidden(t)
}
