package controller

import (
	"time"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
)

// CredentialsRecheck is how often a cluster whose cloud storage keys come from a Secret
// (spec.tieredStorage.credentialsSecretRef) is looked at when nothing else happens to it: the
// operator does not watch Secrets (it may only get them by name), so a rotated Secret reaches the
// brokers within this time, or at once with any change of the BrokerCluster.
const CredentialsRecheck = 5 * time.Minute

// credentialsRecheck is CredentialsRecheck for a cluster that names such a Secret, 0 otherwise.
func credentialsRecheck(bc *v1alpha1.BrokerCluster) time.Duration {
	if brokerconfig.CredentialsRef(bc) == nil {
		return 0
	}
	return CredentialsRecheck
}
