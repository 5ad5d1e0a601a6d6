package framework

import (
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

const kubeconfigContext = "broker-operator-local"

// writeKubeconfig writes a kubeconfig that reaches the apiserver with a bearer token.
func writeKubeconfig(path, server string, caPEM []byte, user, token string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[kubeconfigContext] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[kubeconfigContext] = &clientcmdapi.Context{Cluster: kubeconfigContext, AuthInfo: user, Namespace: "default"}
	cfg.CurrentContext = kubeconfigContext
	return clientcmd.WriteToFile(*cfg, path)
}

func tokenConfig(server string, caPEM []byte, token string) *rest.Config {
	return &rest.Config{
		Host:            server,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: caPEM},
		// Tests create many objects quickly; client-side throttling would only slow them.
		QPS:   100,
		Burst: 200,
	}
}
