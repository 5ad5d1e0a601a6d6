package objects

import (
	"fmt"
	"maps"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
)

// The broker pod: Redpanda started by rpk with the node config of nodeconfig.go. Each choice is
// explained, with the upstream source it follows, in docs/broker-pod.md.

const (
	// redpandaUID and redpandaGID are the redpanda user and group of Redpanda's images.
	redpandaUID = 101
	redpandaGID = 101

	configVolume   = "config"
	adminTLSVolume = "admin-tls"
	configInit     = "config"

	// memoryShare is the part of the container's memory given to Redpanda (--memory); the rest
	// is headroom for page tables, exec'd probes and rpk. Redpanda operator v1 gives the same
	// (redpanda-operator operator/api/vectorized/v1alpha1/cluster_types.go,
	// RedpandaMemoryAllocationRatio, "reserves 10% for the OS").
	memoryShare = 0.9
)

// brokerPodTemplate is the pod template of the StatefulSet named set of a cluster whose first
// seeds pods founded it; with seeds 0, of one whose seeds come from the seeds ConfigMap
// (seeds.go). Its pods are named in the cluster DNS domain.
func brokerPodTemplate(bc *v1alpha1.BrokerCluster, set string, seeds int32, domain string) corev1.PodTemplateSpec {
	mounts := []corev1.VolumeMount{
		{Name: dataVolume, MountPath: dataPath},
		{Name: configVolume, MountPath: configDir},
	}
	volumes := []corev1.Volume{{Name: configVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	if serverTLS(bc) {
		mounts = append(mounts, corev1.VolumeMount{Name: adminTLSVolume, MountPath: adminTLSDir, ReadOnly: true})
		volumes = append(volumes, corev1.Volume{Name: adminTLSVolume, VolumeSource: corev1.VolumeSource{
			Secret: &corev1.SecretVolumeSource{SecretName: bc.Spec.AdminAPI.TLS.ServerSecretName, DefaultMode: ptr.To[int32](0o440)},
		}})
	}
	for _, t := range listenerTLSSecrets(bc) {
		mounts = append(mounts, corev1.VolumeMount{Name: t.volume, MountPath: t.dir, ReadOnly: true})
		volumes = append(volumes, corev1.Volume{Name: t.volume, VolumeSource: corev1.VolumeSource{
			Secret: &corev1.SecretVolumeSource{SecretName: t.secret, DefaultMode: ptr.To[int32](0o440)},
		}})
	}
	if v := factsPodVolume(bc); v != nil {
		volumes = append(volumes, *v)
	}
	if seeds == 0 {
		volumes = append(volumes, seedsPodVolume(bc))
	}
	return corev1.PodTemplateSpec{
		Spec: corev1.PodSpec{
			NodeSelector:              maps.Clone(bc.Spec.NodeSelector),
			Tolerations:               bc.Spec.Tolerations,
			Affinity:                  brokerAffinity(bc),
			TopologySpreadConstraints: brokerSpread(bc),
			PriorityClassName:         bc.Spec.PriorityClassName,
			// Unset keeps the pod template as it was before the field existed: upgrading the
			// operator restarts no broker.
			TerminationGracePeriodSeconds: bc.Spec.TerminationGracePeriodSeconds,
			ServiceAccountName:            BrokerServiceAccountName(bc),
			ImagePullSecrets:              bc.Spec.ImagePullSecrets,
			SecurityContext: &corev1.PodSecurityContext{
				RunAsUser:    ptr.To[int64](redpandaUID),
				RunAsGroup:   ptr.To[int64](redpandaGID),
				FSGroup:      ptr.To[int64](redpandaGID),
				RunAsNonRoot: ptr.To(true),
			},
			InitContainers: []corev1.Container{configContainer(bc, set, seeds, domain)},
			Containers:     []corev1.Container{redpandaContainer(bc, mounts)},
			Volumes:        volumes,
		},
	}
}

// configContainer writes the node config (and the bootstrap file) into the config volume. The
// files travel as environment variables so that the kubelet expands $(POD_NAME) in them.
func configContainer(bc *v1alpha1.BrokerCluster, set string, seeds int32, domain string) corev1.Container {
	env := []corev1.EnvVar{{Name: podNameVar, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
	script := fmt.Sprintf(`printf '%%s' "$%s" > %s`, nodeConfigVar, nodeConfigFile)
	mounts := []corev1.VolumeMount{{Name: configVolume, MountPath: configDir}}
	if auth := bc.Spec.AdminAPI.Auth; auth != nil {
		env = append(env, secretEnv(adminUserVar, auth.SecretName, admin.SecretKeyUsername))
	}
	env = append(env, corev1.EnvVar{Name: nodeConfigVar, Value: nodeConfigYAML(bc, set, seeds, domain)})
	if boot := bootstrapConfigYAML(bc); boot != "" {
		env = append(env, corev1.EnvVar{Name: bootstrapVar, Value: boot})
		script += fmt.Sprintf(` && printf '%%s' "$%s" > %s`, bootstrapVar, bootstrapFile)
	}
	if seeds == 0 {
		script += seedsScript()
		mounts = append(mounts, corev1.VolumeMount{Name: seedsVolume, MountPath: seedsDir, ReadOnly: true})
	}
	if facts := factsScript(bc); facts != "" {
		script += facts
		env = append(env, corev1.EnvVar{Name: factsSourceVar, Value: factsSource(bc)})
		mounts = append(mounts, corev1.VolumeMount{Name: factsVolume, MountPath: factsDir, ReadOnly: true})
	}
	return corev1.Container{
		Name:            configInit,
		Image:           bc.Spec.Image,
		Command:         []string{"/bin/sh", "-c", "set -e; " + script},
		Env:             env,
		VolumeMounts:    mounts,
		SecurityContext: containerSecurity(),
	}
}

// redpandaContainer runs `rpk redpanda start` with the seastar flags the resources give.
func redpandaContainer(bc *v1alpha1.BrokerCluster, mounts []corev1.VolumeMount) corev1.Container {
	var env []corev1.EnvVar
	if auth := bc.Spec.AdminAPI.Auth; auth != nil {
		// Redpanda creates this SCRAM user when it founds the cluster
		// (cluster/security_frontend.cc, get_bootstrap_user_creds_from_env).
		env = append(env,
			secretEnv(adminUserVar, auth.SecretName, admin.SecretKeyUsername),
			secretEnv(adminPassVar, auth.SecretName, admin.SecretKeyPassword),
			corev1.EnvVar{Name: bootstrapUser, Value: brokerconfig.BootstrapUser(bc, adminUserVar, adminPassVar)},
		)
	}
	port := AdminPort(bc)
	ports := []corev1.ContainerPort{
		{Name: "admin", ContainerPort: port, Protocol: corev1.ProtocolTCP},
		{Name: "kafka", ContainerPort: kafkaPort, Protocol: corev1.ProtocolTCP},
		{Name: "rpc", ContainerPort: internalRPCPort, Protocol: corev1.ProtocolTCP},
	}
	if l := ExternalListener(bc); l != nil {
		// No hostPort: the broker's own Service carries the traffic (services.go).
		ports = append(ports, corev1.ContainerPort{Name: "kafka-external", ContainerPort: brokerconfig.ListenerPort(l), Protocol: corev1.ProtocolTCP})
	}
	ports = append(ports, httpContainerPorts(bc)...)
	return corev1.Container{
		Name:      brokerContainer,
		Image:     bc.Spec.Image,
		Command:   []string{"rpk", "redpanda", "start"},
		Args:      append([]string{"--check=false"}, seastarFlags(bc.Spec.Resources)...),
		Env:       env,
		Resources: bc.Spec.Resources,
		Ports:     ports,
		// /v1/status/ready answers 200 while booting too, with {"status":"booting"}
		// (redpanda/admin/server.cc, register_status_routes), so the body is checked. The route is
		// public: no credentials are needed even with admin_api_require_auth.
		StartupProbe: &corev1.Probe{
			ProbeHandler:     corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: readyCommand(bc)}},
			PeriodSeconds:    10,
			TimeoutSeconds:   10,
			FailureThreshold: 120,
		},
		ReadinessProbe: &corev1.Probe{
			ProbeHandler:     corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: readyCommand(bc)}},
			PeriodSeconds:    10,
			TimeoutSeconds:   10,
			FailureThreshold: 3,
		},
		LivenessProbe: &corev1.Probe{
			ProbeHandler:     corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(port)}},
			PeriodSeconds:    10,
			TimeoutSeconds:   5,
			FailureThreshold: 3,
		},
		VolumeMounts:    mounts,
		SecurityContext: containerSecurity(),
	}
}

