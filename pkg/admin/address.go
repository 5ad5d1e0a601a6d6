package admin

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"text/template"
)

// DefaultClusterDomain is Kubernetes' default DNS domain of a cluster (the kubelet's
// --cluster-domain), the suffix of every Service's name: <service>.<namespace>.svc.<domain>.
const DefaultClusterDomain = "cluster.local"

// ValidateClusterDomain checks a cluster domain: a DNS subdomain, written without the trailing
// dot, as the kubelet's --cluster-domain takes it.
func ValidateClusterDomain(domain string) error {
	if len(domain) > 253 || !dnsSubdomain.MatchString(domain) {
		return fmt.Errorf("cluster domain %q is not a DNS name: want lower-case labels of letters, digits and '-' joined by '.', with no trailing dot", domain)
	}
	return nil
}

// dnsSubdomain is RFC 1123's subdomain, as Kubernetes checks names (pkg/admin stays free of
// Kubernetes modules, deps_test.go).
var dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// ServiceHostName is the DNS name of a Service: <service>.<namespace>.svc.<domain>.
func ServiceHostName(service, namespace, domain string) string {
	return fmt.Sprintf("%s.%s.svc.%s", service, namespace, domain)
}

// StableHostName is the DNS name a StatefulSet named set gives the pod with this ordinal
// through the headless Service of the same name: <set>-<ordinal>.<set>.<namespace>.svc.<domain>.
func StableHostName(set, namespace string, ordinal int, domain string) string {
	return fmt.Sprintf("%s-%d.%s", set, ordinal, ServiceHostName(set, namespace, domain))
}

// OrdinalFromAddress returns the pod ordinal named by a broker's internal RPC address when that
// address is the stable host name of a pod of clusterName: "<name>-<ordinal>" followed by the end,
// a port, or ".<name>" and then the end, a port or a further domain. Any cluster domain is
// accepted. IP addresses and other names give false.
func OrdinalFromAddress(addr, clusterName string) (int, bool) {
	if clusterName == "" {
		return 0, false
	}
	host := strings.TrimSuffix(addr, ".")
	if h, _, ok := strings.Cut(host, ":"); ok {
		host = h
	}
	rest, ok := strings.CutPrefix(host, clusterName+"-")
	if !ok {
		return 0, false
	}
	digits, domain, hasDomain := strings.Cut(rest, ".")
	ordinal, ok := parseOrdinal(digits)
	if !ok {
		return 0, false
	}
	if hasDomain {
		svc, _, _ := strings.Cut(domain, ".")
		if svc != clusterName {
			return 0, false
		}
	}
	return ordinal, true
}

// parseOrdinal accepts a decimal ordinal as a StatefulSet writes it: no sign, no leading zeros.
func parseOrdinal(s string) (int, bool) {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// DefaultAddressTemplate points at each broker's admin API through its stable host name.
const DefaultAddressTemplate = "http://{{.Name}}-{{.Ordinal}}.{{.Name}}.{{.Namespace}}.svc.{{.ClusterDomain}}:{{.Port}}"

// DefaultAdminPort is Redpanda's default admin API port.
const DefaultAdminPort = 9644

// AddressFields are what an address template can use.
type AddressFields struct {
	Namespace string
	Name      string
	Ordinal   int
	Port      int
	// ClusterDomain is the Kubernetes cluster's DNS domain (cluster.local by default).
	ClusterDomain string
}

// addressFuncs are the functions an address template may call besides text/template's own:
// add sums integers, so that brokers listening on consecutive ports can be addressed as
// {{add .Port .Ordinal}}.
var addressFuncs = template.FuncMap{
	"add": func(a int, more ...int) int {
		for _, b := range more {
			a += b
		}
		return a
	},
}

// AddressTemplate renders the admin API base URL of one broker.
type AddressTemplate struct {
	tmpl   *template.Template
	domain string
}

// ParseAddressTemplate parses a text/template over AddressFields, whose ClusterDomain is
// domain, and checks that it renders a usable base URL: http(s)://host[:port], nothing more.
func ParseAddressTemplate(text, domain string) (*AddressTemplate, error) {
	if err := ValidateClusterDomain(domain); err != nil {
		return nil, fmt.Errorf("admin: address template: %w", err)
	}
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("admin: empty address template")
	}
	tmpl, err := template.New("admin-address").Option("missingkey=error").Funcs(addressFuncs).Parse(text)
	if err != nil {
		return nil, fmt.Errorf("admin: address template: %w", err)
	}
	t := &AddressTemplate{tmpl: tmpl, domain: domain}
	if _, err := t.URL("ns", "name", 0, DefaultAdminPort); err != nil {
		return nil, err
	}
	return t, nil
}

// URL renders the base URL for one broker.
func (t *AddressTemplate) URL(namespace, name string, ordinal, port int) (string, error) {
	var buf bytes.Buffer
	fields := AddressFields{Namespace: namespace, Name: name, Ordinal: ordinal, Port: port, ClusterDomain: t.domain}
	if err := t.tmpl.Execute(&buf, fields); err != nil {
		return "", fmt.Errorf("admin: address template: %w", err)
	}
	s := strings.TrimSpace(buf.String())
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("admin: address template rendered %q: %w", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("admin: address template rendered %q, not an http(s) URL with a host", s)
	}
	// A broker serves its admin API at the root of its host:port, and Redpanda's own client
	// takes a broker address only as [scheme://]host[:port] with at most the path "/"
	// (common-go rpadmin/admin.go initURLs, net/hostport.go ParseHostMaybeScheme). Credentials
	// belong in spec.adminAPI.auth, never in a URL that may be logged.
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("admin: address template rendered %q; want scheme://host:port with no path, query, fragment or user", s)
	}
	return strings.TrimSuffix(s, "/"), nil
}

// URLs renders the base URLs of brokers 0 to replicas-1, in ordinal order.
func (t *AddressTemplate) URLs(namespace, name string, replicas, port int) ([]string, error) {
	urls := make([]string, 0, max(replicas, 0))
	for ordinal := range replicas {
		u, err := t.URL(namespace, name, ordinal, port)
		if err != nil {
			return nil, err
		}
		urls = append(urls, u)
	}
	return urls, nil
}
