// Command models-schema prints the OpenAPI v2 definitions of the API types as JSON, for
// applyconfiguration-gen's --openapi-schema. With that schema the generated apply configurations and
// the generated fake clientset (NewClientset, which tracks managed fields) know the types' structure.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/broker-operator/broker-operator/pkg/generated/openapi"
)

func main() {
	if err := printSchema(); err != nil {
		fmt.Fprintf(os.Stderr, "models-schema: %v\n", err)
		os.Exit(1)
	}
}

func printSchema() error {
	ref := func(name string) spec.Ref {
		return spec.MustCreateRef("#/definitions/" + definitionName(name))
	}
	defs := openapi.GetOpenAPIDefinitions(ref)
	schemas := make(map[string]spec.Schema, len(defs))
	for name, def := range defs {
		s := def.Schema
		// Some definitions carry their v2 form beside a v3 one; applyconfiguration-gen reads v2.
		if v2, ok := s.Extensions[common.ExtensionV2Schema]; ok {
			if v2Schema, ok := v2.(spec.Schema); ok {
				s = v2Schema
			}
		}
		schemas[definitionName(name)] = s
	}
	doc := spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Swagger:     "2.0",
		Info:        &spec.Info{InfoProps: spec.InfoProps{Title: "broker-operator", Version: "unversioned"}},
		Definitions: schemas,
	}}
	out, err := json.MarshalIndent(&doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(out)
	return err
}

// definitionName turns a Go type path such as k8s.io/api/core/v1.Toleration into the
// reverse-domain name the Kubernetes OpenAPI documents use: io.k8s.api.core.v1.Toleration.
func definitionName(goName string) string {
	parts := strings.Split(goName, "/")
	if strings.Contains(parts[0], ".") {
		host := strings.Split(parts[0], ".")
		for i, j := 0, len(host)-1; i < j; i, j = i+1, j-1 {
			host[i], host[j] = host[j], host[i]
		}
		parts[0] = strings.Join(host, ".")
	}
	return strings.Join(parts, ".")
}
