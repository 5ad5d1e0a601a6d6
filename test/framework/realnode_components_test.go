package framework

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// Pods must reach nothing outside the namespace: the CNI routes cover only the Pod range, the
// Service range and the node address, never a default route.
func TestCNIConfigRoutesStayInside(t *testing.T) {
	data, err := cniConfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var conf struct {
		Plugins []struct {
			IPMasq bool `json:"ipMasq"`
			IPAM   struct {
				Routes []struct{ Dst string } `json:"routes"`
			} `json:"ipam"`
		} `json:"plugins"`
	}
	if err := json.Unmarshal(data, &conf); err != nil {
		t.Fatal(err)
	}
	var routes []string
	for _, p := range conf.Plugins {
		if p.IPMasq {
			t.Error("the bridge masquerades Pod traffic")
		}
		for _, r := range p.IPAM.Routes {
			routes = append(routes, r.Dst)
		}
	}
	if want := []string{realPodCIDR, serviceCIDR, RealNodeIP + "/32"}; !slices.Equal(routes, want) {
		t.Errorf("Pod routes %v, want exactly %v", routes, want)
	}
}

// The real node's apiserver must advertise the node address and keep the endpoint reconciler and
// ServiceAccount admission that the loopback control plane turns off.
func TestRealNodeAPIServerArgs(t *testing.T) {
	base := apiserverArgs("/d", &pki{}, 1, 2, "/d/tokens", auditFiles{})
	args := realNodeAPIServerArgs(base, &pki{caFile: "/d/ca.crt"}, &realNodePKI{})
	for _, a := range args {
		for _, banned := range []string{"--endpoint-reconciler-type=", "--disable-admission-plugins=", "--advertise-address=127.0.0.1", "--bind-address=127.0.0.1", "--authorization-mode=RBAC"} {
			if strings.HasPrefix(a, banned) {
				t.Errorf("argument %s is still there", a)
			}
		}
	}
	for _, want := range []string{"--advertise-address=" + RealNodeIP, "--authorization-mode=Node,RBAC", "--kubelet-preferred-address-types=InternalIP", "--service-cluster-ip-range=" + serviceCIDR} {
		if !slices.Contains(args, want) {
			t.Errorf("argument %s missing from %v", want, args)
		}
	}
}

func TestUnescapeMountPath(t *testing.T) {
	for in, want := range map[string]string{
		`/tmp/a`:               "/tmp/a",
		`/tmp/with\040space`:   "/tmp/with space",
		`/tmp/tab\011and\134x`: "/tmp/tab\tand\\x",
		`/tmp/trailing\04`:     `/tmp/trailing\04`,
	} {
		if got := unescapeMountPath(in); got != want {
			t.Errorf("unescapeMountPath(%q) = %q, want %q", in, got, want)
		}
	}
}