// readyCommand asks the broker's own admin API whether it has finished booting.
func readyCommand(bc *v1alpha1.BrokerCluster) []string {
	scheme, insecure := "http", ""
	if serverTLS(bc) {
		// The certificate names the pod's DNS name, not localhost; the probe checks liveness of
		// the local process, not the certificate.
		scheme, insecure = "https", "-k "
	}
	return []string{"/bin/sh", "-c", fmt.Sprintf(
		`curl --silent --fail %s-m 5 "%s://localhost:%d/v1/status/ready" | grep -q '"ready"'`, insecure, scheme, AdminPort(bc))}
}

// listenerTLSSecret is the certificate Secret of one listener, the volume that mounts it and
// where.
type listenerTLSSecret struct{ volume, secret, dir string }

// listenerTLSSecrets are the listeners' certificate Secrets, mounted where the node config's
// *_api_tls entries look for them (TLSListener.MountDir): the Secret the spec names, or the one
// cert-manager writes for the operator's Certificate (certificate.go). Only the name is in the
// template, never the content: a renewed certificate changes no pod template, and Redpanda
// reloads it by itself (docs/broker-pod.md, "Certificates from cert-manager"). The Kafka
// listeners' volumes keep their names, kafka-tls-<listener>, so their pod template is as before.
func listenerTLSSecrets(bc *v1alpha1.BrokerCluster) []listenerTLSSecret {
	var out []listenerTLSSecret
	for _, l := range brokerconfig.TLSListeners(bc) {
		out = append(out, listenerTLSSecret{l.APIName() + "-tls-" + l.Listener, l.SecretName(bc.Name), l.MountDir()})
	}
	return out
}

