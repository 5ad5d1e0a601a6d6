package objects

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// TemplateChanges names the fields of the pod template t that pod, made from an older template,
// does not have as t says: what a restart of its broker applies, for the restart's events and
// conditions. Images are left out (the rollout names them from and to). The pod is compared as
// the apiserver keeps it, so only what the operator sets is compared, in ways the apiserver's
// defaults and admission (a service account volume, tolerations for not-ready nodes, requests
// copied from limits, fieldRef apiVersion) do not change. Empty when nothing the comparison
// reads differs.
func TemplateChanges(pod *corev1.Pod, t corev1.PodTemplateSpec) []string {
	var out []string
	add := func(differs bool, field string) {
		if differs {
			out = append(out, field)
		}
	}
	for _, want := range t.Spec.InitContainers {
		out = append(out, containerChanges("init container "+want.Name, findContainer(pod.Spec.InitContainers, want.Name), want)...)
	}
	for _, want := range t.Spec.Containers {
		out = append(out, containerChanges("container "+want.Name, findContainer(pod.Spec.Containers, want.Name), want)...)
	}
	ps, ts := pod.Spec, t.Spec
	add(!maps.Equal(ps.NodeSelector, ts.NodeSelector), "nodeSelector")
	add(!equality.Semantic.DeepEqual(ps.Affinity, ts.Affinity), "affinity")
	add(!equality.Semantic.DeepEqual(nonEmptyTolerations(nonDefaultTolerations(ps.Tolerations)), nonEmptyTolerations(ts.Tolerations)), "tolerations")
	add(!equality.Semantic.DeepEqual(ps.SecurityContext, ts.SecurityContext), "securityContext")
	add(!equality.Semantic.DeepEqual(ps.TopologySpreadConstraints, ts.TopologySpreadConstraints), "topologySpreadConstraints")
	// The ServiceAccount admission plugin names "default" on a pod whose template names none.
	add(ps.ServiceAccountName != ts.ServiceAccountName && (ts.ServiceAccountName != "" || ps.ServiceAccountName != "default"), "serviceAccountName")
	// It also copies the service account's pull secrets into a pod whose template names none.
	add(len(ts.ImagePullSecrets) > 0 && !equality.Semantic.DeepEqual(ps.ImagePullSecrets, ts.ImagePullSecrets), "imagePullSecrets")
	// The Priority admission plugin names a global default class on a pod whose template names none.
	add(ts.PriorityClassName != "" && ps.PriorityClassName != ts.PriorityClassName, "priorityClassName")
	add(gracePeriod(ps.TerminationGracePeriodSeconds) != gracePeriod(ts.TerminationGracePeriodSeconds), "terminationGracePeriodSeconds")
	add(volumesDiffer(ps.Volumes, ts.Volumes), "volumes")
	add(!subset(t.Annotations, pod.Annotations, AnnotationTemplateHash), "annotations")
	add(!subset(t.Labels, pod.Labels, ""), "labels")
	return out
}

// gracePeriod is a pod's termination grace period as the apiserver keeps it: it defaults an
// unset one to 30 s.
func gracePeriod(s *int64) int64 {
	if s == nil {
		return corev1.DefaultTerminationGracePeriodSeconds
	}
	return *s
}

// containerChanges names what differs in one container; a container the pod lacks differs
// whole.
func containerChanges(name string, got *corev1.Container, want corev1.Container) []string {
	if got == nil {
		return []string{name}
	}
	var fields []string
	add := func(differs bool, field string) {
		if differs {
			fields = append(fields, field)
		}
	}
	add(!slices.Equal(got.Command, want.Command), "command")
	add(!slices.Equal(got.Args, want.Args), "args")
	add(!equality.Semantic.DeepEqual(plainEnv(got.Env), plainEnv(want.Env)), "env")
	add(resourcesDiffer(got.Resources, want.Resources), "resources")
	add(!equality.Semantic.DeepEqual(plainPorts(got.Ports), plainPorts(want.Ports)), "ports")
	add(!equality.Semantic.DeepEqual(mountsOf(got.VolumeMounts), mountsOf(want.VolumeMounts)), "volumeMounts")
	add(!equality.Semantic.DeepEqual(got.SecurityContext, want.SecurityContext), "securityContext")
	if len(fields) == 0 {
		return nil
	}
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = name + " " + f
	}
	return out
}

