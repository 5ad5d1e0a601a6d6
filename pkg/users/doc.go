// Package users is the BrokerUser controller: each BrokerUser is one SCRAM user of a
// BrokerCluster in its namespace, made and given its password through the brokers' admin API
// (/v1/security/users, pkg/admin UsersClient), and the ACLs of its principal User:<name>, kept
// over the cluster's internal Kafka listener with franz-go (kadm). It has the BrokerTopic
// controller's shape (pkg/topics, internal/keyqueue): one rate-limited workqueue of
// namespace/name keys, N workers, informers, and a lister laid over pkg/writeback's overlay, so
// that a reconcile reads its own finalizer and status writes. Status is written with Update
// under the resourceVersion read, once per reconcile and only when it changed.
//
// One reconcile, top-down (sync.go, password.go, acls.go, finalize.go):
//
//	case                                   status write                   call                    irreversible  facts read right before
//	resource deleted, finalizer held       -                              delete ACLs, user       yes           the principal's ACLs
//	  ... origin not Created, or the       (finalizer removed, an event)  -                       -             -
//	      cluster gone
//	cluster missing or being deleted       Ready ClusterNotFound          -                       -             -
//	cluster without spec.kafka.sasl        Ready SASLNotEnabled           -                       -             -
//	the cluster's superuser                Ready SuperuserRefused         -                       -             superuser Secret
//	password Secret missing or foreign     Ready PasswordSecretNotFound,  (generated: create the  -             the Secret
//	                                       SecretConflict                 Secret)
//	user absent                            origin Creating, finalizer,    create                  -             the users list
//	                                       then Created
//	user present, not ours, no annotation  Ready AdoptionRequired         -                       -             the users list
//	user present and ours                  mechanism, passwordVersion     update (only when the   -             the users list, the
//	                                                                      Secret or mechanism                   Secret
//	                                                                      changed)
//	spec.authorization set                 acls                           create, delete ACLs     -             the principal's ACLs
//	                                                                      (only what differs)                   (fresh DescribeACLs)
//
// Ownership: a user this resource created (status.origin Created) is its own, and only such a
// user is ever deleted; one that existed is left alone until the resource is annotated
// broker-operator.dev/adopt=true, then its password is set and its ACLs managed, and it is
// never deleted. The cluster's own superuser is refused. ACLs: with spec.authorization set,
// the principal's ACLs are exactly its rules; unset, they are left as they are. No other
// principal's ACL is ever in a request.
//
// Secrets are watched for their metadata alone (secrets.go): a password Secret created, changed
// or deleted queues the BrokerUsers that read it, and the password is then read with a GET by
// name. Every BrokerUser is also reconciled again every ResyncInterval, which is how a user or
// ACL changed outside is found. A wait that an event will end (the cluster created, the
// annotation, the Secret created) is a condition and no retry; a failed call or a missing
// Secret is a condition and a retry with backoff.
package users