func containerSecurity() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		RunAsUser:                ptr.To[int64](redpandaUID),
		RunAsGroup:               ptr.To[int64](redpandaGID),
		RunAsNonRoot:             ptr.To(true),
		AllowPrivilegeEscalation: ptr.To(false),
	}
}

func secretEnv(name, secret, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key,
	}}}
}

// seastarFlags derives --smp, --memory, --reserve-memory and --overprovisioned from the
// container's resources: requests first, limits when a request is absent, as the scheduler
// reads them. Without a CPU or memory value, Redpanda's own default (the whole machine) stays.
// This is Redpanda's chart's explicit mode (charts/redpanda/values.go, RedpandaResources); its
// operator v1 rounds cores up instead (cluster_types.go, RedpandaCPU), which would exceed the
// CPU quota (docs/broker-pod.md, "Seastar flags from the container's resources").
func seastarFlags(res corev1.ResourceRequirements) []string {
	var flags []string
	if cpu, ok := requestOrLimit(res, corev1.ResourceCPU); ok {
		// Seastar runs one shard per core; rounding down keeps it within the CPU quota.
		flags = append(flags, "--smp="+strconv.FormatInt(max(1, cpu.MilliValue()/1000), 10))
		if cpu.MilliValue() < 1000 {
			flags = append(flags, "--overprovisioned") // less than a core: do not pin the shard
		}
	}
	if mem, ok := requestOrLimit(res, corev1.ResourceMemory); ok {
		mib := int64(float64(mem.Value())*memoryShare) / (1 << 20)
		flags = append(flags, fmt.Sprintf("--memory=%dM", mib), "--reserve-memory=0M")
	}
	return flags
}

func requestOrLimit(res corev1.ResourceRequirements, name corev1.ResourceName) (resource.Quantity, bool) {
	if v, ok := res.Requests[name]; ok {
		return v, true
	}
	v, ok := res.Limits[name]
	return v, ok
}
