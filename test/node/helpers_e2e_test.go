//go:build e2e

package node

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/test/brokersim"
	"github.com/broker-operator/broker-operator/test/framework"
)

const (
	convergeLimit = 2 * time.Minute
	poll          = 100 * time.Millisecond
)

func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	out, err := brokersim.Kubectl(t.Context(), env.node.KubeconfigPath, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// install is one installation of the operator: deploy/'s, or the chart's.
type install struct{ namespace, deployment string }

var kustomized = install{operatorNamespace, operatorDeployment}

// awaitRolledOut waits until the operator's Deployment has rolled out completely: two Pods of the
// current template, both Ready, and no other Pod left, terminating or not. It returns the Pods.
func awaitRolledOut(t *testing.T, in install) []corev1.Pod {
	t.Helper()
	kubectl(t, "-n", in.namespace, "rollout", "status", "deployment/"+in.deployment, "--timeout="+rolloutTimeout)
	var (
		pods []corev1.Pod
		last string
	)
	err := wait.PollUntilContextTimeout(t.Context(), poll, convergeLimit, true, func(ctx context.Context) (bool, error) {
		list, err := env.kube.CoreV1().Pods(in.namespace).List(ctx, metav1.ListOptions{LabelSelector: operatorSelector})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		pods = list.Items
		ready := 0
		for _, p := range pods {
			if p.DeletionTimestamp == nil && brokersim.PodReady(&p) {
				ready++
			}
		}
		last = fmt.Sprintf("%d Pods, %d of them Ready and not terminating", len(pods), ready)
		return len(pods) == 2 && ready == 2, nil
	})
	if err != nil {
		t.Fatalf("the operator's Deployment did not settle at two Ready Pods within %s: %s", convergeLimit, last)
	}
	return pods
}

// leaseHolder returns the Pod named by the Lease's holder identity (the operator's identity is
// its hostname, the Pod's name, and a suffix), and the Lease's duration.
func leaseHolder(ctx context.Context, namespace string) (pod string, duration time.Duration, err error) {
	lease, err := env.kube.CoordinationV1().Leases(namespace).Get(ctx, leaseName, metav1.GetOptions{})
	if err != nil {
		return "", 0, err
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		return "", 0, fmt.Errorf("lease %s has no holder", leaseName)
	}
	holder, _, _ := strings.Cut(*lease.Spec.HolderIdentity, "_")
	if lease.Spec.LeaseDurationSeconds != nil {
		duration = time.Duration(*lease.Spec.LeaseDurationSeconds) * time.Second
	}
	return holder, duration, nil
}

// awaitLeader waits until one of pods holds the Lease and returns it and the other.
func awaitLeader(t *testing.T, pods []corev1.Pod) (leader, standby corev1.Pod) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), poll, convergeLimit, true, func(ctx context.Context) (bool, error) {
		holder, _, err := leaseHolder(ctx, pods[0].Namespace)
		if err != nil {
			last = err.Error()
			return false, nil
		}
		i := slices.IndexFunc(pods, func(p corev1.Pod) bool { return p.Name == holder })
		if i < 0 {
			last = "the Lease is held by " + holder + ", which is none of the Pods"
			return false, nil
		}
		leader, standby = pods[i], pods[1-i]
		return true, nil
	})
	if err != nil {
		t.Fatalf("no operator Pod leads within %s: %s", convergeLimit, last)
	}
	return leader, standby
}

// podGet fetches path from a port of a Pod, by the port's name in the Pod spec, at the Pod's IP.
func podGet(t *testing.T, pod corev1.Pod, portName, path string) (int, string) {
	t.Helper()
	port := 0
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == portName {
				port = int(p.ContainerPort)
			}
		}
	}
	if port == 0 || pod.Status.PodIP == "" {
		t.Fatalf("pod %s has no port %q or no IP (%q)", pod.Name, portName, pod.Status.PodIP)
	}
	url := "http://" + net.JoinHostPort(pod.Status.PodIP, strconv.Itoa(port)) + path
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, string(body)
}

