package brokers

import (
	"context"
	"errors"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
)

// ConfigApplied reasons of the cloud storage credentials' Secret
// (spec.tieredStorage.credentialsSecretRef): nothing is written while it cannot be used.
const (
	// ReasonConfigCredentialsMissing: the Secret does not exist.
	ReasonConfigCredentialsMissing = "CredentialsSecretMissing"
	// ReasonConfigCredentialsForbidden: the operator may not read the Secret.
	ReasonConfigCredentialsForbidden = "CredentialsSecretForbidden"
	// ReasonConfigCredentialsInvalid: a key the spec names is missing from the Secret, or empty.
	ReasonConfigCredentialsInvalid = "CredentialsSecretInvalid"
)

const credentialsField = "spec.tieredStorage.credentialsSecretRef"

var credentialsReasons = secretReasons{missing: ReasonConfigCredentialsMissing, forbidden: ReasonConfigCredentialsForbidden}

// ReadCloudCredentials reads the Secret bc's spec.tieredStorage.credentialsSecretRef names,
// with one GET by name, as the admin API's Secrets are read (the operator neither lists nor
// watches Secrets). It returns no credentials and no error when the spec names none. A Secret
// that is missing, forbidden or lacks a key is a *secretError (Problem gives its reason); any
// other failure is returned as is, to be retried.
func (a *Admin) ReadCloudCredentials(ctx context.Context, bc *v1alpha1.BrokerCluster) (brokerconfig.CloudCredentials, error) {
	ref := brokerconfig.CredentialsRef(bc)
	if ref == nil {
		return brokerconfig.CloudCredentials{}, nil
	}
	secret, err := a.readSecret(ctx, bc.Namespace, ref.Name, credentialsField, credentialsReasons)
	if err != nil {
		return brokerconfig.CloudCredentials{}, err
	}
	creds, err := brokerconfig.NewCloudCredentials(bc, secret.Data, string(secret.UID), secret.ResourceVersion)
	if err != nil {
		return creds, &secretError{Reason: ReasonConfigCredentialsInvalid, Field: credentialsField,
			Secret: bc.Namespace + "/" + ref.Name, Detail: err.Error(), cause: err}
	}
	return creds, nil
}

// IsSecretProblem reports whether err is a Secret that cannot be used as the spec says: a
// condition to report, not an error to retry at once.
func IsSecretProblem(err error) bool {
	var se *secretError
	return errors.As(err, &se)
}
