package objects

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// podTemplates keeps, per BrokerCluster, the last pod template built for it with its hash.
// Building one renders the broker's node config to YAML and hashes the template, which was
// more than half of a reconcile's CPU in the soak's scale run (its -profile-dir profiles), and
// every reconcile needs it twice: for the rollout's revision and for the StatefulSet. A template
// is reused only for the same cluster (UID), seed count and spec, compared in full but for the
// replica count, so the cache never relies on metadata.generation (which fake clientsets do not
// keep).
type PodTemplates struct {
	// domain is the cluster DNS domain the templates name pods in; the operator's, fixed.
	domain    string
	mu        sync.Mutex
	byCluster map[string]cachedTemplate
}

type cachedTemplate struct {
	uid      types.UID
	seeds    int32
	spec     *v1alpha1.BrokerClusterSpec // a copy of the spec it was built from
	template corev1.PodTemplateSpec
}

// NewPodTemplates keeps the templates of pods named in the cluster DNS domain.
func NewPodTemplates(domain string) *PodTemplates {
	return &PodTemplates{domain: domain, byCluster: map[string]cachedTemplate{}}
}

// get returns bc's hashed pod template for seeds, a copy the caller may change.
func (p *PodTemplates) Get(bc *v1alpha1.BrokerCluster, seeds int32) corev1.PodTemplateSpec {
	key := bc.Namespace + "/" + bc.Name
	p.mu.Lock()
	cached, ok := p.byCluster[key]
	p.mu.Unlock()
	if ok && cached.uid == bc.UID && cached.seeds == seeds && sameTemplateInputs(cached.spec, &bc.Spec) {
		return *cached.template.DeepCopy()
	}
	template := hashedPodTemplate(bc, seeds, p.domain)
	p.mu.Lock()
	p.byCluster[key] = cachedTemplate{uid: bc.UID, seeds: seeds, spec: bc.Spec.DeepCopy(), template: *template.DeepCopy()}
	p.mu.Unlock()
	return template
}

// sameTemplateInputs compares two specs but for spec.replicas, which the pod template does not
// read (the seed count it names is passed apart): a scaling step keeps the cached template.
// The semantic comparison holds an empty list equal to none, so the topology spread's are told
// apart first: unset keeps the default spread, an empty list removes it (scheduling.go).
func sameTemplateInputs(cached, spec *v1alpha1.BrokerClusterSpec) bool {
	if (cached.TopologySpreadConstraints == nil) != (spec.TopologySpreadConstraints == nil) {
		return false
	}
	other := *spec
	other.Replicas = cached.Replicas
	return equality.Semantic.DeepEqual(cached, &other)
}

func (p *PodTemplates) Forget(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.byCluster, key)
}
