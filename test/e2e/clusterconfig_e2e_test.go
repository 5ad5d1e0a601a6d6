//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller"
)

// TestClusterPropertyNeedingARestartRollsOneBrokerAtATime sets two cluster properties, one of
// which needs a restart (kafka_rpc_server_tcp_recv_buf, needs_restart::yes in Redpanda's
// configuration.cc): both are written in one PUT, and each broker is restarted once, highest
// ordinal first, never two in maintenance or away at once, until none reports restart: true.
func TestClusterPropertyNeedingARestartRollsOneBrokerAtATime(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "props"
	env.CreateCluster(t, ns, name, 3, time.Second)
	env.AwaitConverged(t, ns, name, 3)
	ids := env.NodeIDs(t, ns, name, 3)
	pods := recordPods(t, ns, name)
	before := podUIDs(t, ns, name)
	env.Sim.Cluster(ns, name).SetControllerLeader(0) // restarted last, so the order stays highest first

	setClusterConfig(t, ns, name, map[string]string{"kafka_rpc_server_tcp_recv_buf": "65536", "log_segment_size": "268435456"})
	bc := awaitConfigApplied(t, ns, name)

	checkRolledOneAtATime(t, ns, name, ids, pods)
	after := podUIDs(t, ns, name)
	for pod, uid := range before {
		if after[pod] == uid {
			t.Errorf("pod %s was not restarted", pod)
		}
	}
	if n := configWrites(ns, name); n != 1 {
		t.Errorf("%d writes of the cluster config, want 1", n)
	}
	cfg := simClusterConfig(t, ns, name)
	if string(cfg["kafka_rpc_server_tcp_recv_buf"]) != "65536" || string(cfg["log_segment_size"]) != "268435456" {
		t.Errorf("brokers' cluster config %s, want both properties", cfg)
	}
	if st := bc.Status.ClusterConfig; len(st.Applied) != 2 || st.PendingRestart != nil || st.BrokersPendingRestart != nil {
		t.Errorf("status.clusterConfig %+v, want both applied, nothing pending", st)
	}
	awaitEventMessage(t, ns, name, "ClusterConfigRestartPending", corev1.EventTypeNormal, "3 brokers need a restart")
	awaitEventMessage(t, ns, name, "ClusterConfigApplied", corev1.EventTypeNormal, "applied on every broker")
	checkBrokersSafe(t, ns, name)
	checkNoForbidden(t)
}

// TestInvalidClusterPropertyIsReportedAndNotApplied changes a valid property and sets an
// invalid one in one spec change: Redpanda refuses the PUT, the ConfigApplied condition and an
// event carry its answer, and neither property changes on the brokers; no broker restarts.
func TestInvalidClusterPropertyIsReportedAndNotApplied(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "badprops"
	bc := env.BrokerCluster(ns, name, 3)
	bc.Spec.ClusterConfig = map[string]string{"auto_create_topics_enabled": "true"}
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Create(t.Context(), bc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.AwaitConverged(t, ns, name, 3)
	awaitConfigApplied(t, ns, name)
	before := podUIDs(t, ns, name)

	setClusterConfig(t, ns, name, map[string]string{"auto_create_topics_enabled": "false", "log_segment_size": "1024"})
	const answer = "log_segment_size: too small, must be at least 1048576"
	bc = awaitStatus(t, ns, name, "the refusal reported", func(bc *v1alpha1.BrokerCluster) bool {
		c := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionConfigApplied)
		return c != nil && c.Reason == controller.ReasonConfigRejected && c.ObservedGeneration == bc.Generation
	})
	c := meta.FindStatusCondition(bc.Status.Conditions, v1alpha1.ConditionConfigApplied)
	if c.Status != metav1.ConditionFalse || !strings.HasSuffix(c.Message, answer) {
		t.Errorf("ConfigApplied %+v, want False with %q", c, answer)
	}
	want := []v1alpha1.RejectedProperty{{Name: "log_segment_size", Reason: "too small, must be at least 1048576"}}
	if got := bc.Status.ClusterConfig.Rejected; !slices.Equal(got, want) {
		t.Errorf("status.clusterConfig.rejected %v, want %v", got, want)
	}
	if cfg := simClusterConfig(t, ns, name); len(cfg) != 1 || string(cfg["auto_create_topics_enabled"]) != "true" {
		t.Errorf("brokers' cluster config %s, want auto_create_topics_enabled still true and nothing else", cfg)
	}
	if meta.IsStatusConditionTrue(bc.Status.Conditions, v1alpha1.ConditionDegraded) {
		t.Error("a refused property degraded the cluster")
	}
	awaitEventMessage(t, ns, name, "ClusterConfigRejected", corev1.EventTypeWarning, answer)
	if after := podUIDs(t, ns, name); len(maintenanceCalls(ns, name)) > 0 || !maps.Equal(before, after) {
		t.Errorf("brokers restarted for a refused property: maintenance %v, pods %v then %v", maintenanceCalls(ns, name), before, after)
	}
	checkNoForbidden(t)
}

