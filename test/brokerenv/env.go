// Package brokerenv is what the suites that run the operator against a real kube-apiserver
// (test/e2e, with operator processes, and test/node, with the operator's Pods on a real node)
// share: the broker simulator with the PodSync and VolumeBinder that keep it in line with the
// cluster, and the helpers that create BrokerClusters, scale them and wait on them.
//
// A suite embeds *Env in its own state, so a test reads env.CreateCluster(t, ...) and
// env.AwaitConverged(t, ...) whichever suite it is in.
package brokerenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	"github.com/broker-operator/broker-operator/test/brokersim"
	"github.com/broker-operator/broker-operator/test/framework"
)

// ConvergeLimit bounds each wait for a cluster to settle; scenarios take seconds when all is
// well.
const ConvergeLimit = 2 * time.Minute

// Config is what Start needs: admin clients of the control plane, and how namespaces are made.
type Config struct {
	Kube    kubernetes.Interface
	Brokers versioned.Interface
	// Kubeconfig is an admin kubeconfig, for kubectl.
	Kubeconfig string
	// SimOptions configure the broker simulator.
	SimOptions admintest.Options
	// NamespacePrefix starts the generated name of each namespace NewNamespace makes.
	NamespacePrefix string
	// KeepNamespaces leaves the namespaces NewNamespace makes when their test ends. Otherwise
	// each is deleted, with the volumes made for its claims, when its test ends.
	KeepNamespaces bool
}

// Env is the simulated brokers of a control plane and the clients to reach both.
type Env struct {
	Config
	Sim     *admintest.Server
	Pods    *brokersim.PodSync
	volumes *brokersim.VolumeBinder
}

// Start starts the broker simulator, a PodSync that tells it which broker Pods run (in every
// namespace) and a VolumeBinder for the operator's claims. Stop stops all three; on an error,
// nothing is left running.
func Start(c Config) (*Env, error) {
	e := &Env{Config: c}
	var err error
	if e.Sim, err = admintest.Start(c.SimOptions); err != nil {
		return nil, err
	}
	// The watches run until Stop, not for the caller's setup deadline.
	if e.Pods, err = brokersim.StartPodSync(context.Background(), c.Kube, e.Sim, ""); err != nil {
		e.Stop()
		return nil, err
	}
	if e.volumes, err = brokersim.StartVolumeBinder(context.Background(), c.Kube, ""); err != nil {
		e.Stop()
		return nil, err
	}
	return e, nil
}

// Stop stops what Start started.
func (e *Env) Stop() {
	if e.volumes != nil {
		e.volumes.Stop()
	}
	if e.Pods != nil {
		e.Pods.Stop()
	}
	e.Sim.Close()
}

// NewNamespace makes a namespace for one test (see Config.KeepNamespaces).
func (e *Env) NewNamespace(t *testing.T) string {
	t.Helper()
	ns, err := e.Kube.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: e.NamespacePrefix}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	if e.KeepNamespaces {
		return ns.Name
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = e.Kube.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
		_ = e.Kube.CoreV1().PersistentVolumes().DeleteCollection(ctx, metav1.DeleteOptions{},
			metav1.ListOptions{LabelSelector: brokersim.LabelClaimNamespace + "=" + ns.Name})
	})
	return ns.Name
}

// BrokerCluster is a valid BrokerCluster whose Pods land on the fake Nodes. Its admin port is the
// first of its simulated cluster's own ports: the operator reaches broker O at that port plus O.
func (e *Env) BrokerCluster(ns, name string, replicas int32) *v1alpha1.BrokerCluster {
	return &v1alpha1.BrokerCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.BrokerClusterSpec{
			Replicas:     replicas,
			Image:        "registry.invalid/broker:1",
			Storage:      v1alpha1.StorageSpec{Size: resource.MustParse("1Gi")},
			AdminAPI:     v1alpha1.AdminAPISpec{Port: int32(e.Sim.Cluster(ns, name).AdminPort())},
			Tolerations:  framework.FakeNodeTolerations(),
			NodeSelector: framework.FakeNodeSelector(),
		},
	}
}

// CreateCluster creates BrokerCluster(ns, name, replicas), whose brokers drain for drainTime
// when decommissioned.
func (e *Env) CreateCluster(t *testing.T, ns, name string, replicas int32, drainTime time.Duration) {
	t.Helper()
	e.Sim.Cluster(ns, name).SetDrainTime(drainTime)
	if _, err := e.Brokers.BrokersV1alpha1().BrokerClusters(ns).Create(t.Context(), e.BrokerCluster(ns, name, replicas), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create BrokerCluster %s/%s: %v", ns, name, err)
	}
}

// Scale changes spec.replicas the way users do: kubectl scale, through the scale subresource.
func (e *Env) Scale(t *testing.T, ns, name string, replicas int) {
	t.Helper()
	if _, err := brokersim.Kubectl(t.Context(), e.Kubeconfig, "-n", ns, "scale", "bc/"+name, "--replicas="+strconv.Itoa(replicas)); err != nil {
		t.Fatal(err)
	}
}

// LeaseHolder reads the Lease namespace/name and returns its holder's identity ("" when none
// holds it) and its duration (0 when unset).
func (e *Env) LeaseHolder(ctx context.Context, namespace, name string) (holder string, duration time.Duration, err error) {
	lease, err := e.Kube.CoordinationV1().Leases(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", 0, fmt.Errorf("read the Lease %s/%s: %w", namespace, name, err)
	}
	if lease.Spec.HolderIdentity != nil {
		holder = *lease.Spec.HolderIdentity
	}
	if lease.Spec.LeaseDurationSeconds != nil {
		duration = time.Duration(*lease.Spec.LeaseDurationSeconds) * time.Second
	}
	return holder, duration, nil
}

// OperatorUser is the user deploy/'s operator runs as.
const OperatorUser = "system:serviceaccount:" + brokersim.OperatorNamespace + ":" + brokersim.OperatorServiceAccount

// CheckNoForbiddenRequests returns an error naming every request of users that RBAC refused on
// cp. A controller often only logs a Forbidden answer, so the apiserver's audit log is the
// judge.
func CheckNoForbiddenRequests(cp *framework.ControlPlane, users ...string) error {
	forbidden, err := cp.ForbiddenRequests()
	if err != nil {
		return fmt.Errorf("read the audit log: %w", err)
	}
	var errs []error
	for _, r := range forbidden {
		if slices.Contains(users, r.User) {
			errs = append(errs, errors.New(r.String()))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("RBAC refused the operator (its RBAC lacks a rule, or the operator asks for too much):\n%w", errors.Join(errs...))
	}
	return nil
}

// Undo is a suite setup's steps to undo, run last first. keepLogs asks the steps that would
// delete logs (a control plane's, a node's) to keep them.
type Undo struct{ steps []func(keepLogs bool) }

// Push adds a step, to run before those pushed earlier.
func (u *Undo) Push(step func(keepLogs bool)) { u.steps = append(u.steps, step) }

// Run runs every step pushed so far, last first.
func (u *Undo) Run(keepLogs bool) {
	for i := len(u.steps) - 1; i >= 0; i-- {
		u.steps[i](keepLogs)
	}
}

// RunAndCheck runs the tests and, when they all pass, check: the suite's judgement of the
// whole run (RBAC refused the operator nothing, say), whose error fails it.
func RunAndCheck(m *testing.M, check func() error) int {
	code := m.Run()
	if code == 0 {
		if err := check(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return code
}
