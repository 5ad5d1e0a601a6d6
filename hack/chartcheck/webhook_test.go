package chartcheck

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// testCABundle is a base64 PEM block; the chart checks only that it is one.
var testCABundle = base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"))

// The two ways of serving the eviction webhook with a certificate.
var (
	evictionWebhookCertManager = map[string]any{"evictionWebhook": map[string]any{"enabled": true}}
	evictionWebhookOwnSecret   = map[string]any{"evictionWebhook": map[string]any{
		"enabled":     true,
		"certManager": map[string]any{"enabled": false},
		"tls":         map[string]any{"secretName": "operator-webhook-tls", "caBundle": testCABundle},
	}}
)

const (
	webhookService = releaseName + "-eviction-webhook"
	webhookCertDir = "/etc/broker-operator/eviction-webhook"
)

// decodeStrict decodes o into a typed object, refusing fields the type does not have, so that a
// misspelt field in a template fails here rather than being dropped by the apiserver.
func decodeStrict[T any](t *testing.T, o object) *T {
	t.Helper()
	data, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var out T
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("%s: %v", o.key(), err)
	}
	return &out
}

// one returns the one object of kind, failing the test unless there is exactly one.
func one(t *testing.T, objs map[string]object, kind string) object {
	t.Helper()
	got := byKind(objs, kind)
	if len(got) != 1 {
		t.Fatalf("want one %s, got %d", kind, len(got))
	}
	return got[0]
}

