package admin

import (
	"strings"
	"testing"
)

// A cluster whose DNS domain is not cluster.local names its pods and, through the default
// template, their admin URLs in that domain; OrdinalFromAddress reads them back.
func TestNamesInAnotherClusterDomain(t *testing.T) {
	host := StableHostName("c", "ns", 2, "corp.example")
	if host != "c-2.c.ns.svc.corp.example" {
		t.Errorf("StableHostName = %q", host)
	}
	if o, ok := OrdinalFromAddress(host+":33145", "c"); !ok || o != 2 {
		t.Errorf("OrdinalFromAddress(%q) = %d, %v", host, o, ok)
	}
	tmpl, err := ParseAddressTemplate(DefaultAddressTemplate, "corp.example")
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := tmpl.URL("ns", "c", 1, DefaultAdminPort); u != "http://c-1.c.ns.svc.corp.example:9644" {
		t.Errorf("URL = %q", u)
	}
}

func TestValidateClusterDomain(t *testing.T) {
	for _, d := range []string{"cluster.local", "corp.example", "k8s"} {
		if err := ValidateClusterDomain(d); err != nil {
			t.Errorf("%q: %v", d, err)
		}
	}
	for _, d := range []string{"", "cluster.local.", ".cluster.local", "Cluster.Local", "a..b", "-a.b", strings.Repeat("a", 254)} {
		if err := ValidateClusterDomain(d); err == nil {
			t.Errorf("%q accepted", d)
		}
	}
	if _, err := ParseAddressTemplate(DefaultAddressTemplate, "cluster.local."); err == nil || !strings.Contains(err.Error(), "cluster domain") {
		t.Errorf("a bad domain with the template: %v", err)
	}
}
