//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/test/brokersim"
)

// TestNoCredentialAtV10 runs the operator at -v=10, where client-go logs every request and
// response body in full, against a cluster whose admin API serves TLS, requires a client
// certificate at the handshake (the operator holds a CA, the certificate and its private key) and
// requires basic auth. It scales the cluster down
// and rolls it, then searches the whole operator log, every Event, every BrokerCluster status the
// watch delivered, the namespace's workloads and /metrics for the password, its base64, the
// Authorization value, its token and the private key (PEM, its lines and its base64, also as a
// hex dump shows them). Any hit fails the test, naming where and what, never the secret.
func TestNoCredentialAtV10(t *testing.T) {
	t.Parallel()
	ns := env.NewNamespace(t)
	const (
		name = "creds"
		user = "operator-superuser"
	)
	password := "pw-" + rand.Text()
	keyPEM, certPEM := clientKeyPair(t)
	otherKeyPEM, _ := clientKeyPair(t)
	b64 := base64.StdEncoding.EncodeToString
	secrets := credentialForms(user, password, keyPEM, otherKeyPEM, []byte(b64(otherKeyPEM)), certPEM, []byte(b64(certPEM)))
	checkCredentialSearch(t, secrets, user, certPEM)

	// The brokers trust the self-signed client certificate alone: every answered call proves the
	// operator presented it.
	cluster, err := env.Sim.NewCluster(ns, name, admintest.Security{Username: user, Password: password, TLS: true, ClientCAPEM: certPEM})
	if err != nil {
		t.Fatal(err)
	}
	cluster.SetDrainTime(300 * time.Millisecond)
	statuses := recordClusterObjects(t, ns, name)
	op := startOperator(t, ns, "a", "-v=10", "--metrics-bind-address=127.0.0.1:0")
	createSecret(t, ns, name+"-tls", map[string][]byte{
		admin.SecretKeyCACert: env.Sim.CACertPEM(), admin.SecretKeyTLSCert: certPEM, admin.SecretKeyTLSKey: keyPEM,
	})
	createSecret(t, ns, name+"-superuser", map[string][]byte{admin.SecretKeyUsername: []byte(user), admin.SecretKeyPassword: []byte(password)})
	bc := env.BrokerCluster(ns, name, 3)
	bc.Spec.AdminAPI.TLS = &v1alpha1.AdminAPITLS{SecretName: name + "-tls"}
	bc.Spec.AdminAPI.Auth = &v1alpha1.AdminAPIAuth{SecretName: name + "-superuser"}
	if _, err := env.Brokers.BrokersV1alpha1().BrokerClusters(ns).Create(t.Context(), bc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.AwaitConverged(t, ns, name, 3)
	ids := env.NodeIDs(t, ns, name, 3)
	env.Scale(t, ns, name, 2)
	env.AwaitConverged(t, ns, name, 2)
	setImage(t, ns, name, "registry.invalid/broker:2")
	awaitImageRolledOut(t, ns, name, 2, "registry.invalid/broker:2")

	// The run must have used the credentials, or finding none of them proves nothing.
	if got := adminCalls(ns, name, "decommission"); !slices.Equal(got, []int{ids[2]}) {
		t.Errorf("decommission calls for brokers %v, want [%d]", got, ids[2])
	}
	if got := maintenanceCalls(ns, name); len(got) != 4 {
		t.Errorf("maintenance calls %v, want on and off for each of the 2 brokers", got)
	}
	for _, c := range cluster.Calls() {
		if c.Status == http.StatusUnauthorized || c.Status == http.StatusForbidden {
			t.Errorf("the brokers refused a call: %v", c)
		}
	}

	metrics := scrapeMetrics(t, op)
	stack := haystacks(t, ns, op, statuses, metrics)
	for _, h := range stack {
		for _, hit := range secrets.find(h.text) {
			t.Errorf("%s holds %s (%s)", h.where, hit.form, lineOf(h.text, hit.offset))
		}
	}
	checkNoForbidden(t)
}

// clientKeyPair makes a client certificate and its private key, as a user's cert-manager would.
func clientKeyPair(t *testing.T) (keyPEM, certPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "broker-operator"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// checkCredentialSearch proves the search finds each form of each credential, planted whole or
// in a hex dump as client-go logs a protobuf body, and does not take what is public (the
// username, the certificates) for a credential: a test that cannot find anything would pass.
func checkCredentialSearch(t *testing.T, secrets *credentialSearch, user string, certPEM []byte) {
	t.Helper()
	for _, f := range secrets.forms {
		planted := slices.Concat([]byte(`log line "body"="`), f.value, []byte(`" more`))
		hits := secrets.find(planted)
		if !slices.ContainsFunc(hits, func(h credentialHit) bool { return h.form == f.form }) {
			t.Fatalf("control: the search does not find %s planted in a log line (hits %v)", f.form, hits)
		}
	}
	for _, f := range secrets.forms {
		if !f.windowed {
			continue
		}
		dump := hex.Dump(slices.Concat([]byte{0x0a, 0x02, 0x08, 0x01}, f.value, []byte{0x12, 0x00}))
		if len(secrets.find([]byte(dump))) == 0 {
			t.Fatalf("control: the search does not find %s in a hex dump", f.form)
		}
	}
	public := slices.Concat([]byte(user), env.Sim.CACertPEM(), certPEM, []byte(base64.StdEncoding.EncodeToString(certPEM)))
	if hits := secrets.find(public); len(hits) > 0 {
		t.Fatalf("control: the search takes public data for %s", hits[0].form)
	}
}

// credentialWindow is the length of the windows the search looks for: a hex dump's ASCII
// column shows 16 bytes a line, so any 16 consecutive bytes of a credential are looked for.
const credentialWindow = 16

type credentialForm struct {
	form  string
	value []byte
	// windowed: every credentialWindow consecutive bytes of value are looked for too.
	windowed bool
}

// credentialSearch finds credentials in text.
type credentialSearch struct {
	forms   []credentialForm
	windows map[string]string // window -> the form it is from
}

type credentialHit struct {
	form   string
	offset int
}

// credentialForms lists what the operator must never show: the password and its base64, the
// Authorization value and its token, and the private key's PEM, its lines and its base64. A
// window that also occurs in public is structure every key and certificate of the kind shares
// (the DER header, the curve's OID), not the secret, and is not looked for.
func credentialForms(user, password string, keyPEM []byte, public ...[]byte) *credentialSearch {
	b64 := base64.StdEncoding.EncodeToString
	token := b64([]byte(user + ":" + password))
	forms := []credentialForm{
		{form: "the password", value: []byte(password), windowed: true},
		{form: "the password's base64", value: []byte(b64([]byte(password))), windowed: true},
		{form: "the Authorization value", value: []byte("Basic " + token)},
		{form: "the basic auth token", value: []byte(token)},
		{form: "the private key's PEM", value: keyPEM},
		{form: "the private key PEM's base64", value: []byte(b64(keyPEM)), windowed: true},
	}
	for i, line := range bytes.Split(keyPEM, []byte("\n")) {
		if len(line) >= credentialWindow && !bytes.HasPrefix(line, []byte("-----")) {
			forms = append(forms, credentialForm{form: fmt.Sprintf("line %d of the private key's PEM", i+1), value: line, windowed: true})
		}
	}
	s := &credentialSearch{forms: forms, windows: map[string]string{}}
	for _, f := range forms {
		for i := 0; f.windowed && i+credentialWindow <= len(f.value); i++ {
			s.windows[string(f.value[i:i+credentialWindow])] = f.form
		}
	}
	for _, p := range public {
		for i := 0; i+credentialWindow <= len(p); i++ {
			delete(s.windows, string(p[i:i+credentialWindow]))
		}
	}
	return s
}

// find returns the first place of each credential form in text: whole, then any window of it.
func (s *credentialSearch) find(text []byte) []credentialHit {
	var hits []credentialHit
	for _, f := range s.forms {
		if i := bytes.Index(text, f.value); i >= 0 {
			hits = append(hits, credentialHit{form: f.form, offset: i})
		}
	}
	seen := map[string]bool{}
	for i := 0; i+credentialWindow <= len(text); i++ {
		if form, ok := s.windows[string(text[i:i+credentialWindow])]; ok && !seen[form] {
			seen[form] = true
			hits = append(hits, credentialHit{form: "16 bytes of " + form, offset: i})
		}
	}
	return hits
}

// lineOf says where offset is in text, by line number, for a failure message.
func lineOf(text []byte, offset int) string {
	return fmt.Sprintf("line %d", bytes.Count(text[:offset], []byte("\n"))+1)
}

type haystack struct {
	where string
	text  []byte
}

// haystacks is everything the operator wrote or exposed during the test.
func haystacks(t *testing.T, ns string, op *operator, statuses *clusterObjects, metrics []byte) []haystack {
	t.Helper()
	log, err := os.ReadFile(op.logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !brokerClusterBody.Match(log) {
		t.Fatal("control: the operator's log has no BrokerCluster response body; the -v=10 search would prove nothing")
	}
	out := []haystack{{"the operator's log", log}, {"/metrics", metrics}}
	for _, namespace := range []string{ns, brokersim.OperatorNamespace} {
		events, err := env.Kube.CoreV1().Events(namespace).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if namespace == ns && len(events.Items) == 0 {
			t.Fatal("control: no Event in the test's namespace")
		}
		for _, e := range events.Items {
			out = append(out, haystack{fmt.Sprintf("Event %s/%s (%s)", e.Namespace, e.Name, e.Reason), mustJSON(t, e)})
		}
	}
	docs := statuses.all()
	if len(docs) < 3 {
		t.Fatalf("control: the watch saw %d BrokerCluster versions", len(docs))
	}
	for i, doc := range docs {
		out = append(out, haystack{fmt.Sprintf("BrokerCluster version %d seen by the watch", i+1), doc})
	}
	sets, err := env.Kube.AppsV1().StatefulSets(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pods, err := env.Kube.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return append(out, haystack{"the StatefulSets", mustJSON(t, sets)}, haystack{"the Pods", mustJSON(t, pods)})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// brokerClusterBody is a BrokerCluster in full as client-go logs a response body at -v=10.
var brokerClusterBody = regexp.MustCompile(`"Response Body".*\n\s*\{.*"kind":"BrokerCluster"`)

var servingMetrics = regexp.MustCompile(`"Serving" endpoint="metrics" address="([^"]+)"`)

// scrapeMetrics reads the operator's /metrics once, at the address its log says it serves.
func scrapeMetrics(t *testing.T, op *operator) []byte {
	t.Helper()
	var addr string
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, convergeLimit, true, func(context.Context) (bool, error) {
		log, err := os.ReadFile(op.logPath)
		if m := servingMetrics.FindSubmatch(log); err == nil && m != nil {
			addr = string(m[1])
		}
		return addr != "", nil
	})
	if err != nil {
		t.Fatalf("the operator's log never said where /metrics is served: %v", err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("workqueue_")) {
		t.Fatalf("GET /metrics: %d, %v, %d bytes without workqueue metrics", resp.StatusCode, err, len(body))
	}
	return body
}

// clusterObjects keeps every version of one BrokerCluster its watch delivers, as JSON.
type clusterObjects struct {
	mu   sync.Mutex
	docs [][]byte
}

func (c *clusterObjects) all() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.docs)
}

func recordClusterObjects(t *testing.T, ns, name string) *clusterObjects {
	t.Helper()
	c := &clusterObjects{}
	watchBrokerCluster(t, ns, name, func(bc *v1alpha1.BrokerCluster) {
		data, err := json.Marshal(bc)
		if err != nil {
			data = fmt.Appendf(nil, "unencodable: %v", err)
		}
		c.mu.Lock()
		c.docs = append(c.docs, data)
		c.mu.Unlock()
	})
	return c
}