// webhookObjects checks what both certificate modes render alike: a webhook configuration for
// CREATE pods/eviction with failurePolicy Ignore and a 5 s timeout, calling the Service on
// /evictions; the Service selecting every operator pod on the container's webhook port; the
// Deployment's flags, and the Secret secretName mounted read-only at the flag's directory.
// It returns the webhook.
func webhookObjects(t *testing.T, objs map[string]object, secretName string) admissionregistrationv1.ValidatingWebhook {
	t.Helper()
	raw := one(t, objs, "ValidatingWebhookConfiguration")
	assertHelmLabels(t, raw.key(), raw)
	cfg := decodeStrict[admissionregistrationv1.ValidatingWebhookConfiguration](t, raw)
	if len(cfg.Webhooks) != 1 {
		t.Fatalf("want one webhook, got %d", len(cfg.Webhooks))
	}
	wh := cfg.Webhooks[0]
	wantRules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"},
			Resources: []string{"pods/eviction"}, Scope: ptr(admissionregistrationv1.NamespacedScope)},
	}}
	if !reflect.DeepEqual(wh.Rules, wantRules) {
		t.Errorf("rules %s, want CREATE pods/eviction v1", toYAML(wh.Rules))
	}
	if wh.FailurePolicy == nil || *wh.FailurePolicy != admissionregistrationv1.Ignore {
		t.Errorf("failurePolicy %s, want Ignore: a drain while the operator is down falls back to the PodDisruptionBudget", toYAML(wh.FailurePolicy))
	}
	if wh.TimeoutSeconds == nil || *wh.TimeoutSeconds != 5 {
		t.Errorf("timeoutSeconds %s, want 5", toYAML(wh.TimeoutSeconds))
	}
	if wh.SideEffects == nil || *wh.SideEffects != admissionregistrationv1.SideEffectClassNoneOnDryRun {
		t.Errorf("sideEffects %s, want NoneOnDryRun", toYAML(wh.SideEffects))
	}
	if !slices.Equal(wh.AdmissionReviewVersions, []string{"v1"}) {
		t.Errorf("admissionReviewVersions %v, want [v1]", wh.AdmissionReviewVersions)
	}
	if wh.NamespaceSelector != nil {
		t.Errorf("namespaceSelector %v by default, want none", wh.NamespaceSelector)
	}
	ref := wh.ClientConfig.Service
	if ref == nil || wh.ClientConfig.URL != nil {
		t.Fatalf("clientConfig %s, want the Service", toYAML(wh.ClientConfig))
	}
	if ref.Name != webhookService || ref.Namespace != releaseNamespace || ref.Path == nil || *ref.Path != "/evictions" {
		t.Errorf("clientConfig.service %s, want %s/%s path /evictions", toYAML(ref), releaseNamespace, webhookService)
	}

	svc := decodeStrict[corev1.Service](t, objs["v1 Service "+releaseNamespace+"/"+webhookService])
	dep := decodeStrict[appsv1.Deployment](t, one(t, objs, "Deployment"))
	if !reflect.DeepEqual(svc.Spec.Selector, dep.Spec.Selector.MatchLabels) {
		t.Errorf("the Service selects %v, the Deployment's pods are %v", svc.Spec.Selector, dep.Spec.Selector.MatchLabels)
	}
	for k, v := range svc.Spec.Selector {
		if dep.Spec.Template.Labels[k] != v {
			t.Errorf("the Service selects %s=%s, which the pod template lacks", k, v)
		}
	}
	if len(svc.Spec.Ports) != 1 {
		t.Fatalf("the Service has ports %v, want one", svc.Spec.Ports)
	}
	port := svc.Spec.Ports[0]
	if ref.Port == nil || *ref.Port != port.Port {
		t.Errorf("the webhook calls port %s, the Service listens on %d", toYAML(ref.Port), port.Port)
	}
	c := dep.Spec.Template.Spec.Containers[0]
	var containerPort int32
	for _, p := range c.Ports {
		if p.Name == port.TargetPort.String() {
			containerPort = p.ContainerPort
		}
	}
	if containerPort != 9443 {
		t.Errorf("the Service's targetPort %s is container port %d, want 9443", port.TargetPort.String(), containerPort)
	}
	for _, want := range []string{"--eviction-webhook-bind-address=:9443", "--eviction-webhook-cert-dir=" + webhookCertDir} {
		if !slices.Contains(c.Args, want) {
			t.Errorf("args %v lack %s", c.Args, want)
		}
	}
	var mounted string
	for _, m := range c.VolumeMounts {
		if m.MountPath == webhookCertDir {
			if !m.ReadOnly || m.SubPath != "" {
				t.Errorf("the certificate mount %+v: want read-only, the whole volume (a subPath is never updated)", m)
			}
			mounted = m.Name
		}
	}
	if mounted == "" {
		t.Fatalf("nothing is mounted at %s: %v", webhookCertDir, c.VolumeMounts)
	}
	for _, v := range dep.Spec.Template.Spec.Volumes {
		if v.Name == mounted && (v.Secret == nil || v.Secret.SecretName != secretName) {
			t.Errorf("volume %s is %s, want the Secret %s", v.Name, toYAML(v.VolumeSource), secretName)
		}
	}
	return wh
}

