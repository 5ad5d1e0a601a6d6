package secretread

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/internal/klogtest"
)

const (
	testNamespace = "brokers"
	testName      = "admin-credentials"
	testPassword  = "Sup3r-s3cret-passw0rd-for-the-admin-API"
)

func testKeyPEM(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
}

// needles are the strings of a Secret's values that must never be logged: each value raw and in
// base64 (JSON's encoding of []byte), each PEM line, and every 6-byte piece of the password, which
// is what a protobuf hex dump's 16-column ASCII pane shows of it.
func needles(values map[string][]byte) []string {
	var out []string
	for _, v := range values {
		out = append(out, string(v), base64.StdEncoding.EncodeToString(v))
		for line := range strings.SplitSeq(string(v), "\n") {
			if len(line) >= 16 && !strings.HasPrefix(line, "-----") {
				out = append(out, line)
			}
		}
	}
	for i := 0; i+6 <= len(testPassword); i++ {
		out = append(out, testPassword[i:i+6])
	}
	return out
}

func found(log string, needles []string) []string {
	var hits []string
	for _, n := range needles {
		if strings.Contains(log, n) {
			hits = append(hits, n)
		}
	}
	return hits
}

// serveSecret is a kube-apiserver stand-in on 127.0.0.1 that answers a GET of one Secret in
// JSON or, when asked for it, protobuf.
func serveSecret(t *testing.T, secret *corev1.Secret) *httptest.Server {
	t.Helper()
	path := "/api/v1/namespaces/" + testNamespace + "/secrets/" + testName
	jsonSerializer := scheme.Codecs.LegacyCodec(corev1.SchemeGroupVersion)
	protoSerializer := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		var enc runtime.Encoder = jsonSerializer
		ct := "application/json"
		if strings.Contains(r.Header.Get("Accept"), runtime.ContentTypeProtobuf) {
			enc, ct = scheme.Codecs.EncoderForVersion(protoSerializer, corev1.SchemeGroupVersion), runtime.ContentTypeProtobuf
		}
		w.Header().Set("Content-Type", ct)
		if err := enc.Encode(secret, w); err != nil {
			t.Errorf("encode: %v", err)
		}
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

func TestNoSecretByteInTheLogAtV10(t *testing.T) {
	values := map[string][]byte{"password": []byte(testPassword), "tls.key": testKeyPEM(t)}
	secret := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: testName},
		Data:       values,
	}
	for _, contentType := range []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf} {
		t.Run(contentType, func(t *testing.T) {
			log := klogtest.AtV10(t)
			srv := serveSecret(t, secret)
			// Built at -v=10, so client-go installs its debugging round tripper too.
			client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{ContentType: contentType}})
			if err != nil {
				t.Fatal(err)
			}
			ctx := klog.NewContext(context.Background(), klog.Background())

			got, err := Get(ctx, client.CoreV1(), testNamespace, testName)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			if string(got.Data["password"]) != testPassword {
				t.Fatalf("Get returned password %q", got.Data["password"])
			}
			klog.Flush()
			if hits := found(log.String(), needles(values)); len(hits) > 0 {
				t.Fatalf("the log holds %d secret strings, e.g. %q:\n%s", len(hits), hits[0], log.String())
			}

			// The same read with the caller's logger does log the Secret: the check above can fail.
			if _, err := client.CoreV1().Secrets(testNamespace).Get(ctx, testName, metav1.GetOptions{}); err != nil {
				t.Fatal(err)
			}
			klog.Flush()
			if len(found(log.String(), needles(values))) == 0 {
				t.Fatalf("a plain read at -v=10 logged no secret string; the test sees nothing:\n%s", log.String())
			}
		})
	}
}

func TestGetKeepsClientGoErrors(t *testing.T) {
	srv := serveSecret(t, &corev1.Secret{})
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Get(context.Background(), client.CoreV1(), testNamespace, "other")
	if !apierrors.IsNotFound(err) {
		t.Fatalf("Get of a missing Secret: %v, want a NotFound error", err)
	}
}

func TestGetRefusesWithoutContextualLogging(t *testing.T) {
	state := klog.CaptureState()
	t.Cleanup(state.Restore)
	klog.EnableContextualLogging(false)
	srv := serveSecret(t, &corev1.Secret{})
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Get(context.Background(), client.CoreV1(), testNamespace, testName); !errors.Is(err, ErrContextualLoggingDisabled) {
		t.Fatalf("Get without contextual logging: %v, want ErrContextualLoggingDisabled", err)
	}
}

func TestGetHonoursCancellation(t *testing.T) {
	srv := serveSecret(t, &corev1.Secret{})
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Get(ctx, client.CoreV1(), testNamespace, testName); !errors.Is(err, context.Canceled) {
		t.Fatalf("Get with a cancelled context: %v, want context.Canceled", err)
	}
}
