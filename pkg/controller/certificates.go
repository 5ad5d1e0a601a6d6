package controller

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/objects"
	"github.com/broker-operator/broker-operator/pkg/secretread"
)

// Certificates from cert-manager, and the listeners' certificate expiry.
//
// For each listener (Kafka, Schema Registry, HTTP Proxy) whose tls names an issuerRef the
// operator keeps a cert-manager Certificate (objects.Certificates), owned by the BrokerCluster,
// read with a GET by name and created or updated through the dynamic client; the brokers mount the Secret cert-manager
// writes for it. Until every such Secret exists the cluster waits: CertificatesReady is False
// naming the Certificate, and nothing else is done (no Service, StatefulSet, restart or
// decommission), since a pod made or restarted meanwhile could not mount its certificate. The
// wait is looked at again every Config.DrainPollInterval and ends when cert-manager has
// written the Secret or the spec names a Secret instead.
//
// A renewed certificate needs no restart: Redpanda watches its certificate files and reloads
// them (docs/broker-pod.md, "Certificates from cert-manager"), and the pod template names the
// Secret, never its content, so a renewal changes no template.
//
// Every TLS listener's Secret (the Kafka listeners', the HTTP APIs' and
// spec.adminAPI.tls.serverSecretName) is read by name on each reconcile, as the admin API's
// Secrets are (secrets get, no list or watch), for the expiry of its tls.crt (broker_operator_certificate_expiry_timestamp_seconds);
// a cluster with one is reconciled at least every Config.CertificateCheckInterval, so that the
// metric follows a renewal that brings no event.

// Reasons of the CertificatesReady condition.
const (
	ReasonCertificatesIssued      = "CertificatesIssued"
	ReasonCertificateNotIssued    = "CertificateNotIssued"
	ReasonCertManagerNotInstalled = "CertManagerNotInstalled"
	ReasonCertificateForbidden    = "CertificateForbidden"
)

// ListenerAdmin is the listener label of the admin API's server certificate in the expiry
// metric; the other listeners' are brokerconfig.TLSListener.Name (kafka-internal, kafka-external,
// schema-registry-internal, http-proxy-external, ...).
const ListenerAdmin = "admin"

// listenerSecret is a TLS listener's certificate Secret, and the Certificate the operator makes
// for it ("" when the spec names the Secret).
type listenerSecret struct{ listener, secret, certificate string }

func listenerSecrets(bc *v1alpha1.BrokerCluster) []listenerSecret {
	var out []listenerSecret
	for _, l := range brokerconfig.TLSListeners(bc) {
		s := listenerSecret{listener: l.Name(), secret: l.SecretName(bc.Name)}
		if l.TLS.IssuerRef != nil {
			s.certificate = brokerconfig.CertificateName(bc.Name, l)
		}
		out = append(out, s)
	}
	if t := bc.Spec.AdminAPI.TLS; t != nil && t.ServerSecretName != "" {
		out = append(out, listenerSecret{listener: ListenerAdmin, secret: t.ServerSecretName})
	}
	return out
}

// syncCertificates keeps the listeners' Certificates, reads their Secrets, sets the expiry
// metric and the CertificatesReady condition. It reports whether the cluster waits for a
// certificate, and when to look again.
func (r *reconcile) syncCertificates(ctx context.Context) (wait bool, recheck time.Duration, err error) {
	bc := r.bc
	certs := objects.Certificates(bc, max(bc.Spec.Replicas, bc.Status.CurrentReplicas), r.c.cfg.ClusterDomain)
	var cond *metav1.Condition
	for _, c := range certs {
		if cond, err = r.ensureCertificate(ctx, c.Object); err != nil || cond != nil {
			break
		}
	}
	if err != nil {
		return false, 0, err
	}
	secrets := listenerSecrets(bc)
	expiries, missing, err := r.readCertificateSecrets(ctx, secrets)
	if err != nil {
		return false, 0, err
	}
	r.c.metrics.certExpiry.set(bc.Namespace, bc.Name, expiries)
	if cond == nil && len(certs) > 0 {
		cond = issuedCondition(certs, missing)
	}
	if err := r.writeCertificatesCondition(ctx, cond); err != nil {
		return false, 0, err
	}
	switch {
	case cond != nil && cond.Status == metav1.ConditionFalse:
		klog.FromContext(ctx).V(2).Info("Waiting for certificates", "reason", cond.Reason, "message", cond.Message)
		return true, r.c.cfg.DrainPollInterval, nil
	case len(secrets) > 0:
		return false, r.c.cfg.CertificateCheckInterval, nil
	}
	return false, 0, nil
}

