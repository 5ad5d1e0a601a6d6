package controller

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	brokerfake "github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned/fake"
)

var secretsGVR = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}

// testPEM returns a self-signed certificate and its key, made at run time.
func testPEM(t *testing.T) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}

func TestReadAdminSecurityRefusesWhatItCannotUse(t *testing.T) {
	cert, key := testPEM(t)
	_, otherKey := testPEM(t)
	tlsSpec := &v1alpha1.AdminAPITLS{SecretName: "ca"}
	authSpec := &v1alpha1.AdminAPIAuth{SecretName: "user"}
	for _, tc := range []struct {
		name       string
		tls        *v1alpha1.AdminAPITLS
		auth       *v1alpha1.AdminAPIAuth
		data       map[string]string // the Secret's data; nil: no Secret
		forbidden  bool
		wantReason string // "" means accepted
		wantDetail string
	}{
		{"auth accepted", nil, authSpec, map[string]string{"username": "su-user-7", "password": "x"}, false, "", ""},
		{"tls CA only accepted", tlsSpec, nil, map[string]string{"ca.crt": string(cert)}, false, "", ""},
		{"tls with client certificate accepted", tlsSpec, nil, map[string]string{"ca.crt": string(cert), "tls.crt": string(cert), "tls.key": string(key)}, false, "", ""},
		{"auth Secret missing", nil, authSpec, nil, false, ReasonAdminSecretMissing, "not found"},
		{"tls Secret missing", tlsSpec, nil, nil, false, ReasonAdminSecretMissing, "not found"},
		{"Secret forbidden", nil, authSpec, map[string]string{"username": "su-user-7", "password": "x"}, true, ReasonAdminSecretForbidden, "may not read it"},
		{"no password", nil, authSpec, map[string]string{"username": "su-user-7"}, false, ReasonAdminSecretInvalid, `"password" is missing`},
		{"empty username", nil, authSpec, map[string]string{"username": "", "password": "x"}, false, ReasonAdminSecretInvalid, `"username" is missing`},
		{"username with a colon", nil, authSpec, map[string]string{"username": "a:b", "password": "x"}, false, ReasonAdminSecretInvalid, `"username" must match`},
		{"no CA", tlsSpec, nil, map[string]string{"tls.crt": string(cert), "tls.key": string(key)}, false, ReasonAdminSecretInvalid, `"ca.crt" is missing`},
		{"CA not PEM", tlsSpec, nil, map[string]string{"ca.crt": "not a certificate"}, false, ReasonAdminSecretInvalid, `"ca.crt" holds no PEM`},
		{"certificate without key", tlsSpec, nil, map[string]string{"ca.crt": string(cert), "tls.crt": string(cert)}, false, ReasonAdminSecretInvalid, "given together"},
		{"key of another certificate", tlsSpec, nil, map[string]string{"ca.crt": string(cert), "tls.crt": string(cert), "tls.key": string(otherKey)}, false, ReasonAdminSecretInvalid, "not a certificate and its key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := kubefake.NewClientset()
			name := "user"
			if tc.tls != nil {
				name = "ca"
			}
			if tc.data != nil {
				data := map[string][]byte{}
				for k, v := range tc.data {
					data[k] = []byte(v)
				}
				if err := kube.Tracker().Add(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace}, Data: data}); err != nil {
					t.Fatal(err)
				}
			}
			if tc.forbidden {
				kube.PrependReactor("get", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewForbidden(secretsGVR.GroupResource(), name, errors.New("no"))
				})
			}
			c, err := NewController(Config{KubeClient: kube, BrokerClient: brokerfake.NewClientset(), Namespaces: []string{testNamespace}})
			if err != nil {
				t.Fatal(err)
			}
			bc := newBrokerCluster(3)
			bc.Spec.AdminAPI.TLS, bc.Spec.AdminAPI.Auth = tc.tls, tc.auth
			sec, err := c.readAdminSecurity(context.Background(), bc)
			var se *secretError
			switch {
			case tc.wantReason == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.wantReason == "":
				if sec.fingerprint == "" || sec.tls != (tc.tls != nil) {
					t.Errorf("security %v, fingerprint %q", sec, sec.fingerprint)
				}
			case !errors.As(err, &se):
				t.Fatalf("error %v, want a Secret error with reason %s", err, tc.wantReason)
			case se.Reason != tc.wantReason || !strings.Contains(se.Error(), tc.wantDetail) || !strings.Contains(se.Error(), testNamespace+"/"+name):
				t.Errorf("error %q (reason %s), want reason %s naming the Secret and %q", se, se.Reason, tc.wantReason, tc.wantDetail)
			}
			for _, v := range tc.data {
				if len(v) > 3 && err != nil && strings.Contains(err.Error(), v) {
					t.Errorf("the error carries a value of the Secret: %v", err)
				}
			}
		})
	}
}

