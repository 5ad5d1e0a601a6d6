package admin

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"text/template"
)

// ClusterDomain is the DNS suffix StableHostName uses.
const ClusterDomain = "cluster.local"

// StableHostName is the DNS name a StatefulSet gives the pod with this ordinal when the
// StatefulSet and its headless Service are both named after the broker cluster:
// <name>-<ordinal>.<name>.<namespace>.svc.cluster.local.
func StableHostName(name, namespace string, ordinal int) string {
	return fmt.Sprintf("%s-%d.%s.%s.svc.%s", name, ordinal, name, namespace, ClusterDomain)
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
const DefaultAddressTemplate = "http://{{.Name}}-{{.Ordinal}}.{{.Name}}.{{.Namespace}}.svc.cluster.local:{{.Port}}"

// DefaultAdminPort is Redpanda's default admin API port.
const DefaultAdminPort = 9644

// AddressFields are what an address template can use.
type AddressFields struct {
	Namespace string
	Name      string
	Ordinal   int
	Port      int
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
	tmpl *template.Template
}

// ParseAddressTemplate parses a text/template over AddressFields and checks that it renders a
// usable base URL: http(s)://host[:port], nothing more.
func ParseAddressTemplate(text string) (*AddressTemplate, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("admin: empty address template")
	}
	tmpl, err := template.New("admin-address").Option("missingkey=error").Funcs(addressFuncs).Parse(text)
	if err != nil {
		return nil, fmt.Errorf("admin: address template: %w", err)
	}
	t := &AddressTemplate{tmpl: tmpl}
	if _, err := t.URL("ns", "name", 0, DefaultAdminPort); err != nil {
		return nil, err
	}
	return t, nil
}

// URL renders the base URL for one broker.
func (t *AddressTemplate) URL(namespace, name string, ordinal, port int) (string, error) {
	var buf bytes.Buffer
	fields := AddressFields{Namespace: namespace, Name: name, Ordinal: ordinal, Port: port}
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
