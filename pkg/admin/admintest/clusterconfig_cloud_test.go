package admintest_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/admin"
)

// Redpanda answers "[secret]" for a secret property that is set, and its value where it is at
// its default (config/property.h to_json); the value is still the one in effect.
func TestSecretPropertiesAreRedactedOnRead(t *testing.T) {
	c, cl, _ := newConfigCluster(t, 3)
	ctx := context.Background()
	all, err := cl.ClusterConfig(ctx, true)
	if err != nil || string(all["cloud_storage_secret_key"]) != "null" {
		t.Fatalf("default secret key read as %s, %v; want null", all["cloud_storage_secret_key"], err)
	}
	if _, err := cl.PatchClusterConfig(ctx, admin.ConfigPatch{Upsert: map[string]json.RawMessage{
		"cloud_storage_secret_key": raw(`"s3cr3t"`), "cloud_storage_access_key": raw(`"AKIA"`)}}); err != nil {
		t.Fatal(err)
	}
	for _, includeDefaults := range []bool{true, false} {
		got, err := cl.ClusterConfig(ctx, includeDefaults)
		if err != nil {
			t.Fatal(err)
		}
		if string(got["cloud_storage_secret_key"]) != `"[secret]"` || string(got["cloud_storage_access_key"]) != `"AKIA"` {
			t.Errorf("include_defaults=%t: secret key %s, access key %s; want [secret] and the access key", includeDefaults,
				got["cloud_storage_secret_key"], got["cloud_storage_access_key"])
		}
	}
	if v, _ := c.ClusterProperty("cloud_storage_secret_key"); v != "s3cr3t" {
		t.Errorf("the brokers hold %v", v)
	}
	before, _ := cl.ClusterConfigStatus(ctx)
	res, err := cl.PatchClusterConfig(ctx, admin.ConfigPatch{Upsert: map[string]json.RawMessage{"cloud_storage_secret_key": raw(`"s3cr3t"`)}})
	if err != nil || res.ConfigVersion != before[0].ConfigVersion {
		t.Errorf("writing the same secret again: %+v, %v; want a no-op at version %d", res, err, before[0].ConfigVersion)
	}
}

// config_multi_property_validation: cloud storage is enabled only with what its credentials
// source needs, judged on the configuration the write leaves.
func TestCloudStorageNeedsItsCredentials(t *testing.T) {
	_, cl, _ := newConfigCluster(t, 1)
	ctx := context.Background()
	write := func(upsert map[string]string) map[string]string {
		t.Helper()
		p := admin.ConfigPatch{Upsert: map[string]json.RawMessage{}}
		for k, v := range upsert {
			p.Upsert[k] = raw(v)
		}
		_, err := cl.PatchClusterConfig(ctx, p)
		var ve *admin.ConfigValidationError
		if errors.As(err, &ve) {
			return ve.Properties
		}
		if err != nil {
			t.Fatal(err)
		}
		return nil
	}
	if got := write(map[string]string{"cloud_storage_enabled": "true", "cloud_storage_region": `"r"`, "cloud_storage_bucket": `"b"`}); got["cloud_storage_enabled"] == "" {
		t.Errorf("enabled without keys: %v, want refused", got)
	}
	if got := write(map[string]string{"cloud_storage_enabled": "true", "cloud_storage_credentials_source": `"sts"`}); got["cloud_storage_region"] == "" || got["cloud_storage_bucket"] == "" {
		t.Errorf("sts without region and bucket: %v, want both named", got)
	}
	if got := write(map[string]string{"cloud_storage_credentials_source": `"nfs"`}); got["cloud_storage_credentials_source"] == "" {
		t.Errorf("an unknown credentials source: %v, want refused", got)
	}
	if got := write(map[string]string{"cloud_storage_secret_key": `""`}); got["cloud_storage_secret_key"] != "Empty string is not valid" {
		t.Errorf("an empty key: %v", got)
	}
	if got := write(map[string]string{"cloud_storage_enabled": "true", "cloud_storage_region": `"r"`, "cloud_storage_bucket": `"b"`,
		"cloud_storage_access_key": `"a"`, "cloud_storage_secret_key": `"s"`}); got != nil {
		t.Errorf("enabled with every S3 property in one write: refused %v", got)
	}
	if got := write(map[string]string{"cloud_storage_credentials_source": `"aws_instance_metadata"`}); got != nil {
		t.Errorf("switching to the instance's identity with region and bucket set: refused %v", got)
	}
}