func TestAdminSecurityStringHidesCredentials(t *testing.T) {
	s := adminSecurity{username: testUsername, password: testPassword, keyPEM: []byte("KEYDATA")}
	for _, out := range []string{fmt.Sprint(s), fmt.Sprintf("%v %+v %s", s, s, s)} {
		if strings.Contains(out, testPassword) || strings.Contains(out, "KEYDATA") {
			t.Errorf("formatted security shows credentials: %s", out)
		}
	}
}

func TestMissingAuthSecretDegradesAndWaits(t *testing.T) {
	h := newHarness(t, harnessOptions{guards: DefaultGuards(), auth: true})
	h.bringUp(3)
	if err := h.kubeTrack.Delete(secretsGVR, testNamespace, testAuthSecret); err != nil {
		t.Fatal(err)
	}
	h.events()
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })

	if _, err := h.reconcile(); err == nil {
		t.Fatal("a reconcile without the Secret succeeded")
	}
	st := h.stored().Status
	cond := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionDegraded)
	if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != ReasonAdminSecretMissing ||
		!strings.Contains(cond.Message, testNamespace+"/"+testAuthSecret) || !strings.Contains(cond.Message, "spec.adminAPI.auth.secretName") {
		t.Errorf("Degraded %+v, want True, %s, naming the Secret and the field", cond, ReasonAdminSecretMissing)
	}
	if st.CurrentReplicas != 3 || st.DecommissioningBroker != nil || len(h.decommissionCalls()) != 0 {
		t.Errorf("status %+v, decommissions %v: nothing may move without the Secret", st, h.decommissionCalls())
	}
	events := strings.Join(h.events(), "\n")
	if !strings.Contains(events, "Warning") || !strings.Contains(events, testAuthSecret) || !strings.Contains(events, "not found") {
		t.Errorf("events %q, want a warning naming the missing Secret", events)
	}

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: testAuthSecret, Namespace: testNamespace},
		Data: map[string][]byte{"username": []byte(testUsername), "password": []byte(testPassword)}}
	if err := h.kubeTrack.Add(secret); err != nil {
		t.Fatal(err)
	}
	h.settle(10)
	if cond := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded); cond.Status != metav1.ConditionFalse {
		t.Errorf("Degraded %+v after the Secret came back", cond)
	}
	if l := h.sim.LeftBeforeDecommission(); len(l) != 0 {
		t.Errorf("left before decommission: %v", l)
	}
}

// Everything the operator says at the highest verbosity, through its life with credentials and
// through each way they can be wrong, never carries a password.
func TestCredentialsNeverInLogsEventsOrStatus(t *testing.T) {
	var out syncBuffer
	logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(10), textlogger.Output(&out)))
	klog.SetLoggerWithOptions(logger, klog.ContextualLogger(true))
	t.Cleanup(klog.ClearLogger)

	h := newHarness(t, harnessOptions{guards: DefaultGuards(), auth: true})
	h.ctx = klog.NewContext(h.ctx, logger)
	h.bringUp(3)
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 2 })
	h.settle(10)

	const wrongPassword = "wrong-pw-5e1d-do-not-log"
	setSecret := func(data map[string]string) {
		t.Helper()
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: testAuthSecret, Namespace: testNamespace}, Data: map[string][]byte{}}
		for k, v := range data {
			secret.Data[k] = []byte(v)
		}
		if err := h.kubeTrack.Update(secretsGVR, secret, testNamespace); err != nil {
			t.Fatal(err)
		}
	}
	var conditions []string
	check := func(wantReason string) {
		t.Helper()
		if _, err := h.reconcile(); err == nil {
			t.Errorf("%s: reconcile succeeded", wantReason)
		}
		cond := meta.FindStatusCondition(h.stored().Status.Conditions, v1alpha1.ConditionDegraded)
		if cond == nil || cond.Reason != wantReason {
			t.Errorf("Degraded %+v, want reason %s", cond, wantReason)
		}
		conditions = append(conditions, fmt.Sprint(cond))
	}
	// The brokers refuse a wrong password (401).
	setSecret(map[string]string{"username": testUsername, "password": wrongPassword})
	h.editSpec(func(s *v1alpha1.BrokerClusterSpec) { s.Replicas = 1 })
	check(ReasonAdminAPIUnauthorized)
	// A Secret with a password and no username.
	setSecret(map[string]string{"password": wrongPassword})
	check(ReasonAdminSecretInvalid)

	all := out.String() + strings.Join(h.events(), "\n") + strings.Join(conditions, "\n")
	if !strings.Contains(out.String(), "Decision") {
		t.Fatalf("the logs hold no decisions; the capture does not work:\n%s", out.String())
	}
	for _, secret := range []string{testPassword, wrongPassword} {
		if strings.Contains(all, secret) {
			t.Errorf("a password appears in the logs, events or conditions")
		}
	}
}
