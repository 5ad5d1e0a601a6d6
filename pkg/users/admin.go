package users

import (
	"context"
	"fmt"
	"strings"
	"sync"
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
	cache := &adminClients{byCluster: map[string]cachedAdmin{}}
	return func(ctx context.Context, bc *v1alpha1.BrokerCluster) (admin.UsersClient, error) {
		urls, err := adminURLs(t, bc)
		if err != nil {
			return nil, err
		}
		cfg := admin.Config{URLs: urls, Timeout: timeout}
		version := strings.Join(urls, ",")
		for _, name := range adminSecrets(bc) {
			s, err := secretread.Get(ctx, kube.CoreV1(), bc.Namespace, name)
			if err != nil {
				return nil, fmt.Errorf("read the admin API Secret %s: %w", name, err)
			}
			cfg.SetSecretData(s.Data)
			version += "|" + string(s.UID) + "/" + s.ResourceVersion
		}
		return cache.get(bc.Namespace+"/"+bc.Name, version, cfg)
	}
}

// adminClients keeps one client per cluster while its URLs and Secrets stay the same, so that
// reconciles reuse its connections; a TLS client has a transport of its own.
type adminClients struct {
	mu        sync.Mutex
	byCluster map[string]cachedAdmin
}

type cachedAdmin struct {
	version string // the URLs and the Secrets' UIDs and resourceVersions it was made from
	client  admin.UsersClient
}

func (c *adminClients) get(cluster, version string, cfg admin.Config) (admin.UsersClient, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cached, ok := c.byCluster[cluster]; ok && cached.version == version {
		return cached.client, nil
	}
	client, err := admin.NewUsersClient(cfg)
	if err != nil {
		return nil, err
	}
	c.byCluster[cluster] = cachedAdmin{version: version, client: client}
	return client, nil
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
	type set struct {
		name     string
		replicas int32
	}
	sets := []set{{bc.Name, max(bc.Status.CurrentReplicas, 1)}}
	if len(bc.Status.Pools) > 0 {
		sets = nil
		for _, p := range bc.Status.Pools {
			name := bc.Name
			if p.Name != v1alpha1.DefaultPoolName {
				name = bc.Name + "-" + p.Name
			}
			sets = append(sets, set{name, p.Replicas})
		}
	}
	var urls []string
	for _, s := range sets {
		more, err := t.URLs(bc.Namespace, s.name, int(s.replicas), port)
		if err != nil {
			return nil, err
		}
		urls = append(urls, more...)
	}
	// With TLS the URLs are https whatever scheme the template renders, as the BrokerCluster
	// controller reaches them (pkg/controller/internal/brokers/identity.go).
	for i, u := range urls {
		if rest, ok := strings.CutPrefix(u, "http://"); ok && bc.Spec.AdminAPI.TLS != nil {
			urls[i] = "https://" + rest
		}
	}
	return urls, nil
}
