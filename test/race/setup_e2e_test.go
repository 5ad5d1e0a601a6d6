//go:build e2e

package race

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	"github.com/broker-operator/broker-operator/test/framework"
	"github.com/broker-operator/broker-operator/test/harness"
)

// crdPath is the BrokerCluster CRD, relative to the repository root.
const crdPath = "deploy/crd/bases/broker-operator.dev_brokerclusters.yaml"

// newBrokerCluster is a BrokerCluster of the experiment, its brokers in the default pool, its
// claims kept when a broker leaves (keptStorage).
func newBrokerCluster(ns, name string, replicas int32, adminPort int) *v1alpha1.BrokerCluster {
	return harness.NewBrokerCluster(ns, name, "registry.invalid/broker:race", replicas, adminPort, keptStorage())
}

// rowLabel marks the PersistentVolumes made for one row, so they can go with it.
const rowLabel = "race.broker-operator.dev/namespace"

// installCRD creates the BrokerCluster CRD from deploy/ and waits until BrokerClusters can be
// listed.
func installCRD(ctx context.Context, cfg *rest.Config, brokers versioned.Interface) error {
	root, err := framework.RepositoryRoot()
	if err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(root, crdPath))
	if err != nil {
		return err
	}
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &crd.Object); err != nil {
		return fmt.Errorf("parse %s: %w", crdPath, err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	gvr := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if _, err := dyn.Resource(gvr).Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create the BrokerCluster CRD: %w", err)
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := brokers.BrokersV1alpha1().BrokerClusters(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{})
		return err == nil, nil
	})
	if err != nil {
		return fmt.Errorf("the BrokerCluster API was not served within a minute: %w", err)
	}
	return nil
}

// createVolumes makes, for each broker pod a row can run, in every pool of its plan, the claim
// its StatefulSet will ask for (datadir-<StatefulSet>-<ordinal>) and a PersistentVolume, bound to
// each other in advance: the control plane has no volume provisioner, the scheduler keeps a pod
// with an unbound claim Pending, and the PersistentVolume controller, when it has to do the
// binding, falls behind under the full run's load and retries only every 15 s. It returns how
// many volumes it made.
func createVolumes(ctx context.Context, client kubernetes.Interface, ns string, clusters []string, plans []plan) (int, error) {
	made := 0
	for i, name := range clusters {
		for pool, most := range plans[i].volumes {
			set := name
			if pool != "" {
				set += "-" + pool
			}
			for ordinal := range int(most) {
				if err := createVolume(ctx, client, ns, set+"-"+strconv.Itoa(ordinal)); err != nil {
					return made, err
				}
				made++
			}
		}
	}
	return made, nil
}

// createVolume makes the claim of pod and a PersistentVolume bound to it.
func createVolume(ctx context.Context, client kubernetes.Interface, ns, pod string) error {
	claimName := "datadir-" + pod
	volumeName := ns + "-" + pod
	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: claimName, Annotations: map[string]string{
			// What the PersistentVolume controller writes once it has bound a claim.
			"pv.kubernetes.io/bind-completed": "yes",
		}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: volumeSize}},
			VolumeName:       volumeName,
			StorageClassName: new(string),
		},
	}
	claim, err := client.CoreV1().PersistentVolumeClaims(ns).Create(ctx, claim, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create PersistentVolumeClaim %s/%s: %w", ns, claimName, err)
	}
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: volumeName, Labels: map[string]string{rowLabel: ns}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: volumeSize},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: ns, Name: claimName, UID: claim.UID},
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				HostPath: &corev1.HostPathVolumeSource{Path: "/nonexistent/race/" + ns + "/" + claimName},
			},
		},
	}
	if _, err := client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create PersistentVolume %s: %w", pv.Name, err)
	}
	return nil
}

// awaitVolumesBound waits until the PersistentVolume controller has marked all of a row's
// volumes Bound: the scheduler, whose volume cache lags like the controller's, refuses a pod whose
// claim names a volume it has not seen yet ("bound to non-existent persistentvolume") and under
// load kept doing so for a minute.
func awaitVolumesBound(ctx context.Context, client kubernetes.Interface, ns string, want int, timeout time.Duration) error {
	bound := 0
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{LabelSelector: rowLabel + "=" + ns})
		if err != nil {
			return false, nil
		}
		bound = 0
		for _, pv := range list.Items {
			if pv.Status.Phase == corev1.VolumeBound {
				bound++
			}
		}
		return bound == want, nil
	})
	if err != nil {
		return fmt.Errorf("%d of %d volumes bound after %s: %w", bound, want, timeout, err)
	}
	return nil
}

func createNamespace(ctx context.Context, client kubernetes.Interface, ns string) error {
	_, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	return err
}

// removeRow deletes a row's namespace and volumes and waits, up to timeout, for the namespace to
// be gone, so that the next row does not share the control plane with its garbage collection.
// A zero timeout does not wait.
func removeRow(ctx context.Context, client kubernetes.Interface, ns string, timeout time.Duration) error {
	if err := client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	var err error
	if timeout > 0 {
		err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
			_, err := client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
	}
	if err != nil {
		err = fmt.Errorf("namespace %s still there after %s: %w", ns, timeout, err)
	}
	return errors.Join(err, client.CoreV1().PersistentVolumes().DeleteCollection(ctx, metav1.DeleteOptions{},
		metav1.ListOptions{LabelSelector: rowLabel + "=" + ns}))
}
