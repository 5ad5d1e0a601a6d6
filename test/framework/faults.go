package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// What a soak test does to a running control plane. None of these may run at the same time as
// Stop.

// RestartAPIServer kills kube-apiserver with SIGKILL, as a crash or an OOM kill would (no
// graceful shutdown, open watches cut mid-stream), starts it again with the same flags on the
// same port, and returns once /readyz answers. The restarted apiserver builds its watch cache
// afresh, so clients that resume a watch from an older resourceVersion get 410 Gone and relist.
//
// kwok is restarted with it. kwok plays the kubelets, which are not under test, and kwok v0.8.0's
// pod watch once stopped delivering after an apiserver restart (its node lease went on renewing),
// so no scheduled pod became Running again and every cluster waited on a harness fault. A fresh
// kwok lists every pod and plays only the stages a pod still needs.
func (cp *ControlPlane) RestartAPIServer(ctx context.Context) error {
	if err := cp.restartAPIServer(ctx); err != nil {
		return err
	}
	return cp.restartKwok(ctx)
}

func (cp *ControlPlane) restartAPIServer(ctx context.Context) error {
	i, p := cp.component("kube-apiserver")
	if p == nil {
		return fmt.Errorf("kube-apiserver is not running")
	}
	if err := syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill kube-apiserver: %w", err)
	}
	<-p.done
	next, err := startProcess(p.name, p.cmd.Path, p.logPath, p.cmd.Args[1:])
	if err != nil {
		return err
	}
	cp.replace(i, next)
	client, err := kubernetes.NewForConfig(cp.AdminConfig())
	if err != nil {
		return err
	}
	_, etcd := cp.component("etcd")
	return waitHealthy(ctx, []*process{etcd, next}, "kube-apiserver /readyz after restart", apiserverReadyCheck(client))
}

// restartKwok stops kwok (SIGTERM, then SIGKILL after its grace) and starts it again with the
// same flags. kwok has no state of its own to lose: it relists nodes and pods when it starts.
// Each kwok process holds each fake Node's Lease under an identity of its own (hostname and a
// random UUID, kwok's controllers.Identity), so a new one would leave the Nodes alone until the
// old Leases expired, 40 s; the old Leases are deleted in between so that the new kwok takes them
// at once.
func (cp *ControlPlane) restartKwok(ctx context.Context) error {
	i, p := cp.component("kwok")
	if p == nil {
		return fmt.Errorf("kwok is not running")
	}
	client, err := kubernetes.NewForConfig(cp.AdminConfig())
	if err != nil {
		return err
	}
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list the fake Nodes: %w", err)
	}
	if err := p.stop(); err != nil {
		return err
	}
	for _, node := range nodes.Items {
		if node.Annotations[kwokNodeAnnotation] != kwokNodeValue {
			continue // the real node's kubelet holds its own
		}
		err = client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Delete(ctx, node.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete the Lease of fake Node %s: %w", node.Name, err)
		}
	}
	next, err := startProcess(p.name, p.cmd.Path, p.logPath, p.cmd.Args[1:])
	if err != nil {
		return err
	}
	cp.replace(i, next)
	return nil
}

// CompactEtcd compacts etcd's history up to its current revision and returns that revision. A
// watch that resumes from an older revision than the compaction can no longer be served from
// etcd: the apiserver answers it with 410 Gone.
func (cp *ControlPlane) CompactEtcd(ctx context.Context) (int64, error) {
	endpoint, err := cp.etcdEndpoint()
	if err != nil {
		return 0, err
	}
	// etcd's JSON gateway (api/etcdserverpb/rpc.proto): a Range of any key answers with the
	// store's current revision in its header; int64 fields travel as strings.
	var status struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	if err := etcdCall(ctx, endpoint+"/v3/kv/range", map[string]any{"key": "AA==", "limit": 1}, &status); err != nil {
		return 0, err
	}
	rev, err := strconv.ParseInt(status.Header.Revision, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("etcd revision %q: %w", status.Header.Revision, err)
	}
	if err := etcdCall(ctx, endpoint+"/v3/kv/compaction", map[string]any{"revision": strconv.FormatInt(rev, 10)}, nil); err != nil {
		return 0, err
	}
	return rev, nil
}

// StartCommand starts cmd with the parent-death signal tied to a thread that lives as long as the
// program (see spawner.go), so that a process a test starts with Pdeathsig goes when the test
// binary does, even if the test's own thread has ended.
func StartCommand(cmd *exec.Cmd) error {
	return startOnSpawnerThread(cmd)
}

// component returns a running component's index and process.
func (cp *ControlPlane) component(name string) (int, *process) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	for i, p := range cp.processes {
		if p.name == name {
			return i, p
		}
	}
	return -1, nil
}

// etcdEndpoint is etcd's client URL, as kube-apiserver was given it.
func (cp *ControlPlane) etcdEndpoint() (string, error) {
	_, p := cp.component("kube-apiserver")
	if p == nil {
		return "", fmt.Errorf("kube-apiserver is not running")
	}
	for _, arg := range p.cmd.Args {
		if v, ok := strings.CutPrefix(arg, "--etcd-servers="); ok {
			return strings.Split(v, ",")[0], nil
		}
	}
	return "", fmt.Errorf("kube-apiserver has no --etcd-servers flag")
}

func etcdCall(ctx context.Context, url string, body any, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("etcd %s: %s: %s", url, resp.Status, answer)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(answer, out)
}
