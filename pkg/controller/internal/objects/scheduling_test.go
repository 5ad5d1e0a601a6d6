package objects

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// By default a broker pod keeps off any node that runs another broker of its cluster, and only of
// its cluster, and the brokers spread over the zones without ever waiting for one.
func TestBrokersDefaultToOnePerNodeSpreadOverZones(t *testing.T) {
	bc := newBrokerCluster(3)
	spec := NewStatefulSet(bc, 3, 3, testDomain).Spec.Template.Spec
	if spec.Affinity == nil || spec.Affinity.PodAntiAffinity == nil {
		t.Fatalf("affinity %+v, want a pod anti-affinity", spec.Affinity)
	}
	terms := spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if len(terms) != 1 || terms[0].TopologyKey != corev1.LabelHostname {
		t.Fatalf("required anti-affinity %+v, want one term on %s", terms, corev1.LabelHostname)
	}
	if spec.Affinity.NodeAffinity != nil || spec.Affinity.PodAffinity != nil || len(spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
		t.Errorf("affinity %+v, want the anti-affinity alone", spec.Affinity)
	}
	selects := func(sel *metav1.LabelSelector, cluster string) bool {
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil {
			t.Fatal(err)
		}
		other := bc.DeepCopy()
		other.Name = cluster
		return s.Matches(labels.Set(SelectorLabels(other)))
	}
	if !selects(terms[0].LabelSelector, bc.Name) || selects(terms[0].LabelSelector, "other") {
		t.Errorf("the anti-affinity selects %v: want this cluster's broker pods and no other cluster's", terms[0].LabelSelector)
	}
	want := []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.ScheduleAnyway,
		LabelSelector: &metav1.LabelSelector{MatchLabels: SelectorLabels(bc)}}}
	if !equality.Semantic.DeepEqual(spec.TopologySpreadConstraints, want) {
		t.Errorf("topology spread %+v, want %+v", spec.TopologySpreadConstraints, want)
	}
	if spec.PriorityClassName != "" {
		t.Errorf("priority class %q, want none", spec.PriorityClassName)
	}
}

// With rack awareness the brokers spread over the node label their racks are read from.
func TestRackAwarenessSpreadsOverItsLabel(t *testing.T) {
	bc := newBrokerCluster(3)
	bc.Spec.RackAwareness = &v1alpha1.RackAwarenessSpec{NodeLabel: "example.com/rack"}
	got := NewStatefulSet(bc, 3, 3, testDomain).Spec.Template.Spec.TopologySpreadConstraints
	if len(got) != 1 || got[0].TopologyKey != "example.com/rack" || got[0].WhenUnsatisfiable != corev1.ScheduleAnyway {
		t.Errorf("topology spread %+v, want one over example.com/rack, ScheduleAnyway", got)
	}
}

// Each part the spec sets replaces that part of the default: a podAntiAffinity the default
// anti-affinity (an empty one removes it), a list of constraints the default spread (an empty
// list removes it); a nodeAffinity comes with the default anti-affinity. Each is a template
// change, restarting the brokers, and the restart names it.
func TestSpecPlacementReplacesTheDefaultPartByPart(t *testing.T) {
	bc := newBrokerCluster(3)
	before := hashedPodTemplate(bc, 3, testDomain)
	pod := admitted(before)

	nodeAffinity := &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
			Key: "node-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"storage"}}}}}}}
	bc.Spec.Affinity = &corev1.Affinity{NodeAffinity: nodeAffinity}
	a := brokerAffinity(bc)
	if !equality.Semantic.DeepEqual(a.NodeAffinity, nodeAffinity) || a.PodAntiAffinity == nil || len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Errorf("with a node affinity alone: %+v, want it and the default anti-affinity", a)
	}
	if bc.Spec.Affinity.PodAntiAffinity != nil {
		t.Error("building the template wrote the default into the spec")
	}

	soft := &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 100,
		PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: SelectorLabels(bc)}}}}}
	bc.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: soft}
	if a := brokerAffinity(bc); !equality.Semantic.DeepEqual(a.PodAntiAffinity, soft) {
		t.Errorf("a preferred anti-affinity: %+v, want it in place of the default", a.PodAntiAffinity)
	}
	bc.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{}}
	if a := brokerAffinity(bc); len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution)+len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
		t.Errorf("an empty anti-affinity: %+v, want no term", a.PodAntiAffinity)
	}

	own := []corev1.TopologySpreadConstraint{{MaxSkew: 2, TopologyKey: "example.com/rack", WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: SelectorLabels(bc)}}}
	bc.Spec.TopologySpreadConstraints = own
	if got := brokerSpread(bc); !equality.Semantic.DeepEqual(got, own) {
		t.Errorf("spread %+v, want the spec's %+v", got, own)
	}
	bc.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{}
	if got := brokerSpread(bc); len(got) != 0 {
		t.Errorf("an empty list of constraints: spread %+v, want none", got)
	}
	bc.Spec.PriorityClassName = "brokers"

	after := hashedPodTemplate(bc, 3, testDomain)
	if after.Annotations[AnnotationTemplateHash] == before.Annotations[AnnotationTemplateHash] {
		t.Fatal("the placement changes left the template hash as it was: no broker would restart")
	}
	got := TemplateChanges(pod, after)
	for _, want := range []string{"affinity", "topologySpreadConstraints", "priorityClassName"} {
		if !slices.Contains(got, want) {
			t.Errorf("the restart names %v, without %s", got, want)
		}
	}
}
