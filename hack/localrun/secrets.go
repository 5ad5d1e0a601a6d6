package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// adminUser is the simulated brokers' superuser.
const adminUser = "admin"

// randomPassword makes the superuser's password for this run.
func randomPassword() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// secureAdminAPI creates the Secrets the operator reads to reach the simulated brokers (the CA
// that signed their certificates, and the superuser's credentials) and names them in bc.
func secureAdminAPI(ctx context.Context, kube kubernetes.Interface, bc *v1alpha1.BrokerCluster, caPEM []byte, password string) error {
	tlsName, authName := bc.Name+"-admin-ca", bc.Name+"-admin-superuser"
	secrets := []*corev1.Secret{
		{
			ObjectMeta: metav1.ObjectMeta{Namespace: bc.Namespace, Name: tlsName},
			Data:       map[string][]byte{admin.SecretKeyCACert: caPEM},
		},
		{
			ObjectMeta: metav1.ObjectMeta{Namespace: bc.Namespace, Name: authName},
			Type:       corev1.SecretTypeBasicAuth,
			Data:       map[string][]byte{admin.SecretKeyUsername: []byte(adminUser), admin.SecretKeyPassword: []byte(password)},
		},
	}
	for _, s := range secrets {
		if _, err := kube.CoreV1().Secrets(bc.Namespace).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create Secret %s/%s: %w", s.Namespace, s.Name, err)
		}
	}
	bc.Spec.AdminAPI.TLS = &v1alpha1.AdminAPITLS{SecretName: tlsName}
	bc.Spec.AdminAPI.Auth = &v1alpha1.AdminAPIAuth{SecretName: authName}
	progress("admin API secured: CA in Secret %s/%s, superuser %q in Secret %s/%s", bc.Namespace, tlsName, adminUser, bc.Namespace, authName)
	return nil
}
