package evictionwebhook

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/controller"
)

// Path is where the Handler serves the admission reviews.
const Path = "/evictions"

// maxReviewBytes caps the body of one admission review.
const maxReviewBytes = 1 << 20

// Handler answers the kube-apiserver's admission reviews of pods/eviction (see the package
// doc). It reads the pod and its node from the apiserver, not from a cache: the answer decides
// whether a broker's pod goes away now.
type Handler struct {
	Kube kubernetes.Interface
}

func (h Handler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		http.Error(w, "POST an AdmissionReview", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, maxReviewBytes))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(w, fmt.Sprintf("not an AdmissionReview with a request: %v", err), http.StatusBadRequest)
		return
	}
	resp := h.review(req.Context(), review.Request)
	resp.UID = review.Request.UID
	out := admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// review decides one eviction.
func (h Handler) review(ctx context.Context, r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	logger := klog.FromContext(ctx).WithValues("pod", klog.KRef(r.Namespace, r.Name))
	if r.SubResource != "eviction" || r.Operation != admissionv1.Create {
		return allowed()
	}
	pod, err := h.Kube.CoreV1().Pods(r.Namespace).Get(ctx, r.Name, metav1.GetOptions{})
	if err != nil {
		logger.V(2).Info("Eviction of a pod that cannot be read: the eviction API decides", "err", err)
		return allowed()
	}
	if !isBrokerPod(pod) || pod.DeletionTimestamp != nil || !ready(pod) || !matchesUID(r, pod) {
		return allowed()
	}
	node, err := h.Kube.CoreV1().Nodes().Get(ctx, pod.Spec.NodeName, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		logger.Info("Eviction of a broker pod whose node cannot be read: refused until it can", "node", pod.Spec.NodeName, "err", err)
		return refused(http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests,
			fmt.Sprintf("broker-operator cannot read node %s of broker pod %s (%v); retry", pod.Spec.NodeName, pod.Name, err))
	}
	if err == nil && !cordoned(node) {
		logger.V(2).Info("Eviction of a broker pod on a node that is not cordoned: not a drain of it", "node", node.Name)
		return refused(http.StatusNotFound, metav1.StatusReasonNotFound,
			fmt.Sprintf("broker pod %s runs on node %s, which is not cordoned: the pod a drain meant has been moved already; broker-operator restarts brokers through its rollout (annotate the pod %s to ask for one)", pod.Name, node.Name, controller.AnnotationRestartRequested))
	}
	if _, asked := pod.Annotations[controller.AnnotationRestartRequested]; !asked && !dryRun(r) {
		by := fmt.Sprintf("eviction by %s (node %s cordoned)", r.UserInfo.Username, pod.Spec.NodeName)
		if err := h.annotate(ctx, pod, by); err != nil {
			logger.Info("Could not ask for the broker's restart; the eviction is refused until it can", "err", err)
			return refused(http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests,
				fmt.Sprintf("broker-operator could not mark broker pod %s for its restart (%v); retry", pod.Name, err))
		}
		logger.Info("Eviction of a broker pod turned into a restart through the rollout", "node", pod.Spec.NodeName, "by", r.UserInfo.Username)
	}
	return refused(http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests,
		fmt.Sprintf("broker-operator restarts broker pod %s itself, through its rolling restart: maintenance mode first, its partition leadership moved away, one broker at a time; the eviction succeeds once the pod is gone", pod.Name))
}

// annotate asks the rollout to restart pod's broker, under the pod's UID so that the pod that
// replaces it is never marked.
func (h Handler) annotate(ctx context.Context, pod *corev1.Pod, by string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"uid":         pod.UID,
		"annotations": map[string]string{controller.AnnotationRestartRequested: by},
	}})
	if err != nil {
		return err
	}
	_, err = h.Kube.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

func isBrokerPod(p *corev1.Pod) bool {
	return p.Labels[controller.LabelManagedBy] == controller.ManagedByValue && p.Labels[controller.LabelName] == controller.NameValue
}

func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// autoscalerDeleteTaint is the taint the cluster autoscaler puts on a node it is about to
// remove, instead of cordoning it (kubernetes/autoscaler, cluster-autoscaler/utils/taints).
const autoscalerDeleteTaint = "ToBeDeletedByClusterAutoscaler"

// cordoned: kubectl drain and node upgrades mark the node unschedulable before they evict; the
// cluster autoscaler taints it.
func cordoned(n *corev1.Node) bool {
	if n.Spec.Unschedulable {
		return true
	}
	for _, t := range n.Spec.Taints {
		if t.Key == corev1.TaintNodeUnschedulable || t.Key == autoscalerDeleteTaint {
			return true
		}
	}
	return false
}

// matchesUID: an eviction that names another UID than the pod's is about a pod already gone;
// the eviction API refuses it by itself.
func matchesUID(r *admissionv1.AdmissionRequest, pod *corev1.Pod) bool {
	var ev policyv1.Eviction
	if err := json.Unmarshal(r.Object.Raw, &ev); err != nil || ev.DeleteOptions == nil || ev.DeleteOptions.Preconditions == nil || ev.DeleteOptions.Preconditions.UID == nil {
		return true
	}
	return *ev.DeleteOptions.Preconditions.UID == pod.UID
}

func dryRun(r *admissionv1.AdmissionRequest) bool { return r.DryRun != nil && *r.DryRun }

func allowed() *admissionv1.AdmissionResponse { return &admissionv1.AdmissionResponse{Allowed: true} }

func refused(code int32, reason metav1.StatusReason, message string) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{
		Status: metav1.StatusFailure, Code: code, Reason: reason, Message: message,
	}}
}
