package objects

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokerpod"
)

// Labels and annotations the operator puts on what it owns.
const (
	LabelManagedBy   = "app.kubernetes.io/managed-by"
	ManagedByValue   = "broker-operator"
	LabelName        = "app.kubernetes.io/name"
	NameValue        = "broker"
	LabelInstance    = "app.kubernetes.io/instance"
	AnnotationNodeID = brokerpod.AnnotationNodeID
	// AnnotationSpecHash holds a hash of the spec the operator wrote, so that fields the
	// apiserver defaults never make it rewrite an unchanged object.
	AnnotationSpecHash = "broker-operator.dev/spec-hash"
	// AnnotationTemplateHash: a hash of the pod template a pod was made from.
	AnnotationTemplateHash = brokerpod.AnnotationTemplateHash
	// AnnotationRestartRequested: the pod's broker is to be restarted through the rollout.
	AnnotationRestartRequested = brokerpod.AnnotationRestartRequested
	// AnnotationSeeds on the StatefulSet records how many pods founded the cluster: their names
	// are the brokers' seed servers, which must not change while the cluster lives.
	AnnotationSeeds = "broker-operator.dev/seeds"
	// AnnotationResyncedAt on the StatefulSet is the time the operator last touched it because a
	// pod it asks for had not been made (pkg/controller/stalledpods.go).
	AnnotationResyncedAt = "broker-operator.dev/resynced-at"
)

// Ports of the broker container besides the admin API.
const (
	kafkaPort       = 9092
	internalRPCPort = 33145
	dataVolume      = "datadir"
	dataPath        = "/var/lib/redpanda/data" // Redpanda's default data_directory
	brokerContainer = "broker"
)

var ManagedBySelector = labels.Set{LabelManagedBy: ManagedByValue}.String()

var BrokerClusterKind = v1alpha1.SchemeGroupVersion.WithKind("BrokerCluster")

// selectorLabels select the pods of one broker cluster.
func SelectorLabels(bc *v1alpha1.BrokerCluster) map[string]string {
	return map[string]string{LabelName: NameValue, LabelInstance: bc.Name, LabelManagedBy: ManagedByValue}
}

// dataClaimName is the name the StatefulSet controller gives the data volume claim of an
// ordinal: <template>-<statefulset>-<ordinal>, of the pool a focus view looks at.
func DataClaimName(bc *v1alpha1.BrokerCluster, ordinal int32) string {
	return fmt.Sprintf("%s-%s-%d", dataVolume, FocusSet(bc), ordinal)
}

func AdminPort(bc *v1alpha1.BrokerCluster) int32 {
	if bc.Spec.AdminAPI.Port > 0 {
		return bc.Spec.AdminAPI.Port
	}
	return admin.DefaultAdminPort
}

func OwnedMeta(bc *v1alpha1.BrokerCluster) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:            bc.Name,
		Namespace:       bc.Namespace,
		Labels:          SelectorLabels(bc),
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(bc, BrokerClusterKind)},
	}
}

// newService builds the headless Service that gives each broker pod its stable DNS name. Not
// ready addresses are published: brokers find each other before they are ready.
func NewService(bc *v1alpha1.BrokerCluster) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: OwnedMeta(bc),
		Spec: corev1.ServiceSpec{
			ClusterIP:                corev1.ClusterIPNone,
			Selector:                 SelectorLabels(bc),
			PublishNotReadyAddresses: true,
			Ports: []corev1.ServicePort{
				{Name: "admin", Port: AdminPort(bc), TargetPort: intstr.FromString("admin"), Protocol: corev1.ProtocolTCP},
				{Name: "kafka", Port: kafkaPort, TargetPort: intstr.FromString("kafka"), Protocol: corev1.ProtocolTCP},
				{Name: "rpc", Port: internalRPCPort, TargetPort: intstr.FromString("rpc"), Protocol: corev1.ProtocolTCP},
			},
		},
	}
	svc.Spec.Ports = append(svc.Spec.Ports, httpServicePorts(bc)...)
	StampHash(&svc.ObjectMeta, svc.Spec)
	return svc
}

// newPodDisruptionBudget lets voluntary disruptions take one broker at a time.
func NewPodDisruptionBudget(bc *v1alpha1.BrokerCluster) *policyv1.PodDisruptionBudget {
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: OwnedMeta(bc),
		Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable: ptr.To(intstr.FromInt32(1)),
			Selector:       &metav1.LabelSelector{MatchLabels: SelectorLabels(bc)},
		},
	}
	StampHash(&pdb.ObjectMeta, pdb.Spec)
	return pdb
}

