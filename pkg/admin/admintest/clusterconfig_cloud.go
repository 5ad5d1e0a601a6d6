package admintest

import (
	"fmt"
	"reflect"
	"strings"
)

// checkCloudStorage is the tiered storage part of config_multi_property_validation
// (redpanda-data/redpanda src/v/redpanda/admin/server.cc): the configuration after the write
// may enable cloud storage only with the properties its credentials source needs. With
// config_file, S3's region, bucket, access key and secret key, or Azure's storage account,
// container and shared key; with an instance's or a pod's identity (aws_instance_metadata,
// gcp_instance_metadata, sts), the region and the bucket; with azure_aks_oidc_federation, the
// storage account and the container. Errors go into errs by property. Callers hold s.mu.
func (c *Cluster) checkCloudStorage(parsed map[string]any, remove []string, errs map[string]string) {
	after := func(name string) any {
		for _, r := range remove {
			if r == name {
				return knownProperties[name].def
			}
		}
		if v, ok := parsed[name]; ok {
			return v
		}
		return c.currentValue(name)
	}
	if !reflect.DeepEqual(after("cloud_storage_enabled"), true) {
		return
	}
	unset := func(names ...string) []string {
		var out []string
		for _, n := range names {
			if after(n) == nil {
				out = append(out, n)
			}
		}
		return out
	}
	s3 := []string{"cloud_storage_region", "cloud_storage_bucket", "cloud_storage_access_key", "cloud_storage_secret_key"}
	abs := []string{"cloud_storage_azure_storage_account", "cloud_storage_azure_container", "cloud_storage_azure_shared_key"}
	source, _ := after("cloud_storage_credentials_source").(string)
	switch source {
	case "config_file":
		if len(unset(s3...)) > 0 && len(unset(abs...)) > 0 {
			errs["cloud_storage_enabled"] = fmt.Sprintf("To enable cloud storage you need to configure S3 or Azure Blob Storage access. For S3 %s must be set. For ABS %s must be set",
				strings.Join(s3, ", "), strings.Join(abs, ", "))
		}
	case "aws_instance_metadata", "gcp_instance_metadata", "sts":
		for _, n := range unset(s3[:2]...) {
			errs[n] = "Must be set when cloud storage enabled with cloud_storage_credentials_source = " + source
		}
	case "azure_aks_oidc_federation":
		for _, n := range unset(abs[:2]...) {
			errs[n] = "Must be set when cloud storage enabled with cloud_storage_credentials_source = " + source
		}
	}
}

// ClusterProperty is the value the brokers hold for a cluster property, secret ones included,
// which GET /v1/cluster_config never shows: for a test that checks what reached the brokers.
// ok is false for a property at its default.
func (c *Cluster) ClusterProperty(name string) (value any, ok bool) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	value, ok = c.cfg().values[name]
	return value, ok
}
