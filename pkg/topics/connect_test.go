package topics

import (
	"context"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

func TestSeedsAreTheFirstBrokersOnTheInternalListener(t *testing.T) {
	bc := &v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Name: "kafka", Namespace: "team"}, Spec: v1alpha1.BrokerClusterSpec{Replicas: 5}}
	want := []string{
		"kafka-0.kafka.team.svc.cluster.local:9092",
		"kafka-1.kafka.team.svc.cluster.local:9092",
		"kafka-2.kafka.team.svc.cluster.local:9092",
	}
	addrs, err := ParseAddressTemplate(DefaultAddressTemplate, admin.DefaultClusterDomain)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := seeds(bc, addrs); err != nil || !slices.Equal(got, want) {
		t.Fatalf("seeds %v (%v), want %v", got, err, want)
	}
	bc.Spec.Replicas = 1
	if got, err := seeds(bc, addrs); err != nil || len(got) != 1 {
		t.Fatalf("seeds %v (%v) for one broker", got, err)
	}
}

// A template names where the operator reaches the brokers from (outside the cluster, say);
// one address for every broker is one seed.
func TestSeedsFollowTheAddressTemplate(t *testing.T) {
	bc := &v1alpha1.BrokerCluster{ObjectMeta: metav1.ObjectMeta{Name: "kafka", Namespace: "team"}, Spec: v1alpha1.BrokerClusterSpec{Replicas: 3}}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"127.0.0.1:{{add 19092 .Ordinal}}", []string{"127.0.0.1:19092", "127.0.0.1:19093", "127.0.0.1:19094"}},
		{"127.0.0.1:40000", []string{"127.0.0.1:40000"}},
		{"{{.Name}}-{{.Ordinal}}.{{.Namespace}}.example.com:{{.Port}}", []string{"kafka-0.team.example.com:9092", "kafka-1.team.example.com:9092", "kafka-2.team.example.com:9092"}},
	} {
		addrs, err := ParseAddressTemplate(tc.text, admin.DefaultClusterDomain)
		if err != nil {
			t.Fatalf("%s: %v", tc.text, err)
		}
		if got, err := seeds(bc, addrs); err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: seeds %v (%v), want %v", tc.text, got, err, tc.want)
		}
	}
}

func TestAddressTemplateRefusesWhatIsNotHostPort(t *testing.T) {
	for _, text := range []string{"", "kafka", "http://kafka:9092", "kafka:0", "kafka:{{.Nope}}", "{{", ":9092"} {
		if _, err := ParseAddressTemplate(text, admin.DefaultClusterDomain); err == nil {
			t.Errorf("%q was accepted", text)
		}
	}
}

// With spec.kafka.sasl the operator logs in as the superuser of spec.adminAPI.auth, with the
// cluster's mechanism: kfake refuses anything else.
func TestSASLAsTheClusterSuperuser(t *testing.T) {
	kc, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", "admin", "s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	bc := &v1alpha1.BrokerCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "kafka", Namespace: "team"},
		Spec: v1alpha1.BrokerClusterSpec{
			AdminAPI: v1alpha1.AdminAPISpec{Auth: &v1alpha1.AdminAPIAuth{SecretName: "superuser"}},
			Kafka:    &v1alpha1.KafkaSpec{SASL: &v1alpha1.KafkaSASL{Mechanism: v1alpha1.SCRAMSHA512}},
		},
	}
	secret := func(password string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "superuser", Namespace: "team"},
			Data: map[string][]byte{"username": []byte("admin"), "password": []byte(password)}}
	}
	describe := func(password string) error {
		ctx := context.Background()
		opts, err := securityOptions(ctx, kubefake.NewClientset(secret(password)), bc)
		if err != nil {
			return err
		}
		k, err := NewKafka(append(opts, kgo.SeedBrokers(kc.ListenAddrs()...))...)
		if err != nil {
			return err
		}
		defer k.Close()
		_, err = k.Describe(ctx, "orders")
		return err
	}
	if err := describe("s3cret"); err != nil {
		t.Fatalf("the superuser's credentials were refused: %v", err)
	}
	if err := describe("wrong"); err == nil {
		t.Fatal("a wrong password was accepted: the test does not reach SASL")
	}

	if _, err := securityOptions(context.Background(), kubefake.NewClientset(), bc); err == nil {
		t.Fatal("a missing superuser Secret gave no error")
	}
}
