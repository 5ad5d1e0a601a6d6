package users

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/secretread"
)

// password is a user's password and the Secret version it was read from. It is never logged.
type password struct {
	value, secret, version string
}

// DefaultPasswordKey is the key a password is read from when spec.authentication names none,
// and the key of the generated Secret.
const DefaultPasswordKey = "password"

// GeneratedSecretName is the Secret the operator generates a BrokerUser's password into when
// spec.authentication.password is unset.
func GeneratedSecretName(bu *v1alpha1.BrokerUser) string { return bu.Name + "-credentials" }

// secretProblem is a Secret the pass cannot use; its reason is Ready's. It names the Secret and
// the key, never a value.
type secretProblem struct {
	reason, message string
}

func (e *secretProblem) Error() string { return e.message }

// password reads the password: from the Secret key the spec names, or from the generated
// Secret, which it creates, owned by the resource, when it does not exist. Each Secret is read
// with a GET by name: the Secret watch (secrets.go) sees only names and versions.
func (r *reconcile) password(ctx context.Context) (password, error) {
	if a := r.bu.Spec.Authentication; a != nil && a.Password != nil {
		ref := a.Password.ValueFrom.SecretKeyRef
		key := cmp.Or(ref.Key, DefaultPasswordKey)
		s, err := secretread.Get(ctx, r.c.cfg.KubeClient.CoreV1(), r.bu.Namespace, ref.Name)
		if apierrors.IsNotFound(err) {
			return password{}, &secretProblem{ReasonPasswordSecretNotFound, fmt.Sprintf("Secret %s (spec.authentication.password) does not exist", ref.Name)}
		}
		if err != nil {
			return password{}, err
		}
		if len(s.Data[key]) == 0 {
			return password{}, &secretProblem{ReasonPasswordSecretNotFound, fmt.Sprintf("Secret %s (spec.authentication.password) has no key %q, or it is empty", ref.Name, key)}
		}
		return password{string(s.Data[key]), s.Name, s.ResourceVersion}, nil
	}
	name := GeneratedSecretName(r.bu)
	s, err := secretread.Get(ctx, r.c.cfg.KubeClient.CoreV1(), r.bu.Namespace, name)
	switch {
	case apierrors.IsNotFound(err):
		return r.generate(ctx, name)
	case err != nil:
		return password{}, err
	case !metav1.IsControlledBy(s, r.bu):
		return password{}, &secretProblem{ReasonSecretConflict, fmt.Sprintf("Secret %s exists and this BrokerUser does not own it; the operator neither reads nor overwrites it: delete or rename it, or set spec.authentication.password", name)}
	case len(s.Data[DefaultPasswordKey]) == 0:
		return password{}, &secretProblem{ReasonPasswordSecretNotFound, fmt.Sprintf("Secret %s has no key %q, or it is empty", name, DefaultPasswordKey)}
	}
	return password{string(s.Data[DefaultPasswordKey]), s.Name, s.ResourceVersion}, nil
}

// generate creates the Secret with a random password, owned by the resource so that it goes
// with it.
func (r *reconcile) generate(ctx context.Context, name string) (password, error) {
	buf := make([]byte, 24)
	if _, err := rand.Read(buf); err != nil {
		return password{}, err
	}
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: r.bu.Namespace,
			Labels:          map[string]string{"app.kubernetes.io/managed-by": "broker-operator"},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(r.bu, v1alpha1.SchemeGroupVersion.WithKind("BrokerUser"))},
		},
		Type: corev1.SecretTypeBasicAuth,
		Data: map[string][]byte{
			corev1.BasicAuthUsernameKey: []byte(r.bu.Name),
			corev1.BasicAuthPasswordKey: []byte(base64.RawURLEncoding.EncodeToString(buf)),
		},
	}
	created, err := r.c.cfg.KubeClient.CoreV1().Secrets(r.bu.Namespace).Create(ctx, s, metav1.CreateOptions{})
	if err != nil {
		return password{}, fmt.Errorf("create Secret %s: %w", name, err)
	}
	r.event(corev1.EventTypeNormal, EventSecretCreated, "Generated the password of user %s into Secret %s", r.bu.Name, name)
	return password{string(created.Data[DefaultPasswordKey]), created.Name, created.ResourceVersion}, nil
}

// superuser is the cluster's superuser: the username of spec.adminAPI.auth's Secret, "" when
// the cluster names none.
func (r *reconcile) superuser(ctx context.Context) (string, error) {
	a := r.bc.Spec.AdminAPI.Auth
	if a == nil {
		return "", nil
	}
	s, err := secretread.Get(ctx, r.c.cfg.KubeClient.CoreV1(), r.bc.Namespace, a.SecretName)
	if err != nil {
		return "", fmt.Errorf("read the superuser Secret %s: %w", a.SecretName, err)
	}
	return string(s.Data[admin.SecretKeyUsername]), nil
}

// passwordFailed records a password that cannot be read in Ready. A Secret that is missing or
// lacks the key is retried with backoff too, in case the Secret watch is off (no metadata
// client).
func (r *reconcile) passwordFailed(err error) error {
	var p *secretProblem
	if errors.As(err, &p) {
		r.notReady(p.reason, p.message)
		return err
	}
	r.notReady(ReasonPasswordSecretNotFound, fmt.Sprintf("read the password of user %s: %v", r.bu.Name, err))
	return err
}
