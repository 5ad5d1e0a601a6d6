package objects

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// expandFor does what the kubelet does to a container's environment in the pod with this name:
// it resolves the fieldRef and secretKeyRef variables and expands $(NAME) references to earlier
// variables (k8s.io/kubernetes/third_party/forked/golang/expansion).
func expandFor(t *testing.T, c corev1.Container, pod string, secrets map[string]map[string]string) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.name":
			env[e.Name] = pod
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
			ref := e.ValueFrom.SecretKeyRef
			v, ok := secrets[ref.Name][ref.Key]
			if !ok {
				t.Fatalf("container %s: env %s refers to secret %s key %s, which the test does not have", c.Name, e.Name, ref.Name, ref.Key)
			}
			env[e.Name] = v
		case e.ValueFrom != nil:
			t.Fatalf("container %s: env %s has a source the test does not model: %+v", c.Name, e.Name, e.ValueFrom)
		default:
			v := e.Value
			for name, val := range env {
				v = strings.ReplaceAll(v, "$("+name+")", val)
			}
			if strings.Contains(v, "$(") {
				t.Fatalf("container %s: env %s refers to a variable not defined before it: %q", c.Name, e.Name, v)
			}
			env[e.Name] = v
		}
	}
	return env
}

// nodeConfigOf is the redpanda.yaml the init container writes in pod.
func nodeConfigOf(t *testing.T, sts *appsv1.StatefulSet, pod string, secrets map[string]map[string]string) (nodeConfigFileContent, map[string]string) {
	t.Helper()
	spec := sts.Spec.Template.Spec
	if len(spec.InitContainers) != 1 {
		t.Fatalf("init containers %d, want the one that writes the config", len(spec.InitContainers))
	}
	init := spec.InitContainers[0]
	env := expandFor(t, init, pod, secrets)
	script := strings.Join(init.Command, " ")
	if !strings.Contains(script, `"$`+nodeConfigVar+`" > `+nodeConfigFile) {
		t.Fatalf("init container does not write %s from $%s: %q", nodeConfigFile, nodeConfigVar, script)
	}
	var cfg nodeConfigFileContent
	if err := yaml.UnmarshalStrict([]byte(env[nodeConfigVar]), &cfg); err != nil {
		t.Fatalf("node config of %s: %v\n%s", pod, err, env[nodeConfigVar])
	}
	return cfg, env
}