// ensureCertificate creates want, or puts its spec back when the operator's spec hash differs.
// A condition comes back when the Certificate cannot be written as the cluster is (no
// cert-manager, or no permission); an error when the call should be retried.
func (r *reconcile) ensureCertificate(ctx context.Context, want *unstructured.Unstructured) (*metav1.Condition, error) {
	bc, name := r.bc, want.GetName()
	if r.c.cfg.DynamicClient == nil {
		return falseCondition(ReasonCertManagerNotInstalled, "the operator runs without a client for cert-manager's API, so it cannot make Certificate "+name), nil
	}
	client := r.c.cfg.DynamicClient.Resource(objects.CertificateGVR).Namespace(bc.Namespace)
	existing, err := client.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = client.Create(ctx, want, metav1.CreateOptions{})
		if apierrors.IsNotFound(err) {
			// The namespace exists (the BrokerCluster is in it): the resource does not.
			return falseCondition(ReasonCertManagerNotInstalled, fmt.Sprintf(
				"cert-manager's Certificate API (certificates.cert-manager.io/v1) is not served, so Certificate %s cannot be made: install cert-manager, or name a Secret in the listener's tls.secretName", name)), nil
		}
		if err == nil {
			klog.FromContext(ctx).V(2).Info("Created Certificate", "certificate", name)
			r.c.cfg.Recorder.Eventf(bc, corev1.EventTypeNormal, "CreateCertificate", "made cert-manager Certificate %s for the Secret %s", name, name)
		}
	} else if err == nil {
		err = r.updateCertificate(ctx, existing, want)
	}
	switch {
	case apierrors.IsForbidden(err):
		return falseCondition(ReasonCertificateForbidden, fmt.Sprintf("the operator may not read or write Certificate %s (see deploy/rbac): %v", name, err)), nil
	case apierrors.IsAlreadyExists(err):
		return nil, fmt.Errorf("create Certificate %s/%s: %w", bc.Namespace, name, err) // made meanwhile: look again
	case err != nil:
		return nil, fmt.Errorf("read Certificate %s/%s: %w", bc.Namespace, name, err)
	}
	return nil, nil
}

// updateCertificate writes want's spec, labels and hash onto existing when the hash differs.
func (r *reconcile) updateCertificate(ctx context.Context, existing, want *unstructured.Unstructured) error {
	if err := r.checkOwned(existing); err != nil || !objects.SpecChanged(existing, want) {
		return err
	}
	update := existing.DeepCopy()
	update.Object["spec"] = want.Object["spec"]
	labels, annotations := update.GetLabels(), update.GetAnnotations()
	if labels == nil {
		labels = map[string]string{}
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	for k, v := range want.GetLabels() {
		labels[k] = v
	}
	annotations[objects.AnnotationSpecHash] = want.GetAnnotations()[objects.AnnotationSpecHash]
	update.SetLabels(labels)
	update.SetAnnotations(annotations)
	_, err := r.c.cfg.DynamicClient.Resource(objects.CertificateGVR).Namespace(r.bc.Namespace).Update(ctx, update, metav1.UpdateOptions{})
	if err == nil {
		klog.FromContext(ctx).V(2).Info("Updated Certificate", "certificate", want.GetName())
	}
	return err
}

// readCertificateSecrets reads each listener Secret by name. It returns the expiry of each
// certificate it could parse, and the Secrets of the operator's Certificates that do not hold
// one yet. A Secret the spec names that is missing or holds no certificate is left to the
// kubelet and to Redpanda, which refuse it loudly; it only has no series.
func (r *reconcile) readCertificateSecrets(ctx context.Context, secrets []listenerSecret) (expiries []certificateExpiry, missing []listenerSecret, err error) {
	ns := r.bc.Namespace
	for _, s := range secrets {
		secret, err := secretread.Get(ctx, r.c.cfg.KubeClient.CoreV1(), ns, s.secret)
		if apierrors.IsNotFound(err) {
			if s.certificate != "" {
				missing = append(missing, s)
			}
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read Secret %s/%s of listener %s: %w", ns, s.secret, s.listener, err)
		}
		notAfter, err := certificateNotAfter(secret.Data[corev1.TLSCertKey])
		if err != nil {
			klog.FromContext(ctx).V(2).Info("A listener's Secret holds no certificate", "listener", s.listener, "secret", s.secret, "key", corev1.TLSCertKey, "why", err.Error())
			if s.certificate != "" {
				missing = append(missing, s)
			}
			continue
		}
		expiries = append(expiries, certificateExpiry{listener: s.listener, secret: s.secret, notAfter: float64(notAfter.Unix())})
	}
	return expiries, missing, nil
}

// certificateNotAfter is the expiry of the first certificate in a PEM bundle: the server's own,
// which comes first in tls.crt (cert-manager writes the chain after it).
func certificateNotAfter(data []byte) (time.Time, error) {
	for len(data) > 0 {
		block, rest := pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type == "CERTIFICATE" {
			cert, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				return time.Time{}, err
			}
			return cert.NotAfter, nil
		}
		data = rest
	}
	return time.Time{}, fmt.Errorf("no PEM certificate")
}

