package brokers

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"regexp"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
	"github.com/broker-operator/broker-operator/pkg/secretread"
)

// adminSecurity is what the Secrets of one BrokerCluster say about reaching its admin API.
// It holds credentials: it is never logged, and its String hides them.
type adminSecurity struct {
	tls                bool
	caPEM              []byte
	certPEM, keyPEM    []byte
	username, password string
	// fingerprint changes whenever any of the above does, so that a cached client is rebuilt
	// after a Secret is rotated. It is a hash: it reveals nothing.
	fingerprint string
}

func (s adminSecurity) String() string {
	return fmt.Sprintf("adminSecurity{tls:%t clientCert:%t auth:%t}", s.tls, len(s.certPEM) > 0, s.username != "")
}

// apply fills the security fields of an admin.Config.
func (s adminSecurity) apply(cfg *admin.Config) {
	cfg.CACertPEM, cfg.ClientCertPEM, cfg.ClientKeyPEM = s.caPEM, s.certPEM, s.keyPEM
	cfg.Username, cfg.Password = s.username, s.password
}

// secretError says why a named Secret cannot be used. Its message names the Secret, the spec
// field and the key at fault, never a value.
type secretError struct {
	Reason string
	Field  string // spec.adminAPI.tls.secretName or spec.adminAPI.auth.secretName
	Secret string // namespace/name
	Detail string
	cause  error
}

func (e *secretError) Error() string {
	return fmt.Sprintf("Secret %s (%s): %s", e.Secret, e.Field, e.Detail)
}

func (e *secretError) Unwrap() error { return e.cause }

// usernamePattern is what the operator accepts as the superuser's name. The name is written
// into the brokers' bootstrap file and RP_BOOTSTRAP_USER ("user:password"), so YAML syntax and
// colons are refused rather than guessed around.
var usernamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$`)

// ReadSecurity reads the Secrets bc names, and only those, with a GET each: the operator
// neither lists nor watches Secrets (see deploy/rbac). A Secret that is missing, forbidden or
// malformed gives a *secretError; any other failure is returned as is, to be retried.
func (a *Admin) ReadSecurity(ctx context.Context, bc *v1alpha1.BrokerCluster) (adminSecurity, error) {
	var s adminSecurity
	spec := bc.Spec.AdminAPI
	h := sha256.New()
	if spec.TLS != nil {
		const field = "spec.adminAPI.tls.secretName"
		data, err := a.getSecret(ctx, bc.Namespace, spec.TLS.SecretName, field)
		if err != nil {
			return s, err
		}
		s.tls = true
		s.caPEM, s.certPEM, s.keyPEM = data[admin.SecretKeyCACert], data[admin.SecretKeyTLSCert], data[admin.SecretKeyTLSKey]
		if err := checkTLSMaterial(s); err != nil {
			return s, &secretError{Reason: step.ReasonAdminSecretInvalid, Field: field, Secret: bc.Namespace + "/" + spec.TLS.SecretName, Detail: err.Error()}
		}
		for _, b := range [][]byte{s.caPEM, s.certPEM, s.keyPEM} {
			h.Write(b)
			h.Write([]byte{0})
		}
	}
	if spec.Auth != nil {
		const field = "spec.adminAPI.auth.secretName"
		data, err := a.getSecret(ctx, bc.Namespace, spec.Auth.SecretName, field)
		if err != nil {
			return s, err
		}
		invalid := func(detail string) error {
			return &secretError{Reason: step.ReasonAdminSecretInvalid, Field: field, Secret: bc.Namespace + "/" + spec.Auth.SecretName, Detail: detail}
		}
		user, okUser := data[admin.SecretKeyUsername]
		pass, okPass := data[admin.SecretKeyPassword]
		switch {
		case !okUser || len(user) == 0:
			return s, invalid(fmt.Sprintf("key %q is missing or empty", admin.SecretKeyUsername))
		case !okPass || len(pass) == 0:
			return s, invalid(fmt.Sprintf("key %q is missing or empty", admin.SecretKeyPassword))
		case !usernamePattern.Match(user):
			return s, invalid(fmt.Sprintf("key %q must match %s", admin.SecretKeyUsername, usernamePattern))
		}
		s.username, s.password = string(user), string(pass)
		h.Write(user)
		h.Write([]byte{0})
		h.Write(pass)
	}
	s.fingerprint = hex.EncodeToString(h.Sum(nil))
	return s, nil
}

// getSecret reads one Secret's data through secretread, so that client-go logs nothing of the
// call (it logs response bodies from -v=8 up through the context's logger).
func (a *Admin) getSecret(ctx context.Context, ns, name, field string) (map[string][]byte, error) {
	secret, err := a.readSecret(ctx, ns, name, field, adminSecretReasons)
	if err != nil {
		return nil, err
	}
	return secret.Data, nil
}

// secretReasons are the condition reasons of a Secret that is missing, or that the operator may
// not read.
type secretReasons struct{ missing, forbidden string }

var adminSecretReasons = secretReasons{missing: step.ReasonAdminSecretMissing, forbidden: step.ReasonAdminSecretForbidden}

// readSecret reads one Secret through secretread; a missing or forbidden one is a *secretError
// with reasons'.
func (a *Admin) readSecret(ctx context.Context, ns, name, field string, reasons secretReasons) (*corev1.Secret, error) {
	secret, err := secretread.Get(ctx, a.cfg.Kube.CoreV1(), ns, name)
	switch {
	case apierrors.IsNotFound(err):
		return nil, &secretError{Reason: reasons.missing, Field: field, Secret: ns + "/" + name, Detail: "not found", cause: err}
	case apierrors.IsForbidden(err):
		return nil, &secretError{Reason: reasons.forbidden, Field: field, Secret: ns + "/" + name,
			Detail: "the operator may not read it (see deploy/rbac)", cause: err}
	case err != nil:
		return nil, fmt.Errorf("read Secret %s/%s (%s): %w", ns, name, field, err)
	}
	return secret, nil
}

// checkTLSMaterial checks what admin.NewClient would refuse, so that the condition says which
// key is wrong: a CA is required, a client certificate and key come together and must match.
func checkTLSMaterial(s adminSecurity) error {
	if len(s.caPEM) == 0 {
		return fmt.Errorf("key %q is missing or empty", admin.SecretKeyCACert)
	}
	if block, _ := pem.Decode(s.caPEM); block == nil || block.Type != "CERTIFICATE" {
		return fmt.Errorf("key %q holds no PEM certificate", admin.SecretKeyCACert)
	}
	if !x509.NewCertPool().AppendCertsFromPEM(s.caPEM) {
		return fmt.Errorf("key %q holds no valid certificate", admin.SecretKeyCACert)
	}
	if (len(s.certPEM) == 0) != (len(s.keyPEM) == 0) {
		return fmt.Errorf("keys %q and %q must be given together", admin.SecretKeyTLSCert, admin.SecretKeyTLSKey)
	}
	if len(s.certPEM) > 0 {
		if _, err := tls.X509KeyPair(s.certPEM, s.keyPEM); err != nil {
			// The parse error names no key material, only what is wrong with it.
			return fmt.Errorf("keys %q and %q are not a certificate and its key", admin.SecretKeyTLSCert, admin.SecretKeyTLSKey)
		}
	}
	return nil
}
