package users

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/secretread"
)

// AdminFunc opens an admin API client for a cluster's users calls. Tests pass one that reaches
// the simulator (pkg/admin/admintest).
type AdminFunc func(ctx context.Context, bc *v1alpha1.BrokerCluster) (admin.UsersClient, error)

// ClusterAdmin reaches a cluster's admin API as the BrokerCluster controller does: the brokers'
// URLs rendered by t (--admin-address-template), the CA and client certificate of
// spec.adminAPI.tls and the superuser of spec.adminAPI.auth, each Secret read with a GET by
// name. The users calls need a superuser (security.cc, register_route<superuser>). Each
// request is bounded by timeout (zero: admin.DefaultTimeout).
func ClusterAdmin(kube kubernetes.Interface, t *admin.AddressTemplate, timeout time.Duration) AdminFunc {
	return func(ctx context.Context, bc *v1alpha1.BrokerCluster) (admin.UsersClient, error) {
		urls, err := adminURLs(t, bc)
		if err != nil {
			return nil, err
		}
		cfg := admin.Config{URLs: urls, Timeout: timeout}
		for _, name := range adminSecrets(bc) {
			s, err := secretread.Get(ctx, kube.CoreV1(), bc.Namespace, name)
			if err != nil {
				return nil, fmt.Errorf("read the admin API Secret %s: %w", name, err)
			}
			cfg.SetSecretData(s.Data)
		}
		return admin.NewUsersClient(cfg)
	}
}

// adminSecrets are the Secrets spec.adminAPI names: TLS material first, then the superuser,
// whose username and password win.
func adminSecrets(bc *v1alpha1.BrokerCluster) []string {
	var names []string
	if t := bc.Spec.AdminAPI.TLS; t != nil {
		names = append(names, t.SecretName)
	}
	if a := bc.Spec.AdminAPI.Auth; a != nil {
		names = append(names, a.SecretName)
	}
	return names
}

// adminURLs are every pool's brokers (status.pools), or without pools brokers 0 to
// currentReplicas-1 (at least one): any broker answers, and the writes are redirected to the
// controller leader.
func adminURLs(t *admin.AddressTemplate, bc *v1alpha1.BrokerCluster) ([]string, error) {
	port := admin.DefaultAdminPort
	if bc.Spec.AdminAPI.Port > 0 {
		port = int(bc.Spec.AdminAPI.Port)
	}
	if len(bc.Status.Pools) == 0 {
		return t.URLs(bc.Namespace, bc.Name, int(max(bc.Status.CurrentReplicas, 1)), port)
	}
	var urls []string
	for _, p := range bc.Status.Pools {
		set := bc.Name
		if p.Name != v1alpha1.DefaultPoolName {
			set = bc.Name + "-" + p.Name
		}
		more, err := t.URLs(bc.Namespace, set, int(p.Replicas), port)
		if err != nil {
			return nil, err
		}
		urls = append(urls, more...)
	}
	return urls, nil
}