func TestStatefulSetRunsRedpandaThatFormsACluster(t *testing.T) {
	bc := newBrokerCluster(3)
	bc.Spec.Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2500m"), corev1.ResourceMemory: resource.MustParse("4Gi")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4Gi")},
	}
	sts := NewStatefulSet(bc, 3, 3, testDomain)
	spec := sts.Spec.Template.Spec

	for ordinal := range 3 {
		pod := fmt.Sprintf("%s-%d", testName, ordinal)
		host := fmt.Sprintf("%s.%s.%s.svc.cluster.local", pod, testName, testNamespace)
		cfg, _ := nodeConfigOf(t, sts, pod, nil)
		rp := cfg.Redpanda
		if rp.EmptySeedStartsCluster {
			t.Errorf("%s: empty_seed_starts_cluster is true; each pod would found a cluster of its own", pod)
		}
		var seeds []string
		for _, s := range rp.SeedServers {
			seeds = append(seeds, fmt.Sprintf("%s:%d", s.Host.Address, s.Host.Port))
		}
		want := []string{}
		for i := range 3 {
			want = append(want, fmt.Sprintf("%s-%d.%s.%s.svc.cluster.local:33145", testName, i, testName, testNamespace))
		}
		if !slices.Equal(seeds, want) {
			t.Errorf("%s: seeds %v, want every pod's stable name %v", pod, seeds, want)
		}
		// Redpanda decides whether it is a founder by finding its advertised RPC address among
		// the seeds (cluster/cluster_discovery.cc).
		if adv := fmt.Sprintf("%s:%d", rp.AdvertisedRPCAPI.Address, rp.AdvertisedRPCAPI.Port); adv != want[ordinal] {
			t.Errorf("%s: advertised RPC address %s, want %s (its seed entry)", pod, adv, want[ordinal])
		}
		if len(rp.AdvertisedKafkaAPI) != 1 || rp.AdvertisedKafkaAPI[0].Address != host {
			t.Errorf("%s: advertised Kafka %+v, want %s", pod, rp.AdvertisedKafkaAPI, host)
		}
		if len(cfg.RPK.AdminAPI.Addresses) != 1 || cfg.RPK.AdminAPI.Addresses[0] != host+":9644" {
			t.Errorf("%s: rpk admin addresses %v, want %s:9644", pod, cfg.RPK.AdminAPI.Addresses, host)
		}
		if rp.RPCServer.Address != "0.0.0.0" || len(rp.KafkaAPI) != 1 || rp.KafkaAPI[0].Address != "0.0.0.0" ||
			len(rp.Admin) != 1 || rp.Admin[0].Address != "0.0.0.0" || rp.Admin[0].Port != 9644 {
			t.Errorf("%s: listeners %+v %+v %+v, want all on 0.0.0.0, admin on 9644", pod, rp.RPCServer, rp.KafkaAPI, rp.Admin)
		}
		if rp.KafkaAPI[0].Name != rp.AdvertisedKafkaAPI[0].Name {
			t.Errorf("%s: Kafka listener %q advertised as %q", pod, rp.KafkaAPI[0].Name, rp.AdvertisedKafkaAPI[0].Name)
		}
		if rp.DataDirectory != "/var/lib/redpanda/data" {
			t.Errorf("%s: data_directory %s", pod, rp.DataDirectory)
		}
	}

	broker := spec.Containers[0]
	if got := strings.Join(broker.Command, " "); got != "rpk redpanda start" {
		t.Errorf("command %q, want rpk redpanda start", got)
	}
	for _, flag := range []string{"--smp=2", "--memory=3686M", "--reserve-memory=0M"} {
		if !slices.Contains(broker.Args, flag) {
			t.Errorf("args %v lack %s", broker.Args, flag)
		}
	}
	if slices.Contains(broker.Args, "--overprovisioned") {
		t.Errorf("args %v: overprovisioned with 2.5 cores", broker.Args)
	}
	mounts := map[string]string{}
	for _, m := range broker.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	if mounts[dataVolume] != "/var/lib/redpanda/data" || mounts[configVolume] != "/etc/redpanda" {
		t.Errorf("mounts %v: want the data volume at /var/lib/redpanda/data and the config at /etc/redpanda", mounts)
	}
	if sts.Spec.VolumeClaimTemplates[0].Name != dataVolume {
		t.Errorf("claim template %s, want %s", sts.Spec.VolumeClaimTemplates[0].Name, dataVolume)
	}

	for name, p := range map[string]*corev1.Probe{"startup": broker.StartupProbe, "readiness": broker.ReadinessProbe} {
		if p == nil || p.Exec == nil {
			t.Fatalf("%s probe %+v, want an exec probe of /v1/status/ready", name, p)
		}
		cmd := strings.Join(p.Exec.Command, " ")
		if !strings.Contains(cmd, "http://localhost:9644/v1/status/ready") || !strings.Contains(cmd, `grep -q '"ready"'`) {
			t.Errorf("%s probe %q: want /v1/status/ready with its body checked for ready", name, cmd)
		}
	}
	if p := broker.LivenessProbe; p == nil || p.TCPSocket == nil || p.TCPSocket.Port.IntValue() != 9644 {
		t.Errorf("liveness probe %+v, want a TCP check of the admin port", p)
	}
	if broker.StartupProbe.FailureThreshold*broker.StartupProbe.PeriodSeconds < 600 {
		t.Errorf("startup probe gives %ds; a broker replaying its log needs minutes", broker.StartupProbe.FailureThreshold*broker.StartupProbe.PeriodSeconds)
	}

	psc := spec.SecurityContext
	if psc == nil || *psc.RunAsUser != 101 || *psc.RunAsGroup != 101 || *psc.FSGroup != 101 || !*psc.RunAsNonRoot {
		t.Errorf("pod security context %+v, want user, group and fsGroup 101, non-root", psc)
	}
	for _, c := range append(spec.InitContainers, spec.Containers...) {
		sc := c.SecurityContext
		if sc == nil || *sc.RunAsUser != 101 || *sc.RunAsGroup != 101 || *sc.AllowPrivilegeEscalation {
			t.Errorf("container %s security context %+v", c.Name, sc)
		}
		if c.Image != bc.Spec.Image {
			t.Errorf("container %s image %s, want %s", c.Name, c.Image, bc.Spec.Image)
		}
	}
}

