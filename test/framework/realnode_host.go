package framework

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// RealNodeUnsupported says why this machine cannot run a real node, or returns "" if it can. A
// test that needs one skips with this reason. It does not cover missing packages or binaries:
// those are errors of StartRealNode, with the command that installs them.
func RealNodeUnsupported() string {
	if runtime.GOOS != "linux" {
		return "a real node needs Linux"
	}
	if os.Geteuid() != 0 {
		return "a real node needs root (it mounts, makes cgroups and runs containers)"
	}
	if !hasCgroups() {
		return "a real node needs cgroups mounted at /sys/fs/cgroup"
	}
	own, err := inOwnNetworkNamespace()
	if err != nil {
		return "cannot tell which network namespace this process is in: " + err.Error()
	}
	if !own {
		return "a real node runs only in a network namespace of its own, with no uplink: run the test binary with go test -exec 'unshare --net --'"
	}
	return ""
}

func hasCgroups() bool {
	for _, probe := range []string{"/sys/fs/cgroup/cgroup.controllers", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if _, err := os.Stat(probe); err == nil {
			return true
		}
	}
	return false
}

// inOwnNetworkNamespace compares this process's network namespace with kthreadd's (pid 2), which
// is always the host's; pid 1's may not be readable.
func inOwnNetworkNamespace() (bool, error) {
	self, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return false, err
	}
	host, err := os.Readlink("/proc/2/ns/net")
	if err != nil {
		return false, err
	}
	return self != host, nil
}

// requiredTools are the packages a real node needs from the distribution.
var requiredTools = []struct{ path, pkg string }{
	{"containerd", "containerd"},
	{"containerd-shim-runc-v2", "containerd"},
	{"ctr", "containerd"},
	{"runc", "runc"},
	{"iptables", "iptables"},
	{"ip", "iproute2"},
	{filepath.Join(cniBinDir, "bridge"), "containernetworking-plugins"},
	{filepath.Join(cniBinDir, "host-local"), "containernetworking-plugins"},
	{filepath.Join(cniBinDir, "loopback"), "containernetworking-plugins"},
}

// checkTools fails with the apt-get command that installs whatever is missing. The kubelet and
// kube-proxy look up iptables and friends on PATH, so sbin directories are added if missing.
func checkTools() error {
	path := os.Getenv("PATH")
	for _, dir := range []string{"/usr/sbin", "/sbin"} {
		if !slices.Contains(filepath.SplitList(path), dir) {
			path += string(filepath.ListSeparator) + dir
		}
	}
	if err := os.Setenv("PATH", path); err != nil {
		return err
	}
	var pkgs []string
	for _, t := range requiredTools {
		if _, err := exec.LookPath(t.path); err != nil && !slices.Contains(pkgs, t.pkg) {
			pkgs = append(pkgs, t.pkg)
		}
	}
	if len(pkgs) > 0 {
		return fmt.Errorf("the real node needs packages that are missing: apt-get install -y %s", strings.Join(pkgs, " "))
	}
	return nil
}