// newNamespace creates a namespace for a test's BrokerClusters. It stays until the node goes: the
// operator watches every namespace, and its writes into a terminating one would be refused with
// 403, which the suite's final RBAC check cannot tell from a missing rule.
func newNamespace(t *testing.T) string {
	t.Helper()
	ns, err := env.kube.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "node-e2e-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// createCluster creates a BrokerCluster whose broker Pods go to the fake Node, whose brokers
// drain for drainTime when decommissioned, and whose admin port is its simulated cluster's
// AdminPort, from which each broker listens on a port of its own.
func createCluster(t *testing.T, ns, name string, replicas int32, drainTime time.Duration) {
	t.Helper()
	sim := env.sim.Cluster(ns, name)
	sim.SetDrainTime(drainTime)
	bc := &v1alpha1.BrokerCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.BrokerClusterSpec{
			Replicas:     replicas,
			Image:        "registry.invalid/broker:1",
			Storage:      v1alpha1.StorageSpec{Size: resource.MustParse("1Gi")},
			Tolerations:  framework.FakeNodeTolerations(),
			NodeSelector: framework.FakeNodeSelector(),
			AdminAPI:     v1alpha1.AdminAPISpec{Port: int32(sim.AdminPort())},
		},
	}
	if _, err := env.brokers.BrokersV1alpha1().BrokerClusters(ns).Create(t.Context(), bc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create BrokerCluster %s/%s: %v", ns, name, err)
	}
}

// scale changes spec.replicas with kubectl scale, as users do.
func scale(t *testing.T, ns, name string, replicas int) {
	t.Helper()
	kubectl(t, "-n", ns, "scale", "bc/"+name, "--replicas="+strconv.Itoa(replicas))
}

// awaitConverged waits until the cluster is steady at target brokers: status observed, current
// and ready, nothing decommissioning, Pods 0..target-1 run brokers, target brokers active.
func awaitConverged(t *testing.T, ns, name string, target int32) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), poll, convergeLimit, true, func(ctx context.Context) (bool, error) {
		bc, err := env.brokers.BrokersV1alpha1().BrokerClusters(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		st := bc.Status
		if bc.Spec.Replicas != target || st.ObservedGeneration != bc.Generation || st.CurrentReplicas != target ||
			st.ReadyReplicas != target || st.DecommissioningBroker != nil || !meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionReady) {
			last = fmt.Sprintf("status %+v", st)
			return false, nil
		}
		want := make([]int, target)
		for i := range want {
			want[i] = i
		}
		if running := env.pods.Running(ns, name); !slices.Equal(running, want) {
			last = fmt.Sprintf("pods running brokers %v, want %v", running, want)
			return false, nil
		}
		active := 0
		for _, b := range env.sim.Cluster(ns, name).Brokers() {
			if b.PodRunning && b.Status == admin.MembershipActive {
				active++
			}
		}
		last = fmt.Sprintf("%d active brokers", active)
		return active == int(target), nil
	})
	if err != nil {
		t.Fatalf("BrokerCluster %s/%s did not settle at %d brokers within %s: %s", ns, name, target, convergeLimit, last)
	}
}

// awaitDraining waits until the simulator has a broker of the cluster draining.
func awaitDraining(t *testing.T, ns, name string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, convergeLimit, true, func(context.Context) (bool, error) {
		for _, b := range env.sim.Cluster(ns, name).Brokers() {
			if b.Status == admin.MembershipDraining {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no broker of %s/%s started draining within %s", ns, name, convergeLimit)
	}
}

// nodeIDs maps pod ordinals to the node IDs of the brokers they run.
func nodeIDs(t *testing.T, ns, name string, count int) []int {
	t.Helper()
	ids := make([]int, count)
	for o := range count {
		id, ok := env.sim.Cluster(ns, name).NodeID(o)
		if !ok {
			t.Fatalf("pod %s-%d runs no broker", name, o)
		}
		ids[o] = id
	}
	return ids
}

// checkDecommissionedOnce fails unless the cluster saw exactly one accepted decommission per
// broker in want, in that order, no recommission, and the simulator no decision made twice and
// no broker whose Pod left while it was still a member.
func checkDecommissionedOnce(t *testing.T, ns, name string, want []int) {
	t.Helper()
	var got []int
	for _, c := range env.sim.Cluster(ns, name).Calls() {
		if c.Method == http.MethodPut && c.Status == http.StatusOK {
			switch {
			case strings.HasSuffix(c.Path, "/decommission"):
				got = append(got, c.NodeID)
			case strings.HasSuffix(c.Path, "/recommission"):
				t.Errorf("broker %d was recommissioned", c.NodeID)
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("decommissions of brokers %v, want %v, once each", got, want)
	}
	if d := env.sim.DoubleDecommissions(); len(d) > 0 {
		t.Errorf("decommissions made twice: %v", d)
	}
	if l := env.sim.LeftBeforeDecommission(); len(l) > 0 {
		t.Errorf("brokers whose Pod left while still members: %v", l)
	}
}
