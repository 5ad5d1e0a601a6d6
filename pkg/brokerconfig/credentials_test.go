package brokerconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

func tieredCluster(config map[string]string) *v1alpha1.BrokerCluster {
	return &v1alpha1.BrokerCluster{Spec: v1alpha1.BrokerClusterSpec{ClusterConfig: config,
		TieredStorage: &v1alpha1.TieredStorageSpec{CredentialsSecretRef: &v1alpha1.CloudCredentialsSecretRef{
			Name: "keys", AccessKeyKey: "access", SecretKeyKey: "secret"}}}}
}

func TestCloudCredentials(t *testing.T) {
	bc := tieredCluster(nil)
	data := map[string][]byte{"access": []byte("AKIA"), "secret": []byte("123")} // digits: still a string
	c, err := NewCloudCredentials(bc, data, "uid", "7")
	if err != nil {
		t.Fatal(err)
	}
	desired := map[string]string{}
	c.AddTo(desired)
	if desired[SecretKeyProperty] != `"123"` || desired[AccessKeyProperty] != `"AKIA"` {
		t.Errorf("desired %v", desired)
	}
	for _, text := range []string{c.String(), fmt.Sprintf("%v %+v %#v", c, c, c)} {
		if strings.Contains(text, "AKIA") || strings.Contains(text, "123\"") {
			t.Errorf("printed credentials show a key: %s", text)
		}
	}
	rotated, _ := NewCloudCredentials(bc, data, "uid", "8")
	if rotated.Version == c.Version || len(c.Version) > 64 {
		t.Errorf("versions %q and %q: a new resourceVersion must give a new one", c.Version, rotated.Version)
	}
	if !slices.Equal(CredentialProperties(bc), []string{AccessKeyProperty, SecretKeyProperty}) {
		t.Errorf("CredentialProperties = %v", CredentialProperties(bc))
	}
	var missing *MissingKeyError
	if _, err := NewCloudCredentials(bc, map[string][]byte{"secret": []byte("s")}, "u", "1"); !errors.As(err, &missing) || missing.Key != "access" {
		t.Errorf("a missing access key: %v", err)
	}
	azure := tieredCluster(map[string]string{"cloud_storage_azure_storage_account": "a", "cloud_storage_azure_container": "c"})
	if got := CredentialProperties(azure); !slices.Contains(got, AzureSharedKeyProperty) || slices.Contains(got, SecretKeyProperty) {
		t.Errorf("Azure: %v, want the shared key", got)
	}
}

func TestKeepAppliedOnlyForTheSameSecretVersion(t *testing.T) {
	bc := tieredCluster(nil)
	c, _ := NewCloudCredentials(bc, map[string][]byte{"access": []byte("AKIA"), "secret": []byte("s")}, "uid", "7")
	desired := map[string]string{}
	c.AddTo(desired)
	set := map[string]json.RawMessage{SecretKeyProperty: RedactedValue, AccessKeyProperty: json.RawMessage(`"AKIA"`)}
	current := Current{All: set, Set: set}

	d := Diff(desired, current, nil)
	c.KeepApplied(&d, current, c.Version)
	if !d.Empty() || !slices.Equal(d.Unchanged, []string{AccessKeyProperty, SecretKeyProperty}) {
		t.Errorf("same version: %+v, want nothing to write", d)
	}
	d = Diff(desired, current, nil)
	c.KeepApplied(&d, current, "an older version")
	if _, ok := d.Upsert[SecretKeyProperty]; !ok {
		t.Errorf("another version: %+v, want the secret key written", d)
	}
	unset := Current{All: map[string]json.RawMessage{SecretKeyProperty: json.RawMessage("null")}}
	d = Diff(desired, unset, nil)
	c.KeepApplied(&d, unset, c.Version)
	if _, ok := d.Upsert[SecretKeyProperty]; !ok {
		t.Errorf("a key reset behind the operator's back: %+v, want it written again", d)
	}
}
