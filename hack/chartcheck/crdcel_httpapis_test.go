package chartcheck

import (
	"maps"
	"testing"
)

// The BrokerCluster CRD's rules on spec.schemaRegistry and spec.httpProxy refuse what
// docs/schema-registry-and-http-proxy.md ("What the CRD refuses") says, with its messages.
func TestHTTPAPIRules(t *testing.T) {
	check := celChecker(t, "broker-operator.dev_brokerclusters.yaml", "BrokerCluster")
	spec := func(extra map[string]any) map[string]any {
		s := map[string]any{"replicas": int64(3), "image": "redpanda", "storage": map[string]any{"size": "10Gi"}, "adminAPI": map[string]any{"port": int64(9644)}}
		maps.Copy(s, extra)
		return s
	}
	nodePortKafka := map[string]any{"external": map[string]any{"type": "NodePort", "port": int64(9094), "nodePort": map[string]any{"basePort": int64(31000)}}}
	saslKafka := map[string]any{"sasl": map[string]any{}}
	ext := func(e map[string]any) map[string]any { return map[string]any{"external": e} }
	nodePort := func(base int64) map[string]any { return map[string]any{"nodePort": map[string]any{"basePort": base}} }

	for _, tc := range []struct {
		name string
		spec map[string]any
		want string
	}{
		{"both on, defaults", spec(map[string]any{"schemaRegistry": map[string]any{}, "httpProxy": map[string]any{}}), ""},
		{"same port twice", spec(map[string]any{"schemaRegistry": map[string]any{"port": int64(8082)}, "httpProxy": map[string]any{}}), "must differ from each other"},
		{"the Kafka port", spec(map[string]any{"httpProxy": map[string]any{"port": int64(9092)}}), "must differ from each other"},
		{"the admin port", spec(map[string]any{"schemaRegistry": map[string]any{"port": int64(9644)}}), "must differ from each other"},
		{"an external port on the Kafka external port", spec(map[string]any{"kafka": nodePortKafka,
			"schemaRegistry": ext(map[string]any{"port": int64(9094), "nodePort": map[string]any{"basePort": int64(31500)}})}), "must differ from each other"},
		{"the external default on the other's internal port", spec(map[string]any{"kafka": nodePortKafka,
			"schemaRegistry": map[string]any{"port": int64(8083)}, "httpProxy": ext(nodePort(31600))}), "must differ from each other"},
		{"http_basic without SASL", spec(map[string]any{"httpProxy": map[string]any{"authenticationMethod": "http_basic"}}), "needs spec.kafka.sasl"},
		{"http_basic with SASL", spec(map[string]any{"kafka": saslKafka, "adminAPI": map[string]any{"auth": map[string]any{"secretName": "su"}},
			"schemaRegistry": map[string]any{"authenticationMethod": "http_basic"}}), ""},
		{"external without Kafka's", spec(map[string]any{"schemaRegistry": ext(map[string]any{})}), "need spec.kafka.external"},
		{"NodePort without a base port", spec(map[string]any{"kafka": nodePortKafka, "httpProxy": ext(map[string]any{})}), "set exactly when spec.kafka.external.type is NodePort"},
		{"a base port with LoadBalancer", spec(map[string]any{"kafka": map[string]any{"external": map[string]any{"type": "LoadBalancer"}},
			"httpProxy": ext(nodePort(31600))}), "set exactly when spec.kafka.external.type is NodePort"},
		{"LoadBalancer", spec(map[string]any{"kafka": map[string]any{"external": map[string]any{"type": "LoadBalancer"}},
			"httpProxy": ext(map[string]any{}), "schemaRegistry": ext(map[string]any{})}), ""},
		{"Addresses without the API's", spec(map[string]any{"kafka": map[string]any{"external": map[string]any{"type": "Addresses", "addresses": []any{"a:1", "b:1", "c:1"}}},
			"schemaRegistry": ext(map[string]any{})}), "set exactly when spec.kafka.external.type is Addresses"},
		{"too few addresses", spec(map[string]any{"kafka": map[string]any{"external": map[string]any{"type": "Addresses", "addresses": []any{"a:1", "b:1", "c:1"}}},
			"schemaRegistry": ext(map[string]any{"addresses": []any{"a:2", "b:2"}})}), "at least spec.replicas"},
		{"Addresses", spec(map[string]any{"kafka": map[string]any{"external": map[string]any{"type": "Addresses", "addresses": []any{"a:1", "b:1", "c:1"}}},
			"schemaRegistry": ext(map[string]any{"addresses": []any{"a:2", "b:2", "c:2"}})}), ""},
		{"node ports apart", spec(map[string]any{"kafka": nodePortKafka, "schemaRegistry": ext(nodePort(31003)), "httpProxy": ext(nodePort(31006))}), ""},
		{"node ports over Kafka's", spec(map[string]any{"kafka": nodePortKafka, "schemaRegistry": ext(nodePort(31002))}), "nor overlap"},
		{"node ports over each other's", spec(map[string]any{"kafka": nodePortKafka, "schemaRegistry": ext(nodePort(31500)), "httpProxy": ext(nodePort(31498))}), "nor overlap"},
		{"node ports past the range", spec(map[string]any{"kafka": nodePortKafka, "httpProxy": ext(nodePort(32766))}), "must not exceed 32767"},
	} {
		check(tc.name, "kafka", tc.spec, nil, tc.want)
	}
}