func findContainer(cs []corev1.Container, name string) *corev1.Container {
	i := slices.IndexFunc(cs, func(c corev1.Container) bool { return c.Name == name })
	if i < 0 {
		return nil
	}
	return &cs[i]
}

// plainEnv drops what the apiserver defaults in an environment variable (a fieldRef's
// apiVersion).
func plainEnv(env []corev1.EnvVar) []corev1.EnvVar {
	out := make([]corev1.EnvVar, len(env))
	for i, e := range env {
		out[i] = *e.DeepCopy()
		if f := out[i].ValueFrom; f != nil && f.FieldRef != nil {
			f.FieldRef.APIVersion = ""
		}
	}
	return out
}

// plainPorts drops the defaulted protocol.
func plainPorts(ports []corev1.ContainerPort) []corev1.ContainerPort {
	out := slices.Clone(ports)
	for i := range out {
		out[i].Protocol = ""
	}
	return out
}

// mountsOf keeps the mounts the template names: the service account token mount is added by
// admission.
func mountsOf(ms []corev1.VolumeMount) []corev1.VolumeMount {
	return slices.DeleteFunc(slices.Clone(ms), func(m corev1.VolumeMount) bool { return m.MountPath == serviceAccountMountPath })
}

const serviceAccountMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"

// resourcesDiffer compares limits, and requests where the apiserver copies missing ones from
// the limits.
func resourcesDiffer(got, want corev1.ResourceRequirements) bool {
	if !equality.Semantic.DeepEqual(nonEmpty(got.Limits), nonEmpty(want.Limits)) {
		return true
	}
	requests := maps.Clone(want.Limits)
	if requests == nil {
		requests = corev1.ResourceList{}
	}
	maps.Copy(requests, want.Requests)
	return !equality.Semantic.DeepEqual(nonEmpty(got.Requests), nonEmpty(requests))
}

func nonEmpty(l corev1.ResourceList) corev1.ResourceList {
	if len(l) == 0 {
		return nil
	}
	return l
}

// nonDefaultTolerations drops the tolerations the DefaultTolerationSeconds admission plugin adds.
func nonDefaultTolerations(ts []corev1.Toleration) []corev1.Toleration {
	return slices.DeleteFunc(slices.Clone(ts), func(t corev1.Toleration) bool {
		return (t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable) && t.Effect == corev1.TaintEffectNoExecute && t.TolerationSeconds != nil
	})
}

func nonEmptyTolerations(ts []corev1.Toleration) []corev1.Toleration {
	if len(ts) == 0 {
		return nil
	}
	return ts
}

// volumesDiffer compares the volumes the template names, by name and kind (and a Secret's
// name): the claim volume and the service account token are added to the pod by others, and
// the apiserver defaults modes.
func volumesDiffer(got, want []corev1.Volume) bool {
	kind := func(v corev1.Volume) string {
		switch s := v.VolumeSource; {
		case s.Secret != nil:
			return "secret " + s.Secret.SecretName
		case s.EmptyDir != nil:
			return "emptyDir"
		case s.DownwardAPI != nil:
			return "downwardAPI"
		case s.ConfigMap != nil:
			return "configMap " + s.ConfigMap.Name
		case s.PersistentVolumeClaim != nil:
			return "claim"
		case s.Projected != nil:
			return "projected"
		}
		return "other"
	}
	have := map[string]string{}
	for _, v := range got {
		have[v.Name] = kind(v)
	}
	for _, v := range want {
		if have[v.Name] != kind(v) {
			return true
		}
		delete(have, v.Name)
	}
	for name, k := range have {
		if k != "claim" && k != "projected" && name != dataVolume {
			return true // a volume the template no longer names
		}
	}
	return false
}

// subset reports whether every entry of want, but skip, is in got with the same value.
func subset(want, got map[string]string, skip string) bool {
	for k, v := range want {
		if k != skip && got[k] != v {
			return false
		}
	}
	return true
}
