//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// TestScaleDownWhenAddressesNeverNamePods runs brokers that advertise 127.0.0.1, Redpanda's
// default, so no internal_rpc_address names a pod: the operator must learn each pod's broker from
// its node_config, and a scale-down still decommissions every broker before its pod goes.
func TestScaleDownWhenAddressesNeverNamePods(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	const name = "loopback"
	env.Sim.Cluster(ns, name).SetAdvertiseLoopback(true)
	startOperator(t, ns, "a")
	env.CreateCluster(t, ns, name, 4, 500*time.Millisecond)
	env.AwaitConverged(t, ns, name, 4)
	ids := env.NodeIDs(t, ns, name, 4)
	client, err := admin.NewClient(env.Sim.Cluster(ns, name).Config(4))
	if err != nil {
		t.Fatal(err)
	}
	members, err := client.Brokers(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range members {
		if b.InternalRPCAddress != "127.0.0.1" {
			t.Fatalf("broker %d advertises %q; the scenario needs 127.0.0.1", b.NodeID, b.InternalRPCAddress)
		}
	}

	env.Scale(t, ns, name, 2)
	env.AwaitConverged(t, ns, name, 2)
	if got, want := adminCalls(ns, name, "decommission"), []int{ids[3], ids[2]}; !slices.Equal(got, want) {
		t.Errorf("decommission calls for brokers %v, want %v (ordinals 3 and 2, once each)", got, want)
	}
	var early []string
	for _, l := range env.Sim.LeftBeforeDecommission() {
		if strings.HasPrefix(l, ns+"/"+name+":") {
			early = append(early, l)
		}
	}
	if len(early) != 0 {
		t.Errorf("%d brokers left early (their pods went before their decommission): %v", len(early), early)
	}
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}

// TestSecuredAdminAPI runs a cluster whose admin API serves TLS (a CA made at run time) and
// requires a superuser, reached through the Secrets the BrokerCluster names. Until the
// credentials' Secret exists the cluster is Degraded, saying which Secret is missing; then it
// scales down as any other, and the password appears nowhere in the operator's log.
func TestSecuredAdminAPI(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	const (
		name     = "secured"
		user     = "operator-superuser"
		password = "e2e-pw-1b8d0f-never-logged"
	)
	cluster, err := env.Sim.NewCluster(ns, name, admintest.Security{Username: user, Password: password, TLS: true})
	if err != nil {
		t.Fatal(err)
	}
	cluster.SetDrainTime(300 * time.Millisecond)
	op := startOperator(t, ns, "a")
	createSecret(t, ns, name+"-ca", map[string][]byte{admin.SecretKeyCACert: env.Sim.CACertPEM()})

	bc := env.BrokerCluster(ns, name, 3)
	bc.Spec.AdminAPI.TLS = &v1alpha1.AdminAPITLS{SecretName: name + "-ca"}
	bc.Spec.AdminAPI.Auth = &v1alpha1.AdminAPIAuth{SecretName: name + "-superuser"}
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Create(t.Context(), bc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitDegraded(t, ns, name, "AdminAPISecretMissing", name+"-superuser")

	createSecret(t, ns, name+"-superuser", map[string][]byte{admin.SecretKeyUsername: []byte(user), admin.SecretKeyPassword: []byte(password)})
	env.AwaitConverged(t, ns, name, 3)
	ids := env.NodeIDs(t, ns, name, 3)
	env.Scale(t, ns, name, 2)
	env.AwaitConverged(t, ns, name, 2)
	if got := adminCalls(ns, name, "decommission"); !slices.Equal(got, []int{ids[2]}) {
		t.Errorf("decommission calls for brokers %v, want [%d]", got, ids[2])
	}
	for _, c := range cluster.Calls() {
		if c.Status == 401 || c.Status == 403 {
			t.Errorf("the brokers refused a call: %v", c)
		}
	}
	checkBrokersSafe(t, ns, name)
	if op.logContains(password) {
		t.Error("the operator's log holds the password")
	}
	checkNoForbidden(t)
}

// TestStuckDrainIsReportedAndAScaleUpRecoversIt scales a cluster whose partitions have two
// replicas down to two brokers, which the pre-flight lets through, and raises the factor to
// three once the drain has begun: Redpanda cannot place the drained replicas anywhere, reports
// allocation failures, and the drain never ends. The operator says so in a condition and an
// event; raising replicas back recommissions the broker.
func TestStuckDrainIsReportedAndAScaleUpRecoversIt(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	const name = "stuck"
	sim := env.Sim.Cluster(ns, name)
	sim.SetReplicationFactor(2)
	startOperator(t, ns, "a")
	env.CreateCluster(t, ns, name, 3, time.Hour)
	env.AwaitConverged(t, ns, name, 3)
	ids := env.NodeIDs(t, ns, name, 3)

	env.Scale(t, ns, name, 2)
	// Once the broker drains: raised between the status write and the call, the factor would
	// be seen by the call's pre-flight and the scale-down held instead.
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, convergeLimit, true, func(context.Context) (bool, error) {
		return slices.ContainsFunc(sim.Brokers(), func(b admintest.BrokerState) bool { return b.Status == admin.MembershipDraining }), nil
	})
	if err != nil {
		t.Fatalf("no broker of %s/%s began to drain: %v", ns, name, err)
	}
	sim.SetReplicationFactor(3)
	cond := awaitDegraded(t, ns, name, "DrainStalled", "allocation failures")
	if !strings.Contains(cond.Message, "raise spec.replicas") {
		t.Errorf("Degraded message %q does not say how to recover", cond.Message)
	}
	awaitEvent(t, ns, name, "DrainStalled")

	env.Scale(t, ns, name, 3)
	bc := env.AwaitConverged(t, ns, name, 3)
	if c := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionDegraded); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("Degraded %+v after the scale-up, want False", c)
	}
	if got := adminCalls(ns, name, "recommission"); !slices.Equal(got, []int{ids[2]}) {
		t.Errorf("recommission calls for brokers %v, want [%d]", got, ids[2])
	}
	if got := env.NodeIDs(t, ns, name, 3); !slices.Equal(got, ids) {
		t.Errorf("brokers %v after the recovery, want %v: the drained broker keeps its pod and ID", got, ids)
	}
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}

func createSecret(t *testing.T, ns, name string, data map[string][]byte) {
	t.Helper()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
	if _, err := env.Kube.CoreV1().Secrets(ns).Create(t.Context(), secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// awaitDegraded waits until the cluster's Degraded condition is True with reason, its message
// containing text.
func awaitDegraded(t *testing.T, ns, name, reason, text string) metav1.Condition {
	t.Helper()
	var last metav1.Condition
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, convergeLimit, true, func(ctx context.Context) (bool, error) {
		bc, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		c := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionDegraded)
		if c == nil {
			return false, nil
		}
		last = *c
		return c.Status == metav1.ConditionTrue && c.Reason == reason && strings.Contains(c.Message, text), nil
	})
	if err != nil {
		t.Fatalf("%s/%s not Degraded with %s (%q) within %s; last %+v", ns, name, reason, text, convergeLimit, last)
	}
	return last
}

// awaitEvent waits for an event with reason about the BrokerCluster.
func awaitEvent(t *testing.T, ns, name, reason string) {
	t.Helper()
	awaitEventWhere(t, ns, fmt.Sprintf("%s event for %s/%s", reason, ns, name), func(e corev1.Event) bool {
		return e.Reason == reason && e.InvolvedObject.Name == name && e.InvolvedObject.Kind == "BrokerCluster"
	})
}
