package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	brokerfake "github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned/fake"
)

const leaseNamespace = "broker-operator-system"

func testOptions(sim *admintest.Server) *options {
	o := defaultOptions()
	o.leaseNamespace = leaseNamespace
	o.metricsBindAddress = "127.0.0.1:0"
	o.healthProbeBindAddr = "127.0.0.1:0"
	o.adminAddressTemplate = sim.BrokerAddressTemplate()
	o.shutdownTimeout = 10 * time.Second
	return o
}

// The whole process against fake clients: it takes the Lease, syncs, reconciles a BrokerCluster,
// serves its endpoints, and on cancel stops and releases the Lease.
func TestRunLeadsReconcilesServesAndShutsDown(t *testing.T) {
	sim := admintest.NewServer(admintest.Options{})
	defer sim.Close()
	kube := kubefake.NewClientset()
	brokers := brokerfake.NewClientset()

	op, err := newOperator(testOptions(sim), clients{kube: kube, broker: brokers}, "replica-a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- op.run(ctx) }()

	select {
	case <-op.ready:
	case err := <-done:
		t.Fatalf("run ended before serving: %v", err)
	}
	healthURL := "http://" + op.health.listener.Addr().String()
	metricsURL := "http://" + op.metrics.listener.Addr().String()

	poll(t, "the Lease held by replica-a", func() bool {
		lease, err := kube.CoordinationV1().Leases(leaseNamespace).Get(ctx, "broker-operator", metav1.GetOptions{})
		return err == nil && lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity == "replica-a"
	})
	poll(t, "/readyz to answer 200 once the caches synced", func() bool {
		code, _ := get(t, healthURL+"/readyz")
		return code == http.StatusOK
	})
	if code, body := get(t, healthURL+"/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz = %d: %s", code, body)
	}

	bc := &v1alpha1.BrokerCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "example"},
		Spec: v1alpha1.BrokerClusterSpec{
			Replicas: 3,
			Image:    "broker:1",
			Storage:  v1alpha1.StorageSpec{Size: resource.MustParse("1Gi")},
			// The simulated brokers listen from this port on, one port each.
			AdminAPI: v1alpha1.AdminAPISpec{Port: int32(sim.Cluster("team-a", "example").AdminPort())},
		},
	}
	if _, err := brokers.BrokersV1alpha1().BrokerClusters("team-a").Create(ctx, bc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "the StatefulSet of 3 the controller creates", func() bool {
		sts, err := kube.AppsV1().StatefulSets("team-a").Get(ctx, "example", metav1.GetOptions{})
		return err == nil && sts.Spec.Replicas != nil && *sts.Spec.Replicas == 3
	})

	_, metrics := get(t, metricsURL+"/metrics")
	for _, name := range []string{"workqueue_adds_total", "broker_operator_", "writeback_", "go_goroutines", "go_gc_heap_live_bytes"} {
		if !strings.Contains(metrics, name) {
			t.Errorf("/metrics has no %s", name)
		}
	}
	// The PrometheusRule's lease alert reads it (charts/broker-operator/templates/prometheus_rule.yaml).
	if want := `leader_election_master_status{name="broker-operator"} 1`; !strings.Contains(metrics, want) {
		t.Errorf("/metrics of the leader has no %s", want)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run after cancel: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run did not return after cancel")
	}
	lease, err := kube.CoordinationV1().Leases(leaseNamespace).Get(context.Background(), "broker-operator", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != "" {
		t.Fatalf("the Lease is still held by %q after shutdown", *lease.Spec.HolderIdentity)
	}
	checkRequestsAgainstRBAC(t, kube.Actions())
}

