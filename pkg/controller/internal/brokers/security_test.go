package brokers

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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
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
		{"auth Secret missing", nil, authSpec, nil, false, step.ReasonAdminSecretMissing, "not found"},
		{"tls Secret missing", tlsSpec, nil, nil, false, step.ReasonAdminSecretMissing, "not found"},
		{"Secret forbidden", nil, authSpec, map[string]string{"username": "su-user-7", "password": "x"}, true, step.ReasonAdminSecretForbidden, "may not read it"},
		{"no password", nil, authSpec, map[string]string{"username": "su-user-7"}, false, step.ReasonAdminSecretInvalid, `"password" is missing`},
		{"empty username", nil, authSpec, map[string]string{"username": "", "password": "x"}, false, step.ReasonAdminSecretInvalid, `"username" is missing`},
		{"username with a colon", nil, authSpec, map[string]string{"username": "a:b", "password": "x"}, false, step.ReasonAdminSecretInvalid, `"username" must match`},
		{"no CA", tlsSpec, nil, map[string]string{"tls.crt": string(cert), "tls.key": string(key)}, false, step.ReasonAdminSecretInvalid, `"ca.crt" is missing`},
		{"CA not PEM", tlsSpec, nil, map[string]string{"ca.crt": "not a certificate"}, false, step.ReasonAdminSecretInvalid, `"ca.crt" holds no PEM`},
		{"certificate without key", tlsSpec, nil, map[string]string{"ca.crt": string(cert), "tls.crt": string(cert)}, false, step.ReasonAdminSecretInvalid, "given together"},
		{"key of another certificate", tlsSpec, nil, map[string]string{"ca.crt": string(cert), "tls.crt": string(cert), "tls.key": string(otherKey)}, false, step.ReasonAdminSecretInvalid, "not a certificate and its key"},
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
			a := New(Config{Kube: kube})
			bc := newBrokerCluster(3)
			bc.Spec.AdminAPI.TLS, bc.Spec.AdminAPI.Auth = tc.tls, tc.auth
			sec, err := a.ReadSecurity(context.Background(), bc)
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