// setClusterConfig merges properties into spec.clusterConfig as a user's kubectl patch would.
func setClusterConfig(t *testing.T, ns, name string, props map[string]string) {
	t.Helper()
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"clusterConfig": props}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// awaitConfigApplied waits until the current spec's cluster properties are in effect on every
// broker and no restart is under way.
func awaitConfigApplied(t *testing.T, ns, name string) *v1alpha1.BrokerCluster {
	t.Helper()
	return awaitStatus(t, ns, name, "the cluster properties in effect", func(bc *v1alpha1.BrokerCluster) bool {
		st := bc.Status.ClusterConfig
		return st != nil && st.ObservedGeneration == bc.Generation && bc.Status.Restart == nil &&
			meta.IsStatusConditionTrue(bc.Status.Conditions, v1alpha1.ConditionConfigApplied)
	})
}

// simClusterConfig is the cluster properties the simulated brokers have set away from their
// defaults.
func simClusterConfig(t *testing.T, ns, name string) map[string]json.RawMessage {
	t.Helper()
	cc, err := admin.NewClusterConfigClient(env.Sim.Cluster(ns, name).Config(1))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := cc.ClusterConfig(t.Context(), false)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// configWrites counts the accepted PUT /v1/cluster_config calls that reached a cluster.
func configWrites(ns, name string) int {
	n := 0
	for _, c := range env.Sim.Cluster(ns, name).Calls() {
		if c.Method == http.MethodPut && strings.HasSuffix(c.Path, "/v1/cluster_config") && c.Status == http.StatusOK {
			n++
		}
	}
	return n
}

// awaitEventMessage waits for an event about the BrokerCluster of the given reason and type
// whose message contains text.
func awaitEventMessage(t *testing.T, ns, name, reason, typ, text string) {
	t.Helper()
	awaitEventWhere(t, ns, fmt.Sprintf("%s event %s about %s containing %q", typ, reason, name, text), func(e corev1.Event) bool {
		return e.Reason == reason && e.Type == typ && e.InvolvedObject.Name == name && strings.Contains(e.Message, text)
	})
}

// awaitEventWhere waits for an event in ns that match accepts.
func awaitEventWhere(t *testing.T, ns, what string, match func(corev1.Event) bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, convergeLimit, true, func(ctx context.Context) (bool, error) {
		events, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		return slices.ContainsFunc(events.Items, match), nil
	})
	if err != nil {
		t.Fatalf("no %s within %s", what, convergeLimit)
	}
}

// podUIDs maps a cluster's pod names to their UIDs.
func podUIDs(t *testing.T, ns, name string) map[string]types.UID {
	t.Helper()
	list, err := env.Kube.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: controller.LabelInstance + "=" + name})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]types.UID{}
	for _, p := range list.Items {
		out[p.Name] = p.UID
	}
	return out
}

// TestOperatorOwnedClusterPropertyRefused checks that the CRD refuses, in spec.clusterConfig, a
// property the operator sets itself, and accepts any other name: Redpanda judges those.
func TestOperatorOwnedClusterPropertyRefused(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	clusters := env.Brokers.BrokersV1alpha1().BrokerClusters(ns)
	bc := env.BrokerCluster(ns, "owned", 3)
	bc.Spec.ClusterConfig = map[string]string{"superusers": `["someone"]`}
	_, err := clusters.Create(t.Context(), bc, metav1.CreateOptions{})
	expectInvalid(t, "create with superusers in spec.clusterConfig", err, "are set by the operator from spec.adminAPI.auth")

	bc = env.BrokerCluster(ns, "other", 3)
	bc.Spec.ClusterConfig = map[string]string{"no_such_property": "1"}
	if _, err := clusters.Create(t.Context(), bc, metav1.CreateOptions{}); err != nil {
		t.Errorf("create with a property the CRD does not know: %v", err)
	}
}
