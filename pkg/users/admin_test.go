package users

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/writeback/writebacktest"
)

// The admin client is reused while the cluster's URLs and Secrets stay the same, and made
// again when the superuser's Secret changes, so that a rotated password is used at once. A
// cluster with pools is reached at every pool's brokers, with TLS over https.
func TestClusterAdminIsReusedUntilItsSecretsChange(t *testing.T) {
	kube := kubefake.NewClientset()
	writebacktest.StampServerFields(&kube.Fake, kube.Tracker())
	ctx := context.Background()
	s, err := kube.CoreV1().Secrets("team").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "su", Namespace: "team"},
		Data: map[string][]byte{"username": []byte("admin"), "password": []byte("pw")}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := admin.ParseAddressTemplate(admin.DefaultAddressTemplate, admin.DefaultClusterDomain)
	if err != nil {
		t.Fatal(err)
	}
	connect := ClusterAdmin(kube, tmpl, 0)
	bc := &v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Name: "kafka", Namespace: "team"},
		Spec: v1alpha1.BrokerClusterSpec{AdminAPI: v1alpha1.AdminAPISpec{Auth: &v1alpha1.AdminAPIAuth{SecretName: "su"}}}}

	first, _ := connect(ctx, bc)
	again, _ := connect(ctx, bc)
	if first == nil || first != again {
		t.Fatal("an unchanged cluster got a new admin client")
	}
	s.Data["password"] = []byte("rotated")
	if _, err := kube.CoreV1().Secrets("team").Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if rotated, _ := connect(ctx, bc); rotated == first {
		t.Fatal("a rotated superuser Secret kept the old client")
	}
	bc.Status.Pools = []v1alpha1.PoolStatus{{Name: v1alpha1.DefaultPoolName, Replicas: 1}, {Name: "blue", Replicas: 2}}
	bc.Spec.AdminAPI.TLS = &v1alpha1.AdminAPITLS{SecretName: "ca"}
	urls, err := adminURLs(tmpl, bc)
	want := []string{"https://kafka-0.kafka.team.svc.cluster.local:9644", "https://kafka-blue-0.kafka-blue.team.svc.cluster.local:9644", "https://kafka-blue-1.kafka-blue.team.svc.cluster.local:9644"}
	if err != nil || !slices.Equal(urls, want) {
		t.Fatalf("URLs of a cluster with pools and TLS: %q, %v; want %q", urls, err, want)
	}
}