// setUpNetwork gives the namespace its loopback, the node address on an empty bridge, and a route
// for the Service range to that bridge: a Pod's packet to a Service kube-proxy has not programmed
// yet dies there. It refuses to touch the host's namespace.
func setUpNetwork() error {
	if own, err := inOwnNetworkNamespace(); err != nil || !own {
		return fmt.Errorf("refusing to configure the network: not in a network namespace of its own (%v)", err)
	}
	steps := [][]string{
		{"link", "set", "lo", "up"},
		{"link", "add", nodeBridge, "type", "bridge"},
		{"addr", "add", RealNodeIP + "/32", "dev", nodeBridge},
		{"link", "set", nodeBridge, "up"},
		{"route", "add", serviceCIDR, "dev", nodeBridge},
	}
	for _, args := range steps {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// hostState is what a run changes outside its own directory, written to the directory so that
// the next run can undo it if this one crashes.
type hostState struct {
	Owner int `json:"owner"`
	// Sysctls the kubelet changes (they are global, not per network namespace), as they were.
	Sysctls map[string]string `json:"sysctls"`
	// CreatedDirs are fixed paths the node's components use that did not exist before the run.
	CreatedDirs []string `json:"createdDirs"`
}

const hostStateFile = "host-state.json"

var kubeletSysctls = []string{"vm/overcommit_memory", "kernel/panic", "kernel/panic_on_oops"}

// fixedPaths are used by the components whatever their configuration says: the kubelet's device
// plugin socket, containerd 1.6's shim sockets, libcni's cache and the kubelet's log symlinks.
var fixedPaths = []string{"/var/lib/kubelet", "/run/containerd", "/var/lib/cni", "/var/log/containers", "/var/log/pods"}

func recordHostState(dir string) (*hostState, error) {
	s := &hostState{Owner: os.Getpid(), Sysctls: map[string]string{}}
	for _, name := range kubeletSysctls {
		v, err := os.ReadFile(filepath.Join("/proc/sys", name))
		if err != nil {
			return nil, err
		}
		s.Sysctls[name] = strings.TrimSpace(string(v))
	}
	for _, p := range fixedPaths {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			s.CreatedDirs = append(s.CreatedDirs, p)
		}
	}
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return s, os.WriteFile(filepath.Join(dir, hostStateFile), data, 0o600)
}

// makeCgroupRoot creates realNodeCgroupRoot in every hierarchy; the kubelet refuses a cgroupRoot
// that does not exist.
func makeCgroupRoot() error {
	for _, h := range cgroupHierarchies() {
		if err := os.MkdirAll(filepath.Join(h, realNodeCgroupRoot), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// cgroupHierarchies lists the mounted cgroup hierarchies: one directory per v1 controller (and the
// named ones), or the single v2 tree.
func cgroupHierarchies() []string {
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		return []string{"/sys/fs/cgroup"}
	}
	entries, _ := os.ReadDir("/sys/fs/cgroup")
	var dirs []string
	for _, e := range entries {
		info, err := os.Lstat(filepath.Join("/sys/fs/cgroup", e.Name()))
		if err == nil && info.IsDir() {
			dirs = append(dirs, filepath.Join("/sys/fs/cgroup", e.Name()))
		}
	}
	return dirs
}

// cleanStaleRuns undoes what earlier runs in parent left behind when they crashed: their
// containers, shims, mounts, cgroups, sysctls and directories. A run whose owner is still alive
// is another node running now, and an error: there can only be one.
func cleanStaleRuns(parent string, logf func(string, ...any)) error {
	dirs, err := filepath.Glob(filepath.Join(parent, "realnode-*"))
	if err != nil {
		return err
	}
	var errs []error
	for _, dir := range dirs {
		state, err := readHostState(dir)
		if err != nil {
			logf("removing %s, which has no readable host state (%v)", dir, err)
			state = &hostState{}
		}
		if state.Owner != 0 && state.Owner != os.Getpid() && processAlive(state.Owner) {
			return fmt.Errorf("another real node is running (pid %d, directory %s); only one can run at a time", state.Owner, dir)
		}
		logf("cleaning up after an earlier run that did not finish: %s", dir)
		errs = append(errs, cleanRun(dir, state, false))
	}
	// A crash before the host state was written can still leave cgroups.
	errs = append(errs, killCgroupProcesses(), removeCgroupRoot())
	return errors.Join(errs...)
}

func readHostState(dir string) (*hostState, error) {
	data, err := os.ReadFile(filepath.Join(dir, hostStateFile))
	if err != nil {
		return nil, err
	}
	s := &hostState{}
	return s, json.Unmarshal(data, s)
}

func processAlive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

// cleanRun removes everything a run left once its components are stopped. With keepLogs, the
// directory's logs stay.
func cleanRun(dir string, state *hostState, keepLogs bool) error {
	var errs []error
	killShims(dir)
	errs = append(errs, killCgroupProcesses())
	errs = append(errs, unmountUnder(dir))
	errs = append(errs, removeCgroupRoot())
	for _, p := range state.CreatedDirs {
		errs = append(errs, os.RemoveAll(p))
	}
	for name, v := range state.Sysctls {
		errs = append(errs, os.WriteFile(filepath.Join("/proc/sys", name), []byte(v), 0o644))
	}
	if keepLogs {
		entries, err := os.ReadDir(dir)
		errs = append(errs, err)
		for _, e := range entries {
			if e.Name() != "logs" {
				errs = append(errs, os.RemoveAll(filepath.Join(dir, e.Name())))
			}
		}
	} else {
		errs = append(errs, os.RemoveAll(dir))
	}
	return errors.Join(errs...)
}

// killShims kills the shims of dir's containerd: they outlive containerd on purpose. They are found
// by their pid files and by the containerd socket on their command line, which names this run.
func killShims(dir string) {
	pidFiles, _ := filepath.Glob(filepath.Join(dir, "containerd", "state", "io.containerd.runtime.v2.task", "*", "*", "shim.pid"))
	for _, f := range pidFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 1 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	socket := []byte("\x00" + containerdSocket(dir) + "\x00")
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid <= 1 {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err == nil && strings.HasPrefix(filepath.Base(string(bytes.SplitN(cmdline, []byte{0}, 2)[0])), "containerd-shim") &&
			bytes.Contains(append(cmdline, 0), socket) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// killCgroupProcesses kills every process left in the node's cgroups (the containers) and waits
// until they are gone.
func killCgroupProcesses() error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids := cgroupPIDs()
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes %v are still in the node's cgroups", pids)
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func cgroupPIDs() []int {
	var pids []int
	for _, h := range cgroupHierarchies() {
		_ = filepath.WalkDir(filepath.Join(h, realNodeCgroupRoot), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != "cgroup.procs" {
				return nil
			}
			data, _ := os.ReadFile(path)
			for _, f := range strings.Fields(string(data)) {
				if pid, err := strconv.Atoi(f); err == nil && !slices.Contains(pids, pid) {
					pids = append(pids, pid)
				}
			}
			return nil
		})
	}
	return pids
}

// removeCgroupRoot removes realNodeCgroupRoot's tree, deepest first (rmdir is the only way to
// remove a cgroup, and only an empty one).
func removeCgroupRoot() error {
	var errs []error
	for _, h := range cgroupHierarchies() {
		root := filepath.Join(h, realNodeCgroupRoot)
		var dirs []string
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- {
			if err := rmdirRetry(dirs[i]); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// rmdirRetry retries a cgroup's removal for a moment: the kernel frees a cgroup shortly after
// its last process is reaped.
func rmdirRetry(dir string) error {
	var err error
	for range 50 {
		if err = syscall.Rmdir(dir); err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("remove cgroup %s: %w", dir, err)
}

// unmountUnder unmounts every mount point under dir, deepest first: the kubelet's bind mount of its
// root directory, Pod volumes, container root filesystems and sandbox network namespaces.
func unmountUnder(dir string) error {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	defer f.Close()
	var points []string
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) < 5 {
			continue
		}
		p := unescapeMountPath(fields[4])
		if p == dir || strings.HasPrefix(p, dir+"/") {
			points = append(points, p)
		}
	}
	if err := scanner.Err(); err != nil {
		return err
	}
	slices.SortFunc(points, func(a, b string) int { return len(b) - len(a) })
	var errs []error
	for _, p := range points {
		if err := syscall.Unmount(p, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
			errs = append(errs, fmt.Errorf("unmount %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}

// unescapeMountPath undoes mountinfo's octal escapes (\040 for a space and so on).
func unescapeMountPath(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
