// Package controller is the BrokerCluster controller: it keeps a StatefulSet of brokers, its
// headless Service, a PodDisruptionBudget and, with an external Kafka listener, one Service per
// broker in line with each BrokerCluster, and scales the
// brokers one at a time, decommissioning a broker through the brokers' admin API before its pod
// goes.
//
// # Shape
//
// The controller is built the way client-go's sample-controller and the kube Deployment
// controller are: shared informers feed a rate-limited workqueue of BrokerCluster keys
// (namespace/name); owned StatefulSets, Services, PodDisruptionBudgets and Pods requeue their
// owner; N workers reconcile one key at a time. A reconcile is level-triggered and idempotent:
// it reads the BrokerCluster, the StatefulSet and the Pods, asks the admin API when a decision
// needs the brokers' view, decides one step (internal/step), writes, and returns, asking to be
// requeued after Config.DrainPollInterval while it waits for a drain.
//
// # Rooms
//
// The package is split into rooms the compiler keeps apart; imports only run down:
//
//   - internal/step: the pure decision. Observations in, a step out: the transition tables, the
//     step table, facts, reasons, the health gate, the status a step writes and whether it is
//     news. It imports no client-go package and nothing of pkg/admin (rooms_test.go checks it).
//   - internal/brokers: the brokers' view. Admin clients and their security, which broker a pod
//     runs, the admin calls, the facts read afresh, drain progress, ghosts, cluster properties.
//   - internal/objects: the Kubernetes objects. Pod spec and node config, StatefulSet, Services,
//     PodDisruptionBudget, ownership, the cluster index and the pod template cache.
//   - internal/brokerpod: what a broker pod's own object says (ordinal, recorded broker ID,
//     template hash, readiness); trace (public, so that test/history can implement it): the
//     Tracer and its log form.
//   - this package: the wiring (config.go, informers.go, controller.go: informers, queue,
//     workers), one reconcile as a value (reconcile.go), and the table runner (runner.go), which
//     reads a row and makes its calls and writes (owned.go, services.go, restartpod.go, ...).
//
// step imports neither brokers nor objects; objects does not import brokers.
//
// # Where to look
//
//   - Which broker does a scale-down take? internal/step/scaling.go (NextToGo: the pod of the
//     highest ordinal; its broker is asked of that pod, internal/brokers/identity.go).
//   - Which pod does a rollout restart next? internal/step/rollout.go (ObserveRollout: a pod
//     whose restart was asked for, then the highest-ordinal outdated pod).
//   - What does each step write, call and rely on? internal/step/table.go.
//   - When may a restart or decommission start? internal/step/windows.go
//     (spec.maintenanceWindows, FactInsideWindow).
//   - What happens when spec.storage.size grows? internal/step/volumes.go (the decision),
//     volumes.go and templategrowth.go.
//   - What happens to a broker whose local volume's node is gone? internal/step/lostnodes.go
//     (the decision and its gates), lostnodes.go (what is read and deleted) and
//     internal/objects/volumenode.go (claim, volume, node).
//   - How is a fact read afresh before an irreversible step? internal/brokers/facts.go.
//   - How does a row become calls and writes? runner.go.
//   - What does a reconcile read, and in what order? reconcile.go.
//   - What does status say after a step, and which events go out? internal/step/status.go and
//     internal/step/story.go.
//   - What will a pending change restart or remove, in which order? internal/step/preview.go.
//
// # Reads and writes
//
// Every write goes through a capturing client from pkg/writeback (clients.go): BrokerCluster
// status patches, StatefulSet, Service and PodDisruptionBudget creates and updates, per-broker
// Service deletes, Pod annotation patches and Pod deletes (rollouts), and the StatefulSet's
// delete when it is made again for a grown claim template. Volume claims are not cached: they
// are read with a GET by name and patched with the plain client, as are StorageClasses read,
// only while the volumes grow. Nodes are read with a GET by name, for rack awareness, and, with
// a broker pod's claim and the PersistentVolume it is bound to, for a pod the scheduler cannot
// place (lostnodes.go); with spec.nodeLossRecovery that volume is patched (reclaim policy
// Retain) and the claim deleted with the plain client. cert-manager Certificates are read by
// name, created and updated through the dynamic client (Config.DynamicClient), uncached, and the
// TLS listeners' Secrets read by name (certificates.go). No call site records anything by hand. What a reconcile reads depends on
// the read strategy (readstrategy.go): the write-back overlays, always, unless an experiment
// sets another through Config.WithReadStrategy: the plain informer indexers (the seed's bug) or
// a live GET of the BrokerCluster and the StatefulSet (the seed's option A).
//
// # The step table
//
// Every irreversible step checks, right before its call, the facts it relies on. The step
// table (internal/step/table.go) has one row per step: its status write and whether it carries the
// resourceVersion precondition, its call and whether the call comes before or after the write,
// whether it polls, whether it is irreversible (it deletes a pod, turns maintenance mode on,
// decommissions, or lowers the StatefulSet's replicas), and the facts it relies on (read by
// internal/brokers/facts.go).
// step.Decide (internal/step/decide.go; its tables in internal/step/scaling.go and internal/step/rollout.go) names a step
// from an observation and makes no call; act (runner.go) runs its row: the call if it comes
// first, the status write, the call if it comes after, and before the irreversible call or
// write a fresh read of its facts from the admin API (and the pod from the apiserver), in the
// same reconcile, retries included. A fact that does not hold stops the step: the cluster is
// Degraded (ClusterUnhealthy) naming it, and guard_fired_total{guard="fresh_facts"} counts it.
// A restart whose maintenance mode is on when a fact stops holding, before its pod is deleted,
// is suspended (SuspendRestart: maintenance mode off, status.restart back to Draining), and
// resumes from maintenance on once the facts hold.
//
// # Scaling
//
// status.currentReplicas (C) steers the StatefulSet's replicas and moves towards spec.replicas
// (D) one broker at a time; status.decommissioningBroker (B) names the broker being drained.
// The transitions are listed as a table in internal/step/scaling.go. Two guards stand behind the write-back
// cache (Config.Guards, both on unless turned off): before a decommission starts, the admin API must still list the broker
// as an active member (the seed's option D), and the status write that sets B carries the
// resourceVersion it was decided on (the seed's option C), so a decision made on a stale copy
// fails with a Conflict instead of starting an irreversible action.
//
// A scale-up waits (WaitForRemovedPod) while a pod at an ordinal at or above C is still there,
// or a volume claim of an ordinal it wants is condemned (being deleted, or handed to a pod by
// the claim retention policy): what a finished decommission leaves until the StatefulSet and
// the garbage collector remove it. Raising the replicas at that moment would keep a pod running
// a broker that has left the cluster, or make a pod that mounts a claim about to be deleted and
// stays Pending. Claims are read with a GET by name while a scale-up is pending (leftovers.go).
// A pod of a wanted ordinal that is still Pending and unscheduled 30 s after its creation while
// its data volume claim does not exist (the StatefulSet controller's claim cache had not seen the
// claim's delete when it made the pod) is deleted, with a Warning event DeleteClaimlessPod, so
// that the StatefulSet controller makes the claim and the pod again (claimless.go). A pod below
// the StatefulSet's replicas that does not exist 30 s after the operator first saw it missing
// (the StatefulSet controller waited on a claim its cache still held, and nothing requeued the
// set once the claim went) gets the StatefulSet touched, its annotation
// broker-operator.dev/resynced-at set to the time (the first touch with a Warning event
// StatefulSetStalled), again every 30 s while the pod stays missing; only the metadata changes
// (stalledpods.go).
//
// # Rollouts, health gate, volumes and ghost brokers
//
// The StatefulSet uses OnDelete; each pod carries a hash of the template it was made from
// (AnnotationTemplateHash). The rollout (internal/step/rollout.go, which also reads the pods)
// restarts the outdated brokers (pods made from
// another template, and brokers that wait for a restart for a cluster property, see Cluster
// properties) one at a time, highest ordinal first: health gate, maintenance mode on, wait until leadership has
// drained, delete the pod (with its UID as a precondition), wait until the new pod is Ready and
// its broker alive, maintenance mode off. status.restart records the broker and its step
// before each call, under the resourceVersion precondition. A decommission under way and a
// restart under way each finish before anything else starts; between two brokers scaling goes
// first. The health gate (internal/step/health.go) asks health_overview before a decommission or a restart
// starts; spec.unsafeSkipHealthGate overrides it. Ghost brokers (internal/brokers/ghosts.go) are reported by any
// reconcile that asks the admin API, and decommissioned only with spec.decommissionGhostBrokers.
// The controller leader (health_overview's controller_id) restarts last (internal/step/
// rollout.go, LeaderLast, applied by internal/brokers/observe.go), and the membership facts of irreversible steps are read from its own
// brokers list, any broker's when it cannot be asked, named in status.membershipReadFrom
// (internal/brokers/authority.go).
// Before a restart (and right before its irreversible calls, FactRestartSafe) the broker's own
// pre_restart_probe must name no partition at risk (internal/step/risk.go; RF=1 partitions only
// with spec.rollout.blockRF1Offline); a broker whose restart would risk partitions is passed over
// for the next outdated one (internal/brokers/observe.go), and a 404, Redpanda before 25.1,
// falls back to the health gate.
// Once a restarted broker is back, its restart finishes only when its own post_restart_probe
// shows spec.rollout.recoveredPercent of its load reclaimed (WaitForRecovery,
// internal/brokers/recovery.go; a 404, Redpanda before 25.1, falls back to being back, any other
// failure keeps waiting), and Degraded BrokerRecoveryStalled names it once
// spec.rollout.recoveryTimeout has passed.
// A rollout that would restart a broker onto Kafka listeners that require SASL is held before any
// restart while SecurityReady is not True for the spec (HoldForSuperuser, Degraded
// SASLWaitsForSuperuser; security.go, superuserHold): no client could log in as the superuser.
// A rollout that changes the Redpanda version is held before any restart (HoldVersionChange,
// Degraded UnsupportedVersionChange naming both versions and the rule) unless Redpanda supports
// the change: patches of one feature release, one feature release up, or a rollback while a
// broker still runs the original release and GET /v1/features shows the active version not past
// its binary's (internal/step/upgrade.go; internal/brokers/upgrade.go reads the brokers' reports
// and the features endpoint); every restarting step relies on it afresh (FactSupportedVersion).
// A version is the image tag when that is one, else the broker's own report; an image with
// neither is checked once a broker runs it. Restart events and the Restarting condition name the
// change a restart applies: the image from and to, the pod template fields
// (internal/objects/templatediff.go), cluster properties that wait for a restart.
// A pod that cannot come up by itself (brokerpod.Stuck: a container waiting in
// CrashLoopBackOff, ImagePullBackOff, ErrImagePull, CreateContainerConfigError or
// InvalidImageName, or the pod unschedulable for 30 s, when the reconcile looks again since
// nothing else changes then: unschedulable.go) is deleted by its UID when it was made from an
// older template (ReplaceStuckPod: every other broker up and none draining, read afresh), before
// any healthy broker restarts, and a restart's own new pod likewise once the template changes
// again; one on the current template sets Degraded BrokerPodCannotStart naming the pod and why, and for
// a pod no node can take what places it (WaitForStuckPod), and a restart whose own new pod cannot start takes its broker out of
// maintenance mode while it waits (ReleaseMaintenance). A restart whose pod someone else deleted while it drained goes on with the
// pod that replaced it (AdoptReplacedPod); while the pod cache still has a restart's pod, that
// pod is read from the apiserver (restartpod.go), so a delete the cache has not seen yet is not
// taken for a broker down under its restart.
// A pod annotated broker-operator.dev/restart-requested (by a person, or by the eviction
// webhook, pkg/evictionwebhook, when a drain evicts it) is restarted like an outdated one, before
// any other (ObserveRollout). A broker left in maintenance mode that is back and that no restart
// or decommission is about is taken out of it first (ClearLeakedMaintenance,
// internal/step/leaked.go).
// A BrokerCluster annotated broker-operator.dev/paused: "true" is read and left alone: the
// Paused condition, one event, the disruption preview, and no admin call or other write
// (paused.go, internal/step/paused.go).
//
// # The preview of disruption
//
// status.disruptionPreview names the broker pods the pending changes will restart or remove, in
// the order the operator will take them, and why, in the words of the events that will tell each
// one (internal/step/preview.go, Preview): the restart or decommission under way, a scale-down's
// brokers highest ordinal first, then the restarts in the rollout's order (stuck outdated pods,
// a restart asked for, the highest ordinal, the controller leader last). It is computed from the
// observation alone and written with the status of every step (step.Change), so a step whose
// call follows its write (StartRestart, StartDecommission) has it in status before the call, and
// every wait shows it. A paused cluster writes it too, from its status and pods and no admin
// call (paused.go), so that a change made while paused is previewed before it starts. The
// controller leader is known only from a health_overview read; until then a note says so.
// Volume claims of scaled-down brokers follow spec.storage.whenScaledDown through the
// StatefulSet's claim retention policy.
//
// # Pools
//
// A cluster with spec.pools (step.HasPools) is reconciled one pool at a time (pools.go):
// step.PlanPools picks the pool (a growing pool first, then the pool whose broker drains, then
// a pool to shrink once every other pool's brokers have joined, WaitForJoiningBrokers until
// then), and the reconcile works on a focus view of the cluster (internal/brokers FocusView)
// whose StatefulSet, pods, C, D and B are that pool's, with the other pools in sight
// (step.Elsewhere) for the ghost check, a pod no member is left for, the scale-down pre-flight
// and the admin client's URLs. The step table is the same; the status a step writes is folded
// into status.pools (step.MergeFocusStatus), and every pool's StatefulSet and Service, the
// seeds ConfigMap <cluster>-seeds and a removed pool's deletion follow it (poolobjects.go).
// Rollouts restart each pool's pods onto that pool's template once no move is under way, one
// broker at a time across the cluster (status.restart is the cluster's one; the pool whose pod
// it names is looked at first), the controller leader's pool last (poolrollout.go). Volumes
// grow pool by pool, a named pool's recorded in its status.pools entry (poolvolumes.go); a
// pool with a pod the scheduler cannot place is looked at for a lost node before any restart.
//
// # A broker whose node is gone
//
// A broker pod below currentReplicas that the scheduler marked Unschedulable has its claim, the
// volume it is bound to and the node that volume's node affinity pins it to read by name
// (lostnodes.go); a node that answers NotFound is gone (one that exists, Ready or not, never
// is). status.brokersOnLostNodes records each such broker with when it was first seen, the
// NodeLost condition names pod, claim, volume and node, and one Warning event NodeLost goes out.
// With spec.nodeLossRecovery, once the grace period has passed since then, RecoverLostBroker
// (internal/step/lostnodes.go) sets the volume's reclaim policy to Retain and deletes the claim
// and the pod by UID, its facts read afresh (the node still gone, every other broker up, none
// draining), one broker at a time and only when no other is lost; the broker comes back with a
// new node ID, and its old ID is decommissioned as a ghost broker.
//
// # Volumes that grow
//
// When spec.storage.size grows (it never shrinks), each broker's data volume claim below
// currentReplicas is read by name, and the StorageClass it names with a GET by name
// (volumes.go; the decision is internal/step/volumes.go, PlanVolumes). Only if every claim's
// class allows volume expansion are the claims patched to the new size, all at once (a resize
// takes no capacity away), each under the resourceVersion it was read at and each first as a
// server-side dry run; a claim not Bound yet waits, as kube-apiserver expands no other. A claim
// kube-apiserver refuses (Forbidden, Invalid) is reported, StorageResized False
// (StorageExpansionRefused) with one Warning event, not retried with backoff. A class that does not allow it, a claim with
// no class, or a class that is missing or cannot be read changes nothing: StorageResized is
// False (StorageExpansionNotAllowed) naming the class, with one Warning event. status.storage
// shows each claim (Pending, Resizing, FileSystemResizePending, Resized, with its capacity)
// while the claims are polled every Config.DrainPollInterval; StorageResized is True
// (StorageResized) once every capacity and the claim template have the size, False
// (StorageResizing) until then. A claim whose file system waits for its pod
// (FileSystemResizePending for 30 s, the pod older than the wait) gets its pod annotated
// broker-operator.dev/restart-requested ("volume claim <name> resize pending"), and the
// rollout restarts it like any requested restart, one broker at a time behind every fact of
// the step table. The StatefulSet's claim template cannot be updated (kubernetes v1.37.2
// pkg/apis/apps/validation/validation.go, ValidateStatefulSetUpdate), so once every class
// allows the growth, and while no decommission and no restart is under way, the StatefulSet is
// deleted with propagationPolicy Orphan (its UID as a precondition) and made again with the
// same founding seeds and the new claim template (templategrowth.go): the pods and claims
// stay, the new StatefulSet adopts the pods, and with OnDelete none restarts. Until it is made
// again the founding seeds are read from the pods' node config (objects.Seeds). A scale-up
// afterwards makes its claim at the new size.
//
// # Cluster properties
//
// spec.clusterConfig is written through the admin API (internal/brokers/clusterconfig.go), as `rpk cluster config
// import` does, before the decision of each reconcile that needs it, together with the
// properties the operator derives from the spec (brokerconfig.ClusterProperties: enable_sasl and
// sasl_mechanisms with spec.kafka.sasl, enable_rack_awareness with spec.rackAwareness), which
// .bootstrap.yaml sets only when the cluster is created: GET /v1/cluster_config with and without
// defaults, one PUT /v1/cluster_config that upserts the desired properties whose value in effect
// differs (brokerconfig.Desired, brokerconfig.Diff) and removes those in
// status.clusterConfig.managed that are no longer desired and away from their default (so a
// property set with rpk is never reset, and SASL or rack awareness leaving the spec resets its
// properties), then GET /v1/cluster_config/status. The derived properties are listed in
// status.clusterConfig.applied and managed like the spec's. The write is
// never forced. A 400 is Redpanda's answer per property: it changed nothing, the properties go
// to status.clusterConfig.rejected, ConfigApplied is False (Rejected) with the answer, a Warning
// event says so, and the write is tried again only when the spec changes; nothing else is
// held back. A broker that reports restart: true, once every broker reports the same
// config_version (as Redpanda operator v1 waits, isSafeToRestart), counts as outdated for the
// rollout, which restarts it as it restarts a pod made from an older template: same step table,
// same facts read afresh. ConfigApplied (internal/brokers/clusterconfig_report.go) is Applied, Applying,
// RestartPending or Rejected, or Unknown with the admin problem's reason when the brokers did
// not answer; an event goes out when its status or reason changes, or its message does (except
// while Unknown), never per poll. The brokers are asked only while the spec implies a property
// or status.clusterConfig.managed names one, a broker is Ready, and either the generation
// changed since the last check, ConfigApplied is neither True nor Rejected, or (unless Rejected)
// a desired property is not managed yet (a status written before the operator derived it);
// while it waits the key is requeued after Config.DrainPollInterval.
//
// # Brokers and pods
//
// The broker pods run Redpanda (internal/objects/podspec.go, internal/objects/nodeconfig.go; docs/broker-pod.md explains each
// setting): by default at most one broker of a cluster per node (a required pod anti-affinity on
// the host name) and the brokers spread over zones, or over the rack awareness label
// (internal/objects/scheduling.go); spec.affinity, spec.topologySpreadConstraints and
// spec.priorityClassName replace the default part by part. The first pods of a new cluster are its seeds, the count recorded on the
// StatefulSet (AnnotationSeeds) so that scaling never changes the pod template. What differs per
// broker and is known only once its pod is placed (its external Kafka and HTTP Proxy addresses,
// its rack) is recorded on the pod (internal/objects/placement.go, recordplacement.go:
// AnnotationExternalAddress, AnnotationHTTPProxyExternalAddress, AnnotationRack) and written into
// redpanda.yaml by the pod's init container. The per-broker external Services (services.go)
// follow status.currentReplicas: made before the StatefulSet grows, deleted once currentReplicas
// drops below a broker's ordinal, that is once its broker has left.
//
// A broker's ID is not its pod's ordinal. The controller asks each pod's own admin API for
// /v1/node_config (admin.Client.NodeConfig); when that cannot answer, it uses the ID recorded on
// the pod (annotation broker-operator.dev/node-id), then a member of the broker list whose
// internal RPC address is the pod's stable host name (internal/brokers/identity.go, identify). IDs found are
// recorded on the pods. The next broker to go is asked every time. Its decommission is skipped
// only when its ID is known and the list no longer has it, or when every listed member is known
// to run on another pod; a broker that cannot be named makes the scale-down wait
// (WaitForBrokerID, Degraded BrokerIDUnknown): unknown is not absent.
//
// # Admin API security
//
// spec.adminAPI.tls and spec.adminAPI.auth name Secrets (internal/brokers/security.go). They are read with a
// GET by name on every reconcile of the cluster (never listed or watched); with TLS the admin
// URLs are https. A Secret that is missing, forbidden or malformed, credentials the brokers
// refuse (401, 403), or a TLS handshake refused for its certificates (admin.ErrTLS) set Degraded
// with reasons AdminAPISecretMissing, AdminAPISecretForbidden, AdminAPISecretInvalid,
// AdminAPIUnauthorized, AdminAPIForbidden, AdminAPITLSRefused and a Warning event; the
// reconcile waits with backoff. Messages name the Secret, the field and the key, never a value;
// no credential is logged at any verbosity.
//
// A cluster with spec.adminAPI.auth has its superuser put in place before its cluster
// properties are written (security.go, internal/brokers/superuser.go): the user created with the
// Secret's password, added to superusers, and only then admin_api_require_auth set, each stage
// reading its facts right before its call, an event per stage, the SecurityReady condition
// showing the last stage reached; with spec.kafka.sasl the cluster properties (enable_sasl) wait
// until it is True. A cluster created with auth finds every stage done. When the brokers refuse
// a new password in the Secret, the password that last worked (kept in memory) sets it on the
// user. A check is made when the condition is not True, the generation changed, or the Secret
// differs from the one last verified; otherwise no admin call.
//
// # Certificates
//
// A Kafka listener whose tls names an issuerRef gets a cert-manager Certificate
// <cluster>-kafka-<listener>-tls (internal/objects/certificate.go), controlled by the
// BrokerCluster, whose Secret of the same name the brokers mount (certificates.go). Until every
// such Secret holds a certificate, a reconcile does nothing else: CertificatesReady False
// (CertificateNotIssued, CertManagerNotInstalled, CertificateForbidden), one event, requeued
// every Config.DrainPollInterval. A renewal restarts nothing: Redpanda reloads its certificate
// files, and the pod template names only the Secret. Every TLS listener's Secret is read by name
// for broker_operator_certificate_expiry_timestamp_seconds (certexpiry.go), and a cluster with
// one is requeued every Config.CertificateCheckInterval.
//
// # Admin calls
//
// Each request times out after Config.AdminTimeout (default 10 s); all the admin calls of one
// reconcile share Config.AdminDeadline (default 30 s, or AdminTimeout if that is longer). A recommission keeps B until the list
// shows the broker active again (Redpanda refuses a recommission late in a drain). While B
// drains, each poll asks for its decommission status. Allocation failures, or replicas_left
// unchanged for three polls, put replicas_left and allocation_failures into the Scaling
// condition, set Degraded DrainStalled and send one Warning event (internal/brokers/drain.go); a drain
// that progresses writes nothing.
// Before a decommission, and right before its call (FactDataFits), the scale-down pre-flight
// checks that the brokers that would remain once spec.replicas is reached can hold the data: no
// partition with more replicas (GET /v1/cluster/partitions), with rack awareness no fewer racks
// than the replicas need, room on their disks for the leaving brokers' data (GET /v1/brokers)
// (internal/step/preflight.go and disk.go; internal/brokers/preflight.go). When they cannot, the
// scale-down is held (HoldScaleDown, Degraded ScaleDownWouldNotFit), nothing decommissioned,
// until spec.replicas or the topics change.
//
// # Decisions
//
//   - The admin API is asked only when a decision needs the brokers' view: a scale-down or a
//     rollout is pending or under way, ghost brokers were reported, or a ready pod's broker ID
//     is not recorded yet. health_overview is asked only when a decommission or a restart may
//     start next, while a restart's pod has not been deleted yet, and right before an
//     irreversible step (internal/step/table.go). The cluster properties have their own rule (see Cluster
//     properties). A steady cluster makes no admin calls, so a broken admin API shows as
//     Degraded only when it matters (the Secrets it names are read every time, so a broken
//     Secret shows at once).
//   - When the admin API does not answer, the reconcile sets Degraded (AdminAPIUnavailable),
//     emits a Warning event when that condition first appears, and returns an error, so the
//     queue backs off; nothing else is written. A scale-up does not need the brokers and goes ahead (Degraded stays set).
//   - Config.Guards is a plain struct whose zero value turns both guards on (SkipAdminCheck
//     and SkipPrecondition turn one off, for experiments); DefaultGuards() is that zero value.
//     Run logs a line when either is off.
//   - The status write that starts, adopts or skips a decommission carries the precondition;
//     the others (scale-up, finish, recommission) do not, because they follow from what the
//     admin API reports now rather than from status alone.
//   - The StatefulSet uses Parallel pod management (replicas move one at a time anyway). An
//     update keeps its volume claim templates, which kube-apiserver does not let change; a
//     growth of spec.storage.size reaches them by making the StatefulSet again (see Volumes
//     that grow), and spec.storage.storageClassName cannot change. Other spec changes are
//     written into the StatefulSet, Service and PodDisruptionBudget, detected by a hash of what
//     the operator wrote (AnnotationSpecHash) so that apiserver defaults never cause rewrites;
//     the pods pick up a new template through the rollout.
//   - A deleted BrokerCluster is left to garbage collection through the owner references;
//     brokers are not decommissioned on deletion.
//   - Pods are mapped to their BrokerCluster by the app.kubernetes.io/instance label, since
//     their owner reference names the StatefulSet. A reconcile reads its cluster's pods through
//     an index on that label (internal/objects/clusterindex.go), so its cost does not grow with the number of
//     clusters sharing the namespace.
//
// # Events
//
// Events tell the story (internal/step/story.go): one event when something happens, none for a poll.
// A step that acts (a scale-up, the start or finish of a decommission or a restart, a call made
// again) is an event each time it is taken, recorded once its status write has succeeded (a
// step whose call came first and writes nothing of its own is recorded even when the write
// fails). A wait is an event when the condition it shows first appears: Degraded with a new
// reason (WaitForHealthyCluster, WaitForAdminAPI, WaitForBrokerID, DrainStalled), the Scaling
// condition's message (WaitForRemovedPod) or the Restarting condition's (WaitForReadyBrokers).
// The waits a step began (WaitForDrain, WaitForLeadershipDrain, WaitForRestart) are no events.
// When a Degraded condition a wait set clears or changes reason, a Normal event named after
// that wait says it ended. Whether a step is news is judged from the status read and the status
// written, not from memory, so a new leader or a retry does not tell a wait again; a step the
// story does not name is news when it changes the replicas, the broker being decommissioned,
// the restart, or a condition's status or reason. The reason of an event is the step's name; its
// message, like every condition message and the log's reason, is a sentence in words that names
// the broker and its pod (internal/step/reasons.go).
//
// # Logging and metrics
//
// klog -v=2 logs one line per decision, polls included (cluster, broker, reason); -v=4 each
// reconcile with the resourceVersions it read. Metrics (metrics.go) count reconciles by result and time them on
// Config.Clock, count decisions by kind, guard firings, and admin API calls by operation and
// result (internal/brokers/metrics.go; one decorator, internal/brokers/decorator.go, counts each call and bounds it by
// the reconcile's AdminDeadline), and gauge the ghost brokers of each cluster and the expiry of
// each TLS listener's certificate (certexpiry.go). Reconcile results,
// decision kinds and guards start at 0 for every value, admin calls for every operation with
// result "success"; the ghost gauge appears with a cluster's first report. The write-back
// overlays export their own.
package controller
