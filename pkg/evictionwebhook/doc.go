// Package evictionwebhook turns the eviction of a broker's pod from a node being drained into a
// restart through the operator's rollout.
//
// kubectl drain, and node upgrades that drain the same way, cordon a node and then ask the
// eviction API for each pod on it. Left alone, the eviction deletes a broker's pod with its
// partition leadership still on it, and only the PodDisruptionBudget keeps it to one broker at a
// time. The operator's kube-apiserver ValidatingWebhook for pods/eviction (Handler) answers
// instead:
//
//   - a Ready broker pod (one labelled app.kubernetes.io/managed-by=broker-operator and
//     app.kubernetes.io/name=broker) on a cordoned node: the pod is annotated
//     broker-operator.dev/restart-requested, and the eviction is refused with 429 Too Many
//     Requests. The rollout restarts that broker before any other, through the step table:
//     every other broker up, no other broker draining, the broker's own pre-restart probe,
//     maintenance mode on, its leadership moved away, then the pod deleted by its UID.
//     kubectl drain retries a 429 every 5 seconds; once the pod is gone the StatefulSet makes
//     the new one on another node, and the drain goes on.
//   - the same pod name on a node that is not cordoned: kubectl drain retries by name, so after
//     the restart it would evict the pod that replaced the one it meant. It is refused with 404
//     Not Found, naming the node the pod runs on now: the pod the drain meant is gone, which is
//     what kubectl drain waits for (k8s.io/kubectl/pkg/drain/drain.go, evictPods).
//   - anything else (not a broker pod, already being deleted, not Ready, a dry run's patch):
//     allowed, so the eviction API and the PodDisruptionBudget decide as they would without
//     the webhook. A pod that is not Ready leads no partitions, so it has no leadership to drain.
//
// The webhook writes nothing but the annotation, and makes no admin call: the decision to
// restart, and every fact it relies on, stays in the rollout. With failurePolicy Ignore, a
// drain while the operator is down is decided by the PodDisruptionBudget alone.
package evictionwebhook
