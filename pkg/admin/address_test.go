package admin

import (
	"strings"
	"testing"
)

func TestOrdinalFromAddress(t *testing.T) {
	cases := []struct {
		addr, cluster string
		ordinal       int
		ok            bool
	}{
		{"c-0.c.ns.svc.cluster.local", "c", 0, true},
		{"c-12.c.ns.svc.cluster.local", "c", 12, true},
		{"c-3.c.ns.svc.example.org.", "c", 3, true},
		{"c-3.c.ns.svc.cluster.local:33145", "c", 3, true},
		{"c-3.c", "c", 3, true},
		{"c-3", "c", 3, true},
		{"my-cluster-2-4.my-cluster-2.ns.svc.cluster.local", "my-cluster-2", 4, true},
		{"my-cluster-2-4.my-cluster-2.ns.svc.cluster.local", "my-cluster", 0, false}, // another cluster's pod
		{"c-03.c.ns.svc.cluster.local", "c", 0, false},                               // StatefulSets write no leading zeros
		{"c--1.c.ns.svc.cluster.local", "c", 0, false},
		{"c-1.other.ns.svc.cluster.local", "c", 0, false},
		{"c-x.c.ns.svc.cluster.local", "c", 0, false},
		{"c-.c.ns.svc.cluster.local", "c", 0, false},
		{"d-1.c.ns.svc.cluster.local", "c", 0, false},
		{"10.0.0.7", "c", 0, false},
		{"", "c", 0, false},
		{"c-1.c.ns.svc.cluster.local", "", 0, false},
		{"c-99999999999999999999.c", "c", 0, false},
	}
	for _, tc := range cases {
		got, ok := OrdinalFromAddress(tc.addr, tc.cluster)
		if got != tc.ordinal || ok != tc.ok {
			t.Errorf("OrdinalFromAddress(%q, %q) = %d, %v; want %d, %v", tc.addr, tc.cluster, got, ok, tc.ordinal, tc.ok)
		}
	}
}

func TestStableHostNameRoundTrips(t *testing.T) {
	for _, name := range []string{"c", "redpanda", "a-1-b"} {
		for ordinal := range 12 {
			host := StableHostName(name, "team-a", ordinal, DefaultClusterDomain)
			if got, ok := OrdinalFromAddress(host, name); !ok || got != ordinal {
				t.Errorf("OrdinalFromAddress(%q) = %d, %v; want %d", host, got, ok, ordinal)
			}
		}
	}
	if got := StableHostName("c", "ns", 2, DefaultClusterDomain); got != "c-2.c.ns.svc.cluster.local" {
		t.Errorf("StableHostName = %q", got)
	}
}

func TestAddressTemplate(t *testing.T) {
	tmpl, err := ParseAddressTemplate(DefaultAddressTemplate, DefaultClusterDomain)
	if err != nil {
		t.Fatal(err)
	}
	urls, err := tmpl.URLs("ns", "c", 3, DefaultAdminPort)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"http://c-0.c.ns.svc.cluster.local:9644",
		"http://c-1.c.ns.svc.cluster.local:9644",
		"http://c-2.c.ns.svc.cluster.local:9644",
	}
	if strings.Join(urls, " ") != strings.Join(want, " ") {
		t.Errorf("URLs = %v, want %v", urls, want)
	}

	slash, err := ParseAddressTemplate("https://{{.Name}}-{{.Ordinal}}.example:{{.Port}}/", DefaultClusterDomain)
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := slash.URL("ns", "c", 4, 9644); u != "https://c-4.example:9644" {
		t.Errorf("URL = %q, want the trailing slash dropped", u)
	}
}

func TestParseAddressTemplateRejectsBadTemplates(t *testing.T) {
	cases := map[string]string{
		"":                           "empty",
		"http://{{.Name":             "address template",
		"http://{{.Nope}}":           "address template",
		"{{.Name}}-{{.Ordinal}}:80":  "not an http(s) URL",
		"ftp://{{.Name}}":            "not an http(s) URL",
		"http://{{.Name}}:{{.Port}}": "",
		// A broker answers at the root of its host:port only (rpadmin takes nothing else).
		"http://127.0.0.1:8080/{{.Namespace}}/{{.Name}}/{{.Ordinal}}": "no path",
		"http://{{.Name}}:{{.Port}}/?x=1":                             "no path",
		"http://{{.Name}}:{{.Port}}#top":                              "no path",
		"http://admin:pw@{{.Name}}:{{.Port}}":                         "no path",
	}
	for text, want := range cases {
		_, err := ParseAddressTemplate(text, DefaultClusterDomain)
		if want == "" {
			if err != nil {
				t.Errorf("ParseAddressTemplate(%q): %v", text, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAddressTemplate(%q) = %v, want an error mentioning %q", text, err, want)
		}
	}
}

func TestAddressTemplateAddsPortAndOrdinal(t *testing.T) {
	tmpl, err := ParseAddressTemplate("https://127.0.0.1:{{add .Port .Ordinal}}", DefaultClusterDomain)
	if err != nil {
		t.Fatal(err)
	}
	urls, err := tmpl.URLs("ns", "c", 3, 21000)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"https://127.0.0.1:21000", "https://127.0.0.1:21001", "https://127.0.0.1:21002"}; strings.Join(urls, " ") != strings.Join(want, " ") {
		t.Errorf("URLs = %v, want %v", urls, want)
	}
}