// newStatefulSet builds the brokers' StatefulSet with the given replica count (which follows
// status.currentReplicas, never spec.replicas), whose first seeds pods founded the cluster. The
// hash covers everything but the replica count and the volume claim templates, which a
// StatefulSet does not let change: a growth of spec.storage.size reaches them by making the
// StatefulSet again (claimtemplate.go).
func NewStatefulSet(bc *v1alpha1.BrokerCluster, replicas, seeds int32, domain string) *appsv1.StatefulSet {
	return StatefulSetWith(bc, replicas, seeds, hashedPodTemplate(bc, seeds, domain))
}

// hashedPodTemplate is the brokers' pod template, with AnnotationTemplateHash set.
func hashedPodTemplate(bc *v1alpha1.BrokerCluster, seeds int32, domain string) corev1.PodTemplateSpec {
	return hashedSetTemplate(bc, bc.Name, SelectorLabels(bc), seeds, domain)
}

// hashedSetTemplate is the pod template of the StatefulSet named set, whose pods carry
// podLabels, with AnnotationTemplateHash set.
func hashedSetTemplate(bc *v1alpha1.BrokerCluster, set string, podLabels map[string]string, seeds int32, domain string) corev1.PodTemplateSpec {
	template := brokerPodTemplate(bc, set, seeds, domain)
	template.Labels, template.Annotations = podLabels, maps.Clone(bc.Spec.PodAnnotations)
	template.Annotations = withTemplateHash(template)
	return template
}

// statefulSetWith builds the StatefulSet around template, bc's hashed pod template for seeds.
func StatefulSetWith(bc *v1alpha1.BrokerCluster, replicas, seeds int32, template corev1.PodTemplateSpec) *appsv1.StatefulSet {
	sts := statefulSetNamed(bc, bc.Name, SelectorLabels(bc), replicas, template)
	if seeds == 0 {
		sts.Annotations[AnnotationSeedsFrom] = SeedsFromConfigMap
		return sts
	}
	sts.Annotations[AnnotationSeeds] = strconv.Itoa(int(seeds))
	return sts
}

// statefulSetNamed builds the StatefulSet named set, and served by the headless Service of that
// name, around template, selecting and labelling its pods and claims with podLabels.
func statefulSetNamed(bc *v1alpha1.BrokerCluster, set string, podLabels map[string]string, replicas int32, template corev1.PodTemplateSpec) *appsv1.StatefulSet {
	claim := corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: dataVolume, Labels: maps.Clone(podLabels)},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: bc.Spec.Storage.StorageClassName,
			Resources: corev1.VolumeResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceStorage: bc.Spec.Storage.Size},
			},
		},
	}
	meta := OwnedMeta(bc)
	meta.Name, meta.Labels = set, maps.Clone(podLabels)
	sts := &appsv1.StatefulSet{
		ObjectMeta: meta,
		Spec: appsv1.StatefulSetSpec{
			Replicas:            ptr.To(replicas),
			ServiceName:         set,
			PodManagementPolicy: appsv1.ParallelPodManagement,
			Selector:            &metav1.LabelSelector{MatchLabels: maps.Clone(podLabels)},
			// The operator restarts the pods itself, one broker at a time behind maintenance
			// mode and the health gate (internal/step/rollout.go); the StatefulSet only recreates a deleted pod.
			UpdateStrategy:                       appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType},
			PersistentVolumeClaimRetentionPolicy: claimRetention(bc),
			Template:                             template,
			VolumeClaimTemplates:                 []corev1.PersistentVolumeClaim{claim},
		},
	}
	sts.Annotations = map[string]string{}
	StampHash(&sts.ObjectMeta, struct {
		Template    corev1.PodTemplateSpec
		ServiceName string
		Selector    *metav1.LabelSelector
		Strategy    appsv1.StatefulSetUpdateStrategy
		Retention   *appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy
	}{sts.Spec.Template, sts.Spec.ServiceName, sts.Spec.Selector, sts.Spec.UpdateStrategy, sts.Spec.PersistentVolumeClaimRetentionPolicy})
	return sts
}

// claimRetention maps spec.storage.whenScaledDown onto the StatefulSet's claim retention
// policy. With Delete, the StatefulSet controller makes a condemned pod the owner of its claim
// when it scales down, and the garbage collector deletes the claim once the pod is gone; since
// the StatefulSet shrinks only after the broker's decommission has finished, that is exactly
// "after the decommission finished and the pod is gone". A deleted BrokerCluster keeps its
// volumes (WhenDeleted: Retain).
func claimRetention(bc *v1alpha1.BrokerCluster) *appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy {
	whenScaled := appsv1.DeletePersistentVolumeClaimRetentionPolicyType
	if bc.Spec.Storage.WhenScaledDown == v1alpha1.VolumeRetain {
		whenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	return &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
		WhenScaled:  whenScaled,
	}
}

