package controller

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

const (
	credentialsSecret = "tiered-storage"
	testAccessKey     = "AKIAEXAMPLEACCESS"
	testSecretKey     = "wJalrXUtnFEMI-secret-key"
)

func credentialsData(access, secret string) map[string][]byte {
	return map[string][]byte{"access-key": []byte(access), "secret-key": []byte(secret)}
}

// withTieredStorage enables tiered storage with keys from credentialsSecret.
func withTieredStorage(s *v1alpha1.BrokerClusterSpec) {
	s.ClusterConfig = map[string]string{"cloud_storage_enabled": "true", "cloud_storage_region": "us-east-1", "cloud_storage_bucket": "brokers"}
	s.TieredStorage = &v1alpha1.TieredStorageSpec{CredentialsSecretRef: &v1alpha1.CloudCredentialsSecretRef{
		Name: credentialsSecret, AccessKeyKey: "access-key", SecretKeyKey: "secret-key"}}
}

func (h *harness) putCredentials(data map[string][]byte, update bool) {
	h.t.Helper()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: credentialsSecret, Namespace: testNamespace}, Data: data}
	put := h.kubeTrack.Add
	if update {
		put = func(o runtime.Object) error {
			return h.kubeTrack.Update(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, o, testNamespace)
		}
	}
	if err := put(secret); err != nil { // behind the controller's back, as a user would
		h.t.Fatal(err)
	}
}

// simValue is what the brokers hold for a property, secret or not.
func (h *harness) simValue(name string) any {
	v, _ := h.cluster.ClusterProperty(name)
	return v
}

// checkNoSecretValue fails when a key's value shows in the BrokerCluster, an event, or any
// object the operator wrote.
func (h *harness) checkNoSecretValue(events []string, values ...string) {
	h.t.Helper()
	stored, _ := json.Marshal(h.stored())
	written := []string{string(stored), strings.Join(events, "\n")}
	for _, a := range h.kube.Actions() {
		if a.GetResource().Resource == "secrets" {
			continue
		}
		b, _ := json.Marshal(a)
		written = append(written, string(b))
	}
	for _, text := range written {
		for _, v := range values {
			if strings.Contains(text, v) {
				h.t.Fatalf("a cloud storage key shows outside its Secret: %.300s", text)
			}
		}
	}
}

func TestCloudStorageKeysGoFromTheirSecretToTheBrokersOnly(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.putCredentials(credentialsData(testAccessKey, testSecretKey), false)
	h.editSpec(withTieredStorage)
	h.settleConfig(40)

	if h.simValue("cloud_storage_secret_key") != testSecretKey || h.simValue("cloud_storage_access_key") != testAccessKey {
		t.Fatal("the brokers do not hold the keys of the Secret")
	}
	if got := h.simConfig()["cloud_storage_secret_key"]; string(got) != `"[secret]"` {
		t.Errorf("GET /v1/cluster_config shows the secret key as %s, want Redpanda's placeholder", got)
	}
	if n := h.callsTo("PUT", "/v1/cluster_config"); n != 1 {
		t.Errorf("%d writes, want 1: the keys go in the same write as cloud_storage_enabled", n)
	}
	st := h.stored().Status.ClusterConfig
	if st == nil || st.CredentialsVersion == "" || !strings.Contains(strings.Join(st.Managed, ","), "cloud_storage_secret_key") {
		t.Fatalf("status.clusterConfig %+v, want the keys managed and the Secret's version recorded", st)
	}

	// Redpanda never shows the key back: that is no drift, whatever the time.
	for range 3 {
		h.clock.Step(CredentialsRecheck)
		h.reconcileAfterPoll()
	}
	if n := h.callsTo("PUT", "/v1/cluster_config"); n != 1 {
		t.Errorf("%d writes after steady reconciles, want still 1: a redacted key was written again", n)
	}

	// A rotation reaches the brokers with the next look.
	const rotated = "rotated-secret-key-2"
	h.putCredentials(credentialsData(testAccessKey, rotated), true)
	h.settleConfig(40)
	if h.simValue("cloud_storage_secret_key") != rotated {
		t.Error("the rotated secret key did not reach the brokers")
	}
	if n := h.callsTo("PUT", "/v1/cluster_config"); n != 2 {
		t.Errorf("%d writes, want 2 after one rotation", n)
	}
	h.checkNoSecretValue(h.events(), testAccessKey, testSecretKey, rotated)

	// Leaving the spec, the keys go back to Redpanda's default (unset).
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.ClusterConfig, s.TieredStorage = nil, nil })
	h.settleConfig(40)
	if _, set := h.cluster.ClusterProperty("cloud_storage_secret_key"); set {
		t.Error("the secret key is still set after credentialsSecretRef left the spec")
	}
}

func TestAnUnusableCredentialsSecretWritesNothingAndSaysWhy(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards()})
	h.bringUp(3)
	h.events()
	h.editSpec(withTieredStorage)
	h.reconcileAfterPoll()
	if c := h.configCondition(); c.Status != metav1.ConditionFalse || c.Reason != ReasonConfigCredentialsMissing {
		t.Fatalf("ConfigApplied %+v, want False %s", c, ReasonConfigCredentialsMissing)
	}
	h.putCredentials(map[string][]byte{"access-key": []byte(testAccessKey)}, false)
	h.reconcileAfterPoll()
	c := h.configCondition()
	if c.Status != metav1.ConditionFalse || c.Reason != ReasonConfigCredentialsInvalid || !strings.Contains(c.Message, `"secret-key"`) {
		t.Fatalf("ConfigApplied %+v, want False %s naming the key", c, ReasonConfigCredentialsInvalid)
	}
	if n := h.callsTo("PUT", "/v1/cluster_config"); n != 0 {
		t.Errorf("%d writes while the Secret could not be used, want none", n)
	}
	events := h.events()
	if !strings.Contains(strings.Join(events, "\n"), "Warning ClusterConfigCredentialsSecretMissing") {
		t.Errorf("events %q, want a Warning for the missing Secret", events)
	}
	h.checkNoSecretValue(events, testAccessKey)

	h.putCredentials(credentialsData(testAccessKey, testSecretKey), true)
	h.settleConfig(40)
	if h.simValue("cloud_storage_secret_key") != testSecretKey {
		t.Error("the keys were not written once the Secret was fixed")
	}
}
