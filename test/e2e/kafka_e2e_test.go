//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
	"github.com/broker-operator/broker-operator/pkg/controller"
)

// Node ports are cluster-wide, and a deleted namespace's Services linger a moment: each cluster,
// in every run of -count, takes a block of node ports no other has had.
var nodePortBlocks atomic.Int32

func nextNodePortBase() int32 { return 31000 + 10*nodePortBlocks.Add(1) }

// createNodePortCluster creates a cluster with an external NodePort listener from basePort.
func createNodePortCluster(t *testing.T, ns, name string, replicas, basePort int32, drainTime time.Duration) {
	t.Helper()
	env.Sim.Cluster(ns, name).SetDrainTime(drainTime)
	bc := env.BrokerCluster(ns, name, replicas)
	bc.Spec.Kafka = &v1alpha1.KafkaSpec{External: &v1alpha1.ExternalListener{
		Type: v1alpha1.ExternalNodePort, NodePort: &v1alpha1.NodePortListener{BasePort: basePort}}}
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Create(t.Context(), bc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create BrokerCluster %s/%s: %v", ns, name, err)
	}
}

// TestExternalNodePortListener: each broker gets a NodePort Service of its own, selecting only
// its pod, on basePort + ordinal, and its pod is told to advertise its node's IP with that port.
func TestExternalNodePortListener(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "external"
	base := nextNodePortBase()
	createNodePortCluster(t, ns, name, 3, base, time.Second)
	env.AwaitConverged(t, ns, name, 3)

	for ordinal := range 3 {
		pod := fmt.Sprintf("%s-%d", name, ordinal)
		svc, err := env.Kube.CoreV1().Services(ns).Get(t.Context(), brokerconfig.ExternalServiceName(name, int32(ordinal)), metav1.GetOptions{})
		if err != nil {
			t.Fatalf("broker %d's external Service: %v", ordinal, err)
		}
		port := base + int32(ordinal)
		if svc.Spec.Type != corev1.ServiceTypeNodePort || svc.Spec.Ports[0].NodePort != port || svc.Spec.Selector[brokerconfig.PodNameLabel] != pod ||
			svc.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyLocal {
			t.Errorf("Service %s: type %s, node port %d, selector %v, policy %s; want NodePort %d selecting %s only, traffic kept on its node",
				svc.Name, svc.Spec.Type, svc.Spec.Ports[0].NodePort, svc.Spec.Selector, svc.Spec.ExternalTrafficPolicy, port, pod)
		}
		p := awaitPodAnnotation(t, ns, pod, controller.AnnotationExternalAddress)
		if p.Status.HostIP == "" || p.Annotations[controller.AnnotationExternalAddress] != p.Status.HostIP+":"+strconv.Itoa(int(port)) {
			t.Errorf("pod %s advertises %q, want its node's IP %q with node port %d", pod, p.Annotations[controller.AnnotationExternalAddress], p.Status.HostIP, port)
		}
		checkPodReadsItsAddress(t, p)
	}
	checkNoForbidden(t)
}

// checkPodReadsItsAddress checks that the pod's config container gets the annotation as a file
// and writes it into redpanda.yaml as the external listener's advertised address.
func checkPodReadsItsAddress(t *testing.T, p *corev1.Pod) {
	t.Helper()
	var item string
	for _, v := range p.Spec.Volumes {
		if v.DownwardAPI != nil {
			for _, f := range v.DownwardAPI.Items {
				item += f.Path + "=" + f.FieldRef.FieldPath + " "
			}
		}
	}
	if !strings.Contains(item, "kafka-external-address=metadata.annotations['"+controller.AnnotationExternalAddress+"']") {
		t.Errorf("pod %s: downward API files %q do not carry the address annotation", p.Name, item)
	}
	script := strings.Join(p.Spec.InitContainers[0].Command, " ")
	if !strings.Contains(script, "redpanda.advertised_kafka_api[1]") {
		t.Errorf("pod %s: the config container does not write the external address: %s", p.Name, script)
	}
}