// cert-manager mode: a self-signed Issuer, a Certificate for the Service's DNS names, and the
// CA injector's annotation naming that Certificate; or a given issuer and no Issuer of the chart's.
func TestEvictionWebhookWithCertManager(t *testing.T) {
	objs, err := renderChart(evictionWebhookCertManager)
	if err != nil {
		t.Fatal(err)
	}
	cert := one(t, objs, "Certificate")
	secretName, _ := dig(cert, "spec", "secretName").(string)
	if secretName == "" {
		t.Fatal("the Certificate has no secretName")
	}
	wh := webhookObjects(t, objs, secretName)
	if len(wh.ClientConfig.CABundle) != 0 {
		t.Error("caBundle is set; cert-manager's CA injector fills it in")
	}
	cfg := one(t, objs, "ValidatingWebhookConfiguration")
	if got, want := dig(cfg, "metadata", "annotations", "cert-manager.io/inject-ca-from"), releaseNamespace+"/"+dig(cert, "metadata", "name").(string); got != want {
		t.Errorf("cert-manager.io/inject-ca-from = %v, want %s", got, want)
	}
	if dig(cert, "apiVersion") != "cert-manager.io/v1" || dig(cert, "metadata", "namespace") != releaseNamespace {
		t.Errorf("Certificate %s", cert.key())
	}
	wantNames := []any{webhookService + "." + releaseNamespace + ".svc", webhookService + "." + releaseNamespace + ".svc.cluster.local"}
	if got := dig(cert, "spec", "dnsNames"); !reflect.DeepEqual(got, wantNames) {
		t.Errorf("dnsNames %v, want %v", got, wantNames)
	}
	issuer := one(t, objs, "Issuer")
	if !reflect.DeepEqual(dig(issuer, "spec"), map[string]any{"selfSigned": map[string]any{}}) || dig(issuer, "metadata", "namespace") != releaseNamespace {
		t.Errorf("Issuer %s", toYAML(issuer))
	}
	wantRef := map[string]any{"group": "cert-manager.io", "kind": "Issuer", "name": dig(issuer, "metadata", "name")}
	if got := dig(cert, "spec", "issuerRef"); !reflect.DeepEqual(got, wantRef) {
		t.Errorf("issuerRef %v, want %v", got, wantRef)
	}

	ref := map[string]any{"kind": "ClusterIssuer", "name": "internal-ca", "group": "cert-manager.io"}
	objs, err = renderChart(map[string]any{"evictionWebhook": map[string]any{"enabled": true, "certManager": map[string]any{"issuerRef": ref}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := byKind(objs, "Issuer"); len(got) != 0 {
		t.Errorf("an Issuer is rendered with issuerRef given")
	}
	if got := dig(one(t, objs, "Certificate"), "spec", "issuerRef"); !reflect.DeepEqual(got, ref) {
		t.Errorf("issuerRef %v, want %v", got, ref)
	}
}

// Own-Secret mode: the given Secret mounted, the given caBundle, and nothing of cert-manager's.
func TestEvictionWebhookWithOwnSecret(t *testing.T) {
	objs, err := renderChart(evictionWebhookOwnSecret)
	if err != nil {
		t.Fatal(err)
	}
	wh := webhookObjects(t, objs, "operator-webhook-tls")
	if base64.StdEncoding.EncodeToString(wh.ClientConfig.CABundle) != testCABundle {
		t.Errorf("caBundle %q, want evictionWebhook.tls.caBundle", wh.ClientConfig.CABundle)
	}
	if got := dig(one(t, objs, "ValidatingWebhookConfiguration"), "metadata", "annotations"); got != nil {
		t.Errorf("annotations %v; no CA injector is asked for", got)
	}
	for _, kind := range []string{"Issuer", "Certificate"} {
		if got := byKind(objs, kind); len(got) != 0 {
			t.Errorf("%d %s rendered without cert-manager", len(got), kind)
		}
	}
}

// port, failurePolicy, timeoutSeconds and namespaceSelector reach the objects.
func TestEvictionWebhookValues(t *testing.T) {
	sel := map[string]any{"matchExpressions": []any{map[string]any{"key": "kubernetes.io/metadata.name", "operator": "In", "values": []any{"team-a"}}}}
	objs, err := renderChart(map[string]any{"evictionWebhook": map[string]any{
		"enabled": true, "port": 10443, "failurePolicy": "Fail", "timeoutSeconds": 10, "namespaceSelector": sel,
	}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := decodeStrict[admissionregistrationv1.ValidatingWebhookConfiguration](t, one(t, objs, "ValidatingWebhookConfiguration"))
	if len(cfg.Webhooks) != 1 {
		t.Fatalf("want one webhook, got %d", len(cfg.Webhooks))
	}
	wh := cfg.Webhooks[0]
	if wh.FailurePolicy == nil || *wh.FailurePolicy != admissionregistrationv1.Fail || wh.TimeoutSeconds == nil || *wh.TimeoutSeconds != 10 {
		t.Errorf("failurePolicy %s, timeoutSeconds %s; want Fail and 10", toYAML(wh.FailurePolicy), toYAML(wh.TimeoutSeconds))
	}
	if wh.NamespaceSelector == nil || len(wh.NamespaceSelector.MatchExpressions) != 1 || wh.NamespaceSelector.MatchExpressions[0].Values[0] != "team-a" {
		t.Errorf("namespaceSelector %s", toYAML(wh.NamespaceSelector))
	}
	_, c := deployment(t, objs)
	if !slices.Contains(args(c), "--eviction-webhook-bind-address=:10443") {
		t.Errorf("args %v lack the port", args(c))
	}
	if !slices.ContainsFunc(c["ports"].([]any), func(p any) bool {
		return reflect.DeepEqual(p, map[string]any{"name": "webhook", "containerPort": float64(10443)})
	}) {
		t.Errorf("container ports %v lack webhook 10443", c["ports"])
	}
}

// Off by default: no webhook objects, flags, port or volume (TestChartRendersDeploy holds the
// rest of the default render to deploy/).
func TestEvictionWebhookOffByDefault(t *testing.T) {
	objs, err := renderChart(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"ValidatingWebhookConfiguration", "Certificate", "Issuer"} {
		if got := byKind(objs, kind); len(got) != 0 {
			t.Errorf("%d %s rendered by default", len(got), kind)
		}
	}
	_, c := deployment(t, objs)
	for _, a := range args(c) {
		if strings.HasPrefix(a, "--eviction-webhook") {
			t.Errorf("default args hold %s", a)
		}
	}
}

// Certificate values that cannot work fail the render with a message that says what is missing.
func TestEvictionWebhookRejectsBadValues(t *testing.T) {
	webhook := func(extra map[string]any) map[string]any {
		v := map[string]any{"enabled": true}
		for k, x := range extra {
			v[k] = x
		}
		return map[string]any{"evictionWebhook": v}
	}
	noCertManager := map[string]any{"enabled": false}
	for name, tc := range map[string]struct {
		vals map[string]any
		want string
	}{
		"no cert-manager and no Secret": {
			webhook(map[string]any{"certManager": noCertManager, "tls": map[string]any{"caBundle": testCABundle}}),
			"evictionWebhook.tls.secretName is required with evictionWebhook.certManager.enabled=false",
		},
		"no cert-manager and no CA": {
			webhook(map[string]any{"certManager": noCertManager, "tls": map[string]any{"secretName": "operator-webhook-tls"}}),
			"evictionWebhook.tls.caBundle is required with evictionWebhook.certManager.enabled=false",
		},
		"a CA that is not a base64 certificate": {
			webhook(map[string]any{"certManager": noCertManager, "tls": map[string]any{"secretName": "operator-webhook-tls", "caBundle": base64.StdEncoding.EncodeToString([]byte("not a certificate"))}}),
			"evictionWebhook.tls.caBundle is not a base64-encoded PEM certificate",
		},
		"a Secret given with cert-manager on": {
			webhook(map[string]any{"tls": map[string]any{"secretName": "operator-webhook-tls"}}),
			"are used only with evictionWebhook.certManager.enabled=false",
		},
		"the probes' port": {
			webhook(map[string]any{"port": 8081}),
			"evictionWebhook.port must differ from healthProbePort and metrics.port",
		},
		"a failurePolicy the apiserver does not know": {
			webhook(map[string]any{"failurePolicy": "Retry"}),
			"failurePolicy",
		},
		"a timeout the apiserver refuses": {
			webhook(map[string]any{"timeoutSeconds": 60}),
			"timeoutSeconds",
		},
		"an issuerRef without a name": {
			webhook(map[string]any{"certManager": map[string]any{"issuerRef": map[string]any{"kind": "ClusterIssuer"}}}),
			"issuerRef",
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := renderChart(tc.vals)
			if err == nil {
				t.Fatal("the chart rendered")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