// issuedCondition is CertificatesReady once every Certificate's Secret holds a certificate, or
// False naming the first that does not.
func issuedCondition(certs []objects.ListenerCertificate, missing []listenerSecret) *metav1.Condition {
	if len(missing) > 0 {
		m := missing[0]
		return falseCondition(ReasonCertificateNotIssued, fmt.Sprintf(
			"waiting for cert-manager to write Secret %s of Certificate %s (listener %s): no broker is made, restarted or decommissioned until it holds a certificate",
			m.secret, m.certificate, m.listener))
	}
	names := make([]string, len(certs))
	for i, c := range certs {
		names[i] = c.Object.GetName()
	}
	return &metav1.Condition{Type: v1alpha1.ConditionCertificatesReady, Status: metav1.ConditionTrue, Reason: ReasonCertificatesIssued,
		Message: "cert-manager has written the Secret of Certificate " + strings.Join(names, ", ")}
}

func falseCondition(reason, message string) *metav1.Condition {
	return &metav1.Condition{Type: v1alpha1.ConditionCertificatesReady, Status: metav1.ConditionFalse, Reason: reason, Message: message}
}

// writeCertificatesCondition sets CertificatesReady to cond (removes it when cond is nil) when
// it changes, with an event when its status or reason does: Warning when cert-manager's API
// cannot be used.
func (r *reconcile) writeCertificatesCondition(ctx context.Context, cond *metav1.Condition) error {
	bc := r.bc
	conds := append([]metav1.Condition(nil), bc.Status.Conditions...)
	old := meta.FindStatusCondition(conds, v1alpha1.ConditionCertificatesReady)
	var changed, announce bool
	if cond == nil {
		changed = meta.RemoveStatusCondition(&conds, v1alpha1.ConditionCertificatesReady)
	} else {
		announce = old == nil || old.Status != cond.Status || old.Reason != cond.Reason
		cond.ObservedGeneration, cond.LastTransitionTime = bc.Generation, metav1.NewTime(r.c.cfg.Clock.Now())
		changed = meta.SetStatusCondition(&conds, *cond)
	}
	if !changed {
		return nil
	}
	updated, err := patchStatusFields(ctx, r.nc, bc, "certificates condition", map[string]any{"conditions": conds})
	if err != nil {
		return err
	}
	r.bc = updated
	if announce {
		kind := corev1.EventTypeNormal
		if cond.Reason == ReasonCertManagerNotInstalled || cond.Reason == ReasonCertificateForbidden {
			kind = corev1.EventTypeWarning
		}
		r.c.cfg.Recorder.Event(bc, kind, cond.Reason, cond.Message)
	}
	return nil
}