// withTemplateHash returns the template's annotations with AnnotationTemplateHash set to a
// hash of the template without it.
func withTemplateHash(t corev1.PodTemplateSpec) map[string]string {
	t = *t.DeepCopy()
	delete(t.Annotations, AnnotationTemplateHash)
	annotations := maps.Clone(t.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[AnnotationTemplateHash] = hashOf(t)
	return annotations
}

// templateRevision is the template hash of the pods bc's StatefulSet makes once the operator
// has written it, for the founding seeds (Seeds), which the template names.
func (p *PodTemplates) Revision(bc *v1alpha1.BrokerCluster, seeds int32) string {
	return p.Get(bc, seeds).Annotations[AnnotationTemplateHash]
}

// stampHash records a hash of spec in the object's annotations.
func StampHash(m *metav1.ObjectMeta, spec any) {
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[AnnotationSpecHash] = hashOf(spec)
}

// hashOf is a short hash of v's JSON form.
func hashOf(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("controller: marshal spec for hashing: %v", err)) // our own types always marshal
	}
	h := fnv.New64a()
	_, _ = h.Write(data)
	return fmt.Sprintf("%016x", h.Sum64())
}

// specChanged reports whether existing was written from another spec than desired.
func SpecChanged(existing, desired metav1.Object) bool {
	return existing.GetAnnotations()[AnnotationSpecHash] != desired.GetAnnotations()[AnnotationSpecHash]
}

// ownedBy reports whether obj's controller is bc.
func OwnedBy(obj metav1.Object, bc *v1alpha1.BrokerCluster) bool {
	ref := metav1.GetControllerOf(obj)
	return ref != nil && ref.UID == bc.UID && ref.Kind == BrokerClusterKind.Kind
}

// updatedStatefulSet returns a copy of existing carrying desired's spec, labels and hash, and
// keeping its volume claim templates, which an update may not change (claimtemplate.go); nil
// when nothing differs.
func UpdatedStatefulSet(existing, desired *appsv1.StatefulSet) *appsv1.StatefulSet {
	if !SpecChanged(existing, desired) && ptr.Deref(existing.Spec.Replicas, 1) == *desired.Spec.Replicas {
		return nil
	}
	out := existing.DeepCopy()
	claims := out.Spec.VolumeClaimTemplates
	out.Spec = desired.Spec
	out.Spec.VolumeClaimTemplates = claims
	MergeMeta(&out.ObjectMeta, &desired.ObjectMeta)
	return out
}

// mergeMeta copies the operator's labels and hash annotation onto an existing object.
func MergeMeta(dst, src *metav1.ObjectMeta) {
	if dst.Labels == nil {
		dst.Labels = map[string]string{}
	}
	maps.Copy(dst.Labels, src.Labels)
	if dst.Annotations == nil {
		dst.Annotations = map[string]string{}
	}
	dst.Annotations[AnnotationSpecHash] = src.Annotations[AnnotationSpecHash]
	if seeds, ok := src.Annotations[AnnotationSeeds]; ok {
		dst.Annotations[AnnotationSeeds] = seeds
	}
	// Once from the ConfigMap, a StatefulSet's seeds stay there (pools.go).
	if from, ok := src.Annotations[AnnotationSeedsFrom]; ok {
		dst.Annotations[AnnotationSeedsFrom] = from
		delete(dst.Annotations, AnnotationSeeds)
	}
}

// foundingSeeds is the seed count of a cluster: the one recorded on its StatefulSet, or, for a
// cluster being created (or one whose StatefulSet predates the record), its replica count now;
// 0 once its seeds come from the seeds ConfigMap (AnnotationSeedsFrom), which they then always
// do: a template that named founding seeds again would restart every broker.
func FoundingSeeds(existing *appsv1.StatefulSet, replicas int32) int32 {
	if existing != nil && existing.Annotations[AnnotationSeedsFrom] == SeedsFromConfigMap {
		return 0
	}
	if existing != nil {
		if n, err := strconv.ParseInt(existing.Annotations[AnnotationSeeds], 10, 32); err == nil && n > 0 {
			return int32(n)
		}
		if existing.Spec.Replicas != nil && *existing.Spec.Replicas > 0 {
			return *existing.Spec.Replicas
		}
	}
	return max(replicas, 1)
}