// checkRequestsAgainstRBAC holds the process's own requests (leader election and events; the
// controller's are checked in pkg/controller) to deploy/rbac: each must be granted, and the
// leader election Role grants no verb that leader election does not use.
func checkRequestsAgainstRBAC(t *testing.T, actions []k8stesting.Action) {
	t.Helper()
	electionRole := readRules[rbacv1.Role](t, "../../deploy/rbac/leader_election_role.yaml")
	clusterRole := readRules[rbacv1.ClusterRole](t, "../../deploy/rbac/cluster_role.yaml")
	usedLeaseVerbs := map[string]bool{}
	sawEvent := false
	for _, a := range actions {
		res := a.GetResource()
		switch res.Resource {
		case "leases":
			usedLeaseVerbs[a.GetVerb()] = true
			if !grants(electionRole.Rules, res.Group, "leases", a.GetVerb()) {
				t.Errorf("leader election sends %s leases, which the leader election Role does not grant", a.GetVerb())
			}
		case "events":
			sawEvent = true
			if !grants(clusterRole.Rules, res.Group, "events", a.GetVerb()) {
				t.Errorf("the event recorder sends %s events, which the ClusterRole does not grant", a.GetVerb())
			}
		}
	}
	if !sawEvent {
		t.Error("no event was sent; the test no longer covers the recorder")
	}
	for _, rule := range electionRole.Rules {
		for _, v := range rule.Verbs {
			if !usedLeaseVerbs[v] {
				t.Errorf("the leader election Role grants %s, which leader election never used", v)
			}
		}
	}
}

func readRules[T rbacv1.Role | rbacv1.ClusterRole](t *testing.T, path string) T {
	t.Helper()
	var out T
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, &out); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

func grants(rules []rbacv1.PolicyRule, group, resource, verb string) bool {
	for _, r := range rules {
		if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) {
			return true
		}
	}
	return false
}

// A standby is ready at once and reconciles nothing while another replica holds the Lease.
func TestStandbyIsReadyAndIdle(t *testing.T) {
	sim := admintest.NewServer(admintest.Options{})
	defer sim.Close()
	kube := kubefake.NewClientset()
	brokers := brokerfake.NewClientset()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	leader, err := newOperator(testOptions(sim), clients{kube: kube, broker: brokers}, "replica-a")
	if err != nil {
		t.Fatal(err)
	}
	leaderDone := make(chan error, 1)
	go func() { leaderDone <- leader.run(ctx) }()
	poll(t, "replica-a to lead with synced caches", func() bool { return leader.leading.Load() && leader.ctrl.HasSynced() })

	standbyCtx, stopStandby := context.WithCancel(ctx)
	standby, err := newOperator(testOptions(sim), clients{kube: kube, broker: brokers}, "replica-b")
	if err != nil {
		t.Fatal(err)
	}
	standbyDone := make(chan error, 1)
	go func() { standbyDone <- standby.run(standbyCtx) }()
	<-standby.ready
	if code, body := get(t, "http://"+standby.health.listener.Addr().String()+"/readyz"); code != http.StatusOK {
		t.Fatalf("standby /readyz = %d: %s", code, body)
	}
	if standby.leading.Load() {
		t.Fatal("the standby leads while replica-a holds the Lease")
	}

	stopStandby()
	if err := <-standbyDone; err != nil {
		t.Fatalf("standby shutdown: %v", err)
	}
	cancel()
	if err := <-leaderDone; err != nil {
		t.Fatalf("leader shutdown: %v", err)
	}
}

func TestLeaderElectionNeedsANamespace(t *testing.T) {
	sim := admintest.NewServer(admintest.Options{})
	defer sim.Close()
	t.Setenv("POD_NAMESPACE", "")
	o := testOptions(sim)
	o.leaseNamespace = ""
	op, err := newOperator(o, clients{kube: kubefake.NewClientset(), broker: brokerfake.NewClientset()}, "x")
	if err != nil {
		t.Fatal(err)
	}
	err = op.run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "POD_NAMESPACE") {
		t.Fatalf("want an error naming POD_NAMESPACE, got %v", err)
	}
}

func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, 30*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
