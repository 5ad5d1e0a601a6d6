package brokersim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller"
)

// Converged reports whether bc is steady at target brokers in its default pool, judged from the
// apiserver's object and the brokers, never from the operator's logs: the operator has observed
// the spec; current, ready and updated replicas equal target; no broker is being decommissioned
// or restarted; exactly the Pods 0..target-1 run a broker; and exactly target active brokers run
// in them. A cluster with pools is judged pool by pool instead (convergedPools). When it is not
// steady, the string says what is missing.
func (s *PodSync) Converged(bc *v1alpha1.BrokerCluster, target int32) (bool, string) {
	running := s.RunningPools(bc.Namespace, bc.Name)
	brokers := s.sim.Cluster(bc.Namespace, bc.Name).Brokers()
	if hasPools(bc, running, brokers) {
		return convergedPools(bc, target, running, brokers)
	}
	return converged(bc, target, running[""], brokers)
}

func converged(bc *v1alpha1.BrokerCluster, target int32, running []int, brokers []admintest.BrokerState) (bool, string) {
	st := bc.Status
	decommissioning := "none"
	if st.DecommissioningBroker != nil {
		decommissioning = strconv.Itoa(int(*st.DecommissioningBroker))
	}
	if bc.Spec.Replicas != target || st.ObservedGeneration != bc.Generation || st.CurrentReplicas != target ||
		st.ReadyReplicas != target || st.DecommissioningBroker != nil {
		return false, fmt.Sprintf("spec %d, generation %d observed %d, current %d, ready %d, decommissioning %s",
			bc.Spec.Replicas, bc.Generation, st.ObservedGeneration, st.CurrentReplicas, st.ReadyReplicas, decommissioning)
	}
	if st.Restart != nil || st.UpdatedReplicas != target {
		return false, fmt.Sprintf("rollout: %d of %d updated, restarting %v", st.UpdatedReplicas, target, st.Restart)
	}
	if len(running) != int(target) || (target > 0 && running[len(running)-1] != int(target)-1) {
		return false, fmt.Sprintf("broker pods %v, want ordinals 0 to %d", running, target-1)
	}
	active := 0
	for _, b := range brokers {
		if b.PodRunning && b.Status == admin.MembershipActive {
			active++
		}
	}
	if active != int(target) {
		return false, fmt.Sprintf("%d active brokers, want %d", active, target)
	}
	return true, ""
}

// DescribePods says where each Pod of a cluster, in every pool, is (phase, deleting, ready,
// unscheduled, and a Pod whose name is no ordinal of its pool's StatefulSet), for the report of
// a cluster that did not converge.
func (s *PodSync) DescribePods(namespace, name string) string {
	pods, err := s.pods.Pods(namespace).List(labels.SelectorFromSet(labels.Set{controller.LabelInstance: name}))
	if err != nil {
		return err.Error()
	}
	slices.SortFunc(pods, func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	var out []string
	for _, p := range pods {
		state := string(p.Status.Phase)
		if pool, _, ok := PodPool(p, name); !ok {
			state += ", not a Pod of StatefulSet " + setName(name, pool)
		}
		if p.DeletionTimestamp != nil {
			state += ", deleting"
		}
		if PodReady(p) {
			state += ", ready"
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status != corev1.ConditionTrue {
				state += ", unscheduled: " + c.Message
			}
		}
		out = append(out, p.Name+" ("+state+")")
	}
	return strings.Join(out, "; ")
}
