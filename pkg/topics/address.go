package topics

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"text/template"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
)

// DefaultAddressTemplate is each broker's internal Kafka listener at its stable DNS name: the
// address the brokers advertise on that listener (brokerconfig.KafkaNodeConfig).
const DefaultAddressTemplate = "{{.Name}}-{{.Ordinal}}.{{.Name}}.{{.Namespace}}.svc.{{.ClusterDomain}}:{{.Port}}"

// AddressTemplate renders the host:port of one broker's internal Kafka listener, over the
// fields of admin.AddressFields (.Port is the internal Kafka port). It lets an operator that
// runs outside the Kubernetes cluster reach the brokers, as --admin-address-template does for
// the admin API.
type AddressTemplate struct {
	tmpl   *template.Template
	domain string
}

// ParseAddressTemplate parses text, whose .ClusterDomain is domain, and checks that it renders
// host:port.
func ParseAddressTemplate(text, domain string) (*AddressTemplate, error) {
	if err := admin.ValidateClusterDomain(domain); err != nil {
		return nil, fmt.Errorf("kafka address template: %w", err)
	}
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("empty kafka address template")
	}
	// add sums integers, as in the admin address template: {{add .Port .Ordinal}}.
	funcs := template.FuncMap{"add": func(a int, more ...int) int {
		for _, b := range more {
			a += b
		}
		return a
	}}
	tmpl, err := template.New("kafka-address").Option("missingkey=error").Funcs(funcs).Parse(text)
	if err != nil {
		return nil, fmt.Errorf("kafka address template: %w", err)
	}
	t := &AddressTemplate{tmpl: tmpl, domain: domain}
	if _, err := t.Address("ns", "name", 0); err != nil {
		return nil, err
	}
	return t, nil
}

// Address renders the internal Kafka address of broker ordinal of cluster namespace/name.
func (t *AddressTemplate) Address(namespace, name string, ordinal int) (string, error) {
	var buf bytes.Buffer
	fields := admin.AddressFields{Namespace: namespace, Name: name, Ordinal: ordinal, Port: brokerconfig.KafkaInternalPort, ClusterDomain: t.domain}
	if err := t.tmpl.Execute(&buf, fields); err != nil {
		return "", fmt.Errorf("kafka address template: %w", err)
	}
	s := strings.TrimSpace(buf.String())
	host, port, err := net.SplitHostPort(s)
	if err != nil || host == "" || strings.ContainsAny(host, "/@ ") {
		return "", fmt.Errorf("kafka address template rendered %q, not host:port", s)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return "", fmt.Errorf("kafka address template rendered %q, whose port is not 1 to 65535", s)
	}
	return s, nil
}
