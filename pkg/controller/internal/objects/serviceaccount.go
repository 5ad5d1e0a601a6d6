package objects

import (
	"maps"

	corev1 "k8s.io/api/core/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// The broker pods' service account and registry credentials (spec.serviceAccount,
// spec.imagePullSecrets, and a pool's own). Unset, the pod template names neither, exactly as
// before the fields existed, so that an upgrade of the operator changes no template hash and
// restarts no broker. The names follow Redpanda's chart (serviceAccount.create, .name and
// .annotations; imagePullSecrets: charts/redpanda/values.go, serviceaccount.go).

// BrokerServiceAccountName is the service account bc's broker pods run as: the one
// spec.serviceAccount names, or, with create and no name, the cluster's name; empty for the
// namespace's default.
func BrokerServiceAccountName(bc *v1alpha1.BrokerCluster) string {
	sa := bc.Spec.ServiceAccount
	switch {
	case sa == nil:
		return ""
	case sa.Name != "":
		return sa.Name
	case sa.Create:
		return bc.Name
	}
	return ""
}

// NewServiceAccount is the service account the operator makes for bc's broker pods with
// spec.serviceAccount.create: owned by bc, with the spec's annotations and their hash; nil
// when bc asks for none.
func NewServiceAccount(bc *v1alpha1.BrokerCluster) *corev1.ServiceAccount {
	if bc.Spec.ServiceAccount == nil || !bc.Spec.ServiceAccount.Create {
		return nil
	}
	meta := OwnedMeta(bc)
	meta.Name = BrokerServiceAccountName(bc)
	meta.Annotations = maps.Clone(bc.Spec.ServiceAccount.Annotations)
	StampHash(&meta, bc.Spec.ServiceAccount.Annotations)
	return &corev1.ServiceAccount{ObjectMeta: meta}
}

// UpdatedServiceAccount returns a copy of existing carrying desired's labels and exactly
// desired's annotations (the operator owns them: one removed from the spec goes); nil when
// nothing differs.
func UpdatedServiceAccount(existing, desired *corev1.ServiceAccount) *corev1.ServiceAccount {
	labelsKept := true
	for k, v := range desired.Labels {
		labelsKept = labelsKept && existing.Labels[k] == v
	}
	if labelsKept && maps.Equal(existing.Annotations, desired.Annotations) {
		return nil
	}
	out := existing.DeepCopy()
	MergeMeta(&out.ObjectMeta, &desired.ObjectMeta)
	out.Annotations = maps.Clone(desired.Annotations)
	return out
}

// withPoolAccount puts a pool's own service account and pull secrets, when it names them, in
// place of the cluster's in spec, the copy WithPool makes.
func withPoolAccount(spec *v1alpha1.BrokerClusterSpec, p v1alpha1.BrokerPool) {
	if p.ServiceAccountName != "" {
		spec.ServiceAccount = &v1alpha1.BrokerServiceAccount{Name: p.ServiceAccountName}
	}
	if p.ImagePullSecrets != nil {
		spec.ImagePullSecrets = p.ImagePullSecrets
	}
}