func awaitPodAnnotation(t *testing.T, ns, pod, key string) *corev1.Pod {
	t.Helper()
	var p *corev1.Pod
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, convergeLimit, true, func(ctx context.Context) (bool, error) {
		var err error
		p, err = env.Kube.CoreV1().Pods(ns).Get(ctx, pod, metav1.GetOptions{})
		return err == nil && p.Annotations[key] != "", nil
	})
	if err != nil {
		t.Fatalf("pod %s/%s has no annotation %s within %s", ns, pod, key, convergeLimit)
	}
	return p
}

// TestScaleDownRemovesTheExternalServiceAfterTheBrokerLeft scales 3 brokers to 2: the Service
// of the broker that goes is deleted only once that broker has left the cluster, and the others
// stay.
func TestScaleDownRemovesTheExternalServiceAfterTheBrokerLeft(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	startOperator(t, ns, "a")
	const name = "extscale"
	createNodePortCluster(t, ns, name, 3, nextNodePortBase(), 2*time.Second)
	env.AwaitConverged(t, ns, name, 3)
	ids := env.NodeIDs(t, ns, name, 3)
	gone := watchServiceDeletions(t, ns, func() string { return string(env.BrokerStatus(ns, name, ids[2])) })

	env.Scale(t, ns, name, 2)
	if id := env.AwaitDraining(t, ns, name); int(id) != ids[2] {
		t.Fatalf("broker %d decommissioning, want %d", id, ids[2])
	}
	if _, err := env.Kube.CoreV1().Services(ns).Get(t.Context(), brokerconfig.ExternalServiceName(name, 2), metav1.GetOptions{}); err != nil {
		t.Errorf("the Service of the broker being drained: %v; it must stay until the broker has left", err)
	}
	env.AwaitConverged(t, ns, name, 2)

	deleted := gone.await(t, brokerconfig.ExternalServiceName(name, 2))
	if deleted.brokerStatus == string(admin.MembershipActive) || deleted.brokerStatus == string(admin.MembershipDraining) {
		t.Errorf("the Service of broker %d was deleted while the broker was %s", ids[2], deleted.brokerStatus)
	}
	for ordinal := range 2 {
		if _, err := env.Kube.CoreV1().Services(ns).Get(t.Context(), brokerconfig.ExternalServiceName(name, int32(ordinal)), metav1.GetOptions{}); err != nil {
			t.Errorf("the Service of broker %d, which stays: %v", ordinal, err)
		}
	}
	checkNoForbidden(t)
}

// serviceDeletion is a deleted Service and what the departing broker was at that moment.
type serviceDeletion struct {
	name         string
	brokerStatus string
}

type serviceDeletions struct {
	mu      sync.Mutex
	deleted []serviceDeletion
}

// watchServiceDeletions records each external Service deletion with status() as the watch
// reports it.
func watchServiceDeletions(t *testing.T, ns string, status func() string) *serviceDeletions {
	t.Helper()
	w, err := env.Kube.CoreV1().Services(ns).Watch(t.Context(), metav1.ListOptions{LabelSelector: controller.LabelListener + "=external"})
	if err != nil {
		t.Fatalf("watch Services: %v", err)
	}
	log := &serviceDeletions{}
	onDeleted(t, w, func(svc metav1.Object) {
		s := status()
		log.mu.Lock()
		log.deleted = append(log.deleted, serviceDeletion{name: svc.GetName(), brokerStatus: s})
		log.mu.Unlock()
	})
	return log
}

func (l *serviceDeletions) await(t *testing.T, name string) serviceDeletion {
	t.Helper()
	var found *serviceDeletion
	err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, convergeLimit, true, func(context.Context) (bool, error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		for i := range l.deleted {
			if l.deleted[i].name == name {
				found = &l.deleted[i]
			}
		}
		return found != nil, nil
	})
	if err != nil {
		t.Fatalf("Service %s was not deleted within %s", name, convergeLimit)
	}
	return *found
}
