package framework

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"golang.org/x/oauth2"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport"
)

const (
	serviceAccountTokenLifetime = time.Hour
	// tokenRenewMargin renews a token this long before it expires.
	tokenRenewMargin  = 5 * time.Minute
	tokenRequestLimit = 30 * time.Second
)

// ServiceAccountConfig returns a client configuration that authenticates as the ServiceAccount
// namespace/name, with tokens from the TokenRequest API that are renewed before they expire. It
// has only the permissions RBAC grants that ServiceAccount. The ServiceAccount must exist.
func (cp *ControlPlane) ServiceAccountConfig(ctx context.Context, namespace, name string) (*rest.Config, error) {
	source, err := cp.serviceAccountTokenSource(namespace, name)
	if err != nil {
		return nil, err
	}
	// Fail here, with a clear error, rather than on the caller's first request.
	if _, err := source.request(ctx, serviceAccountTokenLifetime); err != nil {
		return nil, err
	}
	cfg := tokenConfig(cp.APIServerURL, cp.caPEM, "")
	cfg.WrapTransport = transport.ResettableTokenSourceWrapTransport(transport.NewCachedTokenSource(source))
	return cfg, nil
}

// ServiceAccountKubeconfig writes a kubeconfig for the ServiceAccount namespace/name, holding a
// token valid for lifetime (at least 10 minutes), for running a binary as that ServiceAccount.
// The file lives in the control plane's directory; its path is returned.
func (cp *ControlPlane) ServiceAccountKubeconfig(ctx context.Context, namespace, name string, lifetime time.Duration) (string, error) {
	source, err := cp.serviceAccountTokenSource(namespace, name)
	if err != nil {
		return "", err
	}
	token, err := source.request(ctx, lifetime)
	if err != nil {
		return "", err
	}
	path := filepath.Join(cp.Dir, fmt.Sprintf("serviceaccount-%s-%s.kubeconfig", namespace, name))
	user := "system:serviceaccount:" + namespace + ":" + name
	if err := writeKubeconfig(path, cp.APIServerURL, cp.caPEM, user, token.AccessToken); err != nil {
		return "", err
	}
	return path, nil
}

func (cp *ControlPlane) serviceAccountTokenSource(namespace, name string) (*serviceAccountTokenSource, error) {
	if namespace == "" || name == "" {
		return nil, fmt.Errorf("service account needs a namespace and a name, got %q/%q", namespace, name)
	}
	client, err := kubernetes.NewForConfig(cp.admin)
	if err != nil {
		return nil, err
	}
	return &serviceAccountTokenSource{client: client, namespace: namespace, name: name}, nil
}

// serviceAccountTokenSource mints ServiceAccount tokens with the admin's credentials.
type serviceAccountTokenSource struct {
	client          kubernetes.Interface
	namespace, name string
}

// Token implements oauth2.TokenSource, which has no context; tokenRequestLimit bounds the call.
func (s *serviceAccountTokenSource) Token() (*oauth2.Token, error) {
	ctx, cancel := context.WithTimeout(context.Background(), tokenRequestLimit)
	defer cancel()
	return s.request(ctx, serviceAccountTokenLifetime)
}

func (s *serviceAccountTokenSource) request(ctx context.Context, lifetime time.Duration) (*oauth2.Token, error) {
	seconds := int64(lifetime / time.Second)
	resp, err := s.client.CoreV1().ServiceAccounts(s.namespace).CreateToken(ctx, s.name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("request a token for service account %s/%s: %w", s.namespace, s.name, err)
	}
	expiry := resp.Status.ExpirationTimestamp.Time
	renewAt := expiry.Add(-tokenRenewMargin)
	if lifetime <= 2*tokenRenewMargin {
		renewAt = expiry.Add(-lifetime / 2)
	}
	return &oauth2.Token{AccessToken: resp.Status.Token, TokenType: "Bearer", Expiry: renewAt}, nil
}
