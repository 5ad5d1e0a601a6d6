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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/test/brokerenv"
	"github.com/broker-operator/broker-operator/test/brokersim"
)

const (
	convergeLimit = brokerenv.ConvergeLimit
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

// awaitOperatorRolledOut waits until the operator's Deployment has rolled out completely: two
// Pods of the current template, both Ready, and no other Pod left, terminating or not. It returns
// the Pods.
func awaitOperatorRolledOut(t *testing.T, in install) []corev1.Pod {
	t.Helper()
	kubectl(t, "-n", in.namespace, "rollout", "status", "deployment/"+in.deployment, "--timeout="+rolloutTimeout)
	var (
		pods []corev1.Pod
		last string
	)
	err := wait.PollUntilContextTimeout(t.Context(), poll, convergeLimit, true, func(ctx context.Context) (bool, error) {
		list, err := env.Kube.CoreV1().Pods(in.namespace).List(ctx, metav1.ListOptions{LabelSelector: operatorSelector})
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

// leaderPod returns the Pod named by the holder identity of the operator's Lease in namespace
// (the operator's identity is its hostname, the Pod's name, and a suffix), and the Lease's
// duration.
func leaderPod(ctx context.Context, namespace string) (pod string, duration time.Duration, err error) {
	holder, duration, err := env.LeaseHolder(ctx, namespace, leaseName)
	if err != nil {
		return "", 0, err
	}
	if holder == "" {
		return "", 0, fmt.Errorf("lease %s has no holder", leaseName)
	}
	pod, _, _ = strings.Cut(holder, "_")
	return pod, duration, nil
}

// awaitLeaderPod waits until one of pods holds the Lease and returns it and the other.
func awaitLeaderPod(t *testing.T, pods []corev1.Pod) (leader, standby corev1.Pod) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), poll, convergeLimit, true, func(ctx context.Context) (bool, error) {
		holder, _, err := leaderPod(ctx, pods[0].Namespace)
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

// checkDecommissionedOnce fails unless the cluster saw exactly one accepted decommission per
// broker in want, in that order, no recommission, and the simulator no decision made twice and
// no broker whose Pod left while it was still a member.
func checkDecommissionedOnce(t *testing.T, ns, name string, want []int) {
	t.Helper()
	var got []int
	for _, c := range env.Sim.Cluster(ns, name).Calls() {
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
	if d := env.Sim.DoubleDecommissions(); len(d) > 0 {
		t.Errorf("decommissions made twice: %v", d)
	}
	if l := env.Sim.LeftBeforeDecommission(); len(l) > 0 {
		t.Errorf("brokers whose Pod left while still members: %v", l)
	}
}