func TestSeastarFlagsFollowTheResources(t *testing.T) {
	q := resource.MustParse
	for _, tc := range []struct {
		name string
		res  corev1.ResourceRequirements
		want []string
	}{
		{"none: Redpanda takes the machine", corev1.ResourceRequirements{}, nil},
		{"half a core is overprovisioned", corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: q("500m")}},
			[]string{"--smp=1", "--overprovisioned"}},
		{"limits when no request", corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: q("3"), corev1.ResourceMemory: q("2Gi")}},
			[]string{"--smp=3", "--memory=1843M", "--reserve-memory=0M"}},
		{"requests before limits; cores round down", corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: q("1900m"), corev1.ResourceMemory: q("1Gi")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: q("4"), corev1.ResourceMemory: q("8Gi")}},
			[]string{"--smp=1", "--memory=921M", "--reserve-memory=0M"}},
	} {
		if got := seastarFlags(tc.res); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestScalingDoesNotChangeThePodTemplate(t *testing.T) {
	bc := newBrokerCluster(3)
	created := NewStatefulSet(bc, 3, FoundingSeeds(nil, 3), testDomain)
	for _, replicas := range []int32{1, 2, 5, 9} {
		later := NewStatefulSet(bc, replicas, FoundingSeeds(created, replicas), testDomain)
		if SpecChanged(created, later) {
			t.Errorf("at %d replicas the pod template changed: every broker would restart", replicas)
		}
	}
}

func TestSecuredAdminAPIPodSpec(t *testing.T) {
	bc := newBrokerCluster(3)
	bc.Spec.AdminAPI.TLS = &v1alpha1.AdminAPITLS{SecretName: "admin-ca", ServerSecretName: "admin-cert"}
	bc.Spec.AdminAPI.Auth = &v1alpha1.AdminAPIAuth{SecretName: "admin-user"}
	const password = "s3cret-Passw0rd"
	secrets := map[string]map[string]string{"admin-user": {"username": "operator", "password": password}}
	sts := NewStatefulSet(bc, 3, 3, testDomain)
	spec := sts.Spec.Template.Spec

	cfg, initEnv := nodeConfigOf(t, sts, testName+"-1", secrets)
	tls := cfg.Redpanda.AdminAPITLS
	if len(tls) != 1 || !tls[0].Enabled || tls[0].Name != cfg.Redpanda.Admin[0].Name ||
		tls[0].CertFile != adminTLSDir+"/tls.crt" || tls[0].KeyFile != adminTLSDir+"/tls.key" {
		t.Errorf("admin_api_tls %+v, want the admin listener served with %s", tls, adminTLSDir)
	}
	var boot map[string]any
	if err := yaml.UnmarshalStrict([]byte(initEnv[bootstrapVar]), &boot); err != nil {
		t.Fatal(err)
	}
	if boot["admin_api_require_auth"] != true || !slices.Equal(boot["superusers"].([]any), []any{"operator"}) {
		t.Errorf("bootstrap %v, want admin_api_require_auth and the user as superuser", boot)
	}
	if script := strings.Join(spec.InitContainers[0].Command, " "); !strings.Contains(script, `"$`+bootstrapVar+`" > /etc/redpanda/.bootstrap.yaml`) {
		t.Errorf("init script %q does not write the bootstrap file", script)
	}

	broker := spec.Containers[0]
	env := expandFor(t, broker, testName+"-1", secrets)
	if env[bootstrapUser] != "operator:"+password {
		t.Errorf("%s = %q, want username:password from the Secret", bootstrapUser, env[bootstrapUser])
	}
	if cmd := strings.Join(broker.ReadinessProbe.Exec.Command, " "); !strings.Contains(cmd, "https://localhost:9644/v1/status/ready") {
		t.Errorf("readiness probe %q, want https", cmd)
	}
	if !slices.ContainsFunc(spec.Volumes, func(v corev1.Volume) bool {
		return v.Secret != nil && v.Secret.SecretName == "admin-cert"
	}) {
		t.Errorf("volumes %+v lack the server certificate Secret", spec.Volumes)
	}
	// The password reaches the pod only through a secretKeyRef, never written into the object.
	data, err := yaml.Marshal(sts)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), password) {
		t.Error("the StatefulSet carries the password")
	}
}
