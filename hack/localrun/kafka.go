package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/twmb/franz-go/pkg/kfake"
	"sigs.k8s.io/yaml"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
)

// The example topic and user, created on the example cluster once it exists.
const (
	exampleTopicPath = "deploy/examples/brokertopic.yaml"
	exampleUserPath  = "deploy/examples/brokeruser.yaml"
)

// startKafka starts franz-go's in-process Kafka (kfake), one broker on 127.0.0.1, as the
// example cluster's internal Kafka listener: SCRAM-SHA-256 with the simulated brokers'
// superuser, as the example's spec.kafka.sasl asks. The operator reaches it through
// --kafka-address-template, as the e2e tests do.
func startKafka(password string) (*kfake.Cluster, error) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", adminUser, password))
	if err != nil {
		return nil, fmt.Errorf("start the in-process Kafka: %w", err)
	}
	return c, nil
}

// saslKafka asks for SCRAM-SHA-256 on the example's Kafka listeners, as its BrokerUser needs;
// the superuser is spec.adminAPI.auth's, which secureAdminAPI sets.
func saslKafka(bc *v1alpha1.BrokerCluster) {
	if bc.Spec.Kafka == nil {
		bc.Spec.Kafka = &v1alpha1.KafkaSpec{}
	}
	bc.Spec.Kafka.SASL = &v1alpha1.KafkaSASL{Mechanism: v1alpha1.SCRAMSHA256}
}

// createExampleTopicAndUser creates deploy/examples' BrokerTopic and BrokerUser in namespace.
func createExampleTopicAndUser(ctx context.Context, root, namespace string, brokers versioned.Interface) error {
	bt := &v1alpha1.BrokerTopic{}
	if err := readExample(root, exampleTopicPath, bt); err != nil {
		return err
	}
	if _, err := brokers.BrokersV1alpha1().BrokerTopics(namespace).Create(ctx, bt, metav1CreateOptions); err != nil {
		return fmt.Errorf("create the example BrokerTopic: %w", err)
	}
	progress("created BrokerTopic %s/%s (%s)", namespace, bt.Name, exampleTopicPath)
	bu := &v1alpha1.BrokerUser{}
	if err := readExample(root, exampleUserPath, bu); err != nil {
		return err
	}
	if _, err := brokers.BrokersV1alpha1().BrokerUsers(namespace).Create(ctx, bu, metav1CreateOptions); err != nil {
		return fmt.Errorf("create the example BrokerUser: %w", err)
	}
	progress("created BrokerUser %s/%s (%s)", namespace, bu.Name, exampleUserPath)
	return nil
}

func readExample(root, path string, into any) error {
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		return err
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	return nil
}
