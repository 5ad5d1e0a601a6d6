package evictionwebhook

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/broker-operator/broker-operator/pkg/controller"
)

func brokerPod(name, node string, ready bool) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name), Labels: map[string]string{
			controller.LabelManagedBy: controller.ManagedByValue, controller.LabelName: controller.NameValue}},
		Spec:   corev1.PodSpec{NodeName: node},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}},
	}
}

func node(name string, cordoned bool) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{Unschedulable: cordoned}}
}

// evict sends the admission review of an eviction of pod name, as the kube-apiserver does.
func evict(t *testing.T, h Handler, name string, uid *types.UID, dryRun bool) *admissionv1.AdmissionResponse {
	t.Helper()
	ev := policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
	if uid != nil {
		ev.DeleteOptions = &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: uid}}
	}
	raw, _ := json.Marshal(ev)
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{UID: "req-1", Name: name, Namespace: "ns", SubResource: "eviction",
			Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: raw}, DryRun: &dryRun,
			UserInfo: authenticationv1.UserInfo{Username: "kubernetes-admin"}},
	}
	body, _ := json.Marshal(review)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, Path, bytes.NewReader(body)))
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || out.Response == nil {
		t.Fatalf("answer %d %q: %v", w.Code, w.Body.String(), err)
	}
	if out.Response.UID != "req-1" {
		t.Errorf("response UID %q, want the request's", out.Response.UID)
	}
	return out.Response
}

func annotation(t *testing.T, h Handler, name string) (string, bool) {
	t.Helper()
	p, err := h.Kube.CoreV1().Pods("ns").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v, ok := p.Annotations[controller.AnnotationRestartRequested]
	return v, ok
}

// A drain's eviction of a Ready broker pod is refused with 429, which kubectl drain retries,
// and the pod is marked for a restart through the rollout.
func TestADrainsEvictionOfABrokerBecomesARestart(t *testing.T) {
	h := Handler{Kube: fake.NewClientset(brokerPod("redpanda-1", "node-a", true), node("node-a", true))}
	resp := evict(t, h, "redpanda-1", nil, false)
	if resp.Allowed || resp.Result == nil || resp.Result.Code != http.StatusTooManyRequests || !strings.Contains(resp.Result.Message, "restarts broker pod redpanda-1") {
		t.Fatalf("answer %+v, want a 429 that says the operator restarts the pod", resp.Result)
	}
	by, ok := annotation(t, h, "redpanda-1")
	if !ok || !strings.Contains(by, "kubernetes-admin") || !strings.Contains(by, "node-a") {
		t.Errorf("annotation %q (present %v), want one naming who evicted and the node", by, ok)
	}
	// kubectl drain retries every 5 s: the answer stays the same, and the mark is not rewritten.
	if again := evict(t, h, "redpanda-1", nil, false); again.Allowed || again.Result.Code != http.StatusTooManyRequests {
		t.Errorf("a retry was answered %+v", again.Result)
	}
	if by2, _ := annotation(t, h, "redpanda-1"); by2 != by {
		t.Errorf("annotation rewritten: %q then %q", by, by2)
	}
}

// After the restart, the pod of the same name runs on another node; kubectl drain, retrying by
// name, must stop there rather than evict the new pod.
func TestThePodThatReplacedTheDrainedOneIsNotEvicted(t *testing.T) {
	h := Handler{Kube: fake.NewClientset(brokerPod("redpanda-1", "node-b", true), node("node-b", false))}
	resp := evict(t, h, "redpanda-1", nil, false)
	if resp.Allowed || resp.Result.Code != http.StatusNotFound || !strings.Contains(resp.Result.Message, "node-b") {
		t.Fatalf("answer %+v, want 404 naming node-b", resp.Result)
	}
	if _, ok := annotation(t, h, "redpanda-1"); ok {
		t.Error("a pod on a node that is not cordoned was marked for a restart")
	}
}

// What the webhook does not own goes to the eviction API and the PodDisruptionBudget unchanged.
func TestOtherEvictionsAreAllowed(t *testing.T) {
	other := brokerPod("web-0", "node-a", true)
	other.Labels = map[string]string{"app": "web"}
	stale := types.UID("uid-of-a-pod-gone")
	h := Handler{Kube: fake.NewClientset(other, brokerPod("redpanda-0", "node-a", false), brokerPod("redpanda-2", "node-a", true), node("node-a", true))}
	for _, tc := range []struct {
		name, pod string
		uid       *types.UID
	}{
		{"not a broker pod", "web-0", nil},
		{"a broker pod that is not Ready leads nothing", "redpanda-0", nil},
		{"an eviction of another UID than the pod's", "redpanda-2", &stale},
		{"no such pod", "redpanda-9", nil},
	} {
		if resp := evict(t, h, tc.pod, tc.uid, false); !resp.Allowed {
			t.Errorf("%s: refused %+v", tc.name, resp.Result)
		}
	}
	if _, ok := annotation(t, h, "redpanda-2"); ok {
		t.Error("an eviction of another UID marked the pod")
	}
}

// A server-side dry run answers as the real eviction would, and writes nothing.
func TestADryRunMarksNothing(t *testing.T) {
	h := Handler{Kube: fake.NewClientset(brokerPod("redpanda-1", "node-a", true), node("node-a", true))}
	if resp := evict(t, h, "redpanda-1", nil, true); resp.Allowed || resp.Result.Code != http.StatusTooManyRequests {
		t.Fatalf("dry run answered %+v", resp.Result)
	}
	if _, ok := annotation(t, h, "redpanda-1"); ok {
		t.Error("a dry run marked the pod")
	}
}
