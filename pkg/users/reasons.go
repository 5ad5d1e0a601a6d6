package users

// Reasons of a BrokerUser's Ready condition. True has one reason; each False one names what
// the user waits for and what would end the wait (docs/users.md).
const (
	// ReasonSynced: the user exists with the password of its Secret, and its principal holds
	// the ACLs of spec.authorization.
	ReasonSynced = "Synced"
	// ReasonClusterNotFound: spec.clusterRef names no BrokerCluster in this namespace, or one
	// being deleted.
	ReasonClusterNotFound = "ClusterNotFound"
	// ReasonSASLNotEnabled: the cluster's spec.kafka.sasl is unset, so it has no SCRAM
	// mechanism for the user and its Kafka listeners would never ask for the password.
	ReasonSASLNotEnabled = "SASLNotEnabled"
	// ReasonSuperuserRefused: the resource names the cluster's own superuser (the username of
	// spec.adminAPI.auth's Secret), which the operator never changes.
	ReasonSuperuserRefused = "SuperuserRefused"
	// ReasonPasswordSecretNotFound: the Secret of spec.authentication.password does not exist
	// or lacks the key. Retried with backoff.
	ReasonPasswordSecretNotFound = "PasswordSecretNotFound"
	// ReasonSecretConflict: the Secret <metadata.name>-credentials exists and this resource
	// does not own it; the operator neither reads nor overwrites it.
	ReasonSecretConflict = "SecretConflict"
	// ReasonAdminAPIUnavailable: the cluster's admin API did not answer or refused the
	// operator's credentials, or they could not be read. Retried with backoff.
	ReasonAdminAPIUnavailable = "AdminAPIUnavailable"
	// ReasonKafkaUnavailable: the cluster's Kafka API did not answer while the ACLs were read
	// or changed. Retried with backoff.
	ReasonKafkaUnavailable = "KafkaUnavailable"
	// ReasonAdoptionRequired: the user exists and this resource did not create it; it is left
	// untouched until the resource is annotated broker-operator.dev/adopt=true.
	ReasonAdoptionRequired = "AdoptionRequired"
	// ReasonRequestRefused: the admin API or Kafka refused a request as invalid; the message
	// says why. Retried with backoff.
	ReasonRequestRefused = "RequestRefused"
	// ReasonDeleting: the resource is being deleted and the user's deletion has not succeeded
	// yet.
	ReasonDeleting = "Deleting"
)

// Event reasons: one event for each change the operator makes, none for a poll.
const (
	EventUserCreated = "UserCreated"
	EventUserAdopted = "UserAdopted"
	// EventPasswordSet: the password was set again, after its Secret changed or the cluster's
	// mechanism did.
	EventPasswordSet   = "PasswordSet"
	EventSecretCreated = "CredentialsSecretCreated"
	EventACLsUpdated   = "ACLsUpdated"
	EventUserDeleted   = "UserDeleted"
	// EventUserRetained: the resource went and the user stays, because this resource did not
	// create it.
	EventUserRetained = "UserRetained"
	// EventClusterGone: the finalizer was dropped without deleting the user, because the
	// cluster that held it is gone.
	EventClusterGone = "ClusterGone"
	// EventCreateRaced: the create found the user made by someone else, with another password,
	// between the operator's look and its create; the resource now waits for adoption.
	EventCreateRaced = "UserCreatedElsewhere"
)

// Finalizer holds a BrokerUser whose user the operator created until the user is deleted.
const Finalizer = "broker-operator.dev/user-deletion"

// ConditionReady is the BrokerUser condition the reasons above belong to.
const ConditionReady = "Ready"
