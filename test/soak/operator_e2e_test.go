//go:build e2e

package soak

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/broker-operator/broker-operator/test/brokersim"
	"github.com/broker-operator/broker-operator/test/framework"
	"github.com/broker-operator/broker-operator/test/history"
)

// replica is one of the operator's replicas, as its Deployment would keep it: a process that is
// started again shortly after it exits, whatever the reason (a fault killed it, or it lost the
// Lease and exited on purpose).
type replica struct {
	name string
	h    *rig

	mu      sync.Mutex
	cur     *proc
	stopped bool
	done    chan struct{} // closed when the supervisor has returned
}

// proc is one operator process and the proxy it talks through.
type proc struct {
	name    string
	cmd     *exec.Cmd
	proxy   *Proxy
	exited  chan struct{}
	leading atomic.Bool
	logPath string
	// hist is the process's history, for the checker (nil in the scale run).
	hist *ProcessHistory
}

// restartDelay is how long a replica stays down after its process exits, as a restarting
// container would.
const restartDelay = 500 * time.Millisecond

func (h *rig) startReplica(name string) *replica {
	r := &replica{name: name, h: h, done: make(chan struct{})}
	go r.supervise()
	return r
}

func (r *replica) supervise() {
	defer close(r.done)
	for gen := 1; ; gen++ {
		r.mu.Lock()
		if r.stopped {
			r.mu.Unlock()
			return
		}
		p, err := r.h.startProc(fmt.Sprintf("%s-%d", r.name, gen), nil)
		if err != nil {
			r.mu.Unlock()
			r.h.fail("start operator %s: %v", r.name, err)
			return
		}
		r.cur = p
		r.mu.Unlock()
		<-p.exited
		p.leading.Store(false)
		select {
		case <-time.After(restartDelay):
		case <-r.h.ctx.Done():
		}
	}
}

// current returns the running process, if any.
func (r *replica) current() *proc {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == nil {
		return nil
	}
	select {
	case <-r.cur.exited:
		return nil
	default:
		return r.cur
	}
}

// stop ends the replica: SIGTERM, then SIGKILL after grace.
func (r *replica) stop(grace time.Duration) {
	r.mu.Lock()
	r.stopped = true
	p := r.cur
	r.mu.Unlock()
	if p != nil {
		p.signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(grace):
			r.h.fail("operator %s did not stop within %s of SIGTERM", p.name, grace)
			p.signal(syscall.SIGKILL)
			<-p.exited
		}
	}
	<-r.done
}

func (p *proc) signal(sig syscall.Signal) {
	_ = p.cmd.Process.Signal(sig)
}

// startProc starts one operator process behind a fresh proxy, and reads its log as it goes. extra
// flags override the harness's.
func (h *rig) startProc(name string, extra []string) (*proc, error) {
	var hist *ProcessHistory
	if !h.s.scale {
		hist = NewProcessHistory(name, history.Key{Resource: "leases", Namespace: brokersim.OperatorNamespace, Name: h.leaseName})
	}
	proxy, err := StartProxy(h.cp.APIServerURL, h.upstream, h.s.lag, h.s.seed+uint64(h.procCount.Load()), hist)
	if err != nil {
		return nil, err
	}
	proxy.SetLag(h.lagOn.Load())
	kubeconfig := filepath.Join(h.dir, name+".kubeconfig")
	if err := writeProxyKubeconfig(kubeconfig, proxy.URL(), proxy.CAPEM(), h.token); err != nil {
		proxy.Close()
		return nil, err
	}
	p := &proc{name: name, proxy: proxy, exited: make(chan struct{}), logPath: filepath.Join(h.dir, name+".log"), hist: hist}
	logFile, err := os.Create(p.logPath)
	if err != nil {
		proxy.Close()
		return nil, err
	}
	p.cmd = exec.Command(h.binary, append(h.operatorFlags(kubeconfig), extra...)...)
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		proxy.Close()
		logFile.Close()
		return nil, err
	}
	p.cmd.Stdout = logFile
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := framework.StartCommand(p.cmd); err != nil {
		proxy.Close()
		logFile.Close()
		return nil, err
	}
	h.procCount.Add(1)
	h.mu.Lock()
	h.procs = append(h.procs, p)
	h.mu.Unlock()
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		h.readLog(p, stderr, logFile)
	}()
	go func() {
		<-logged
		_ = p.cmd.Wait()
		logFile.Close()
		proxy.Close()
		close(p.exited)
	}()
	return p, nil
}

// readLog copies the operator's log to its file and reads it line by line: the traced reads and
// admin calls go into the process's history (where the checker judges them, stale reads
// among them), and a traced line that does not parse is counted there; leadership and data
// races are noted.
func (h *rig) readLog(p *proc, r io.Reader, out io.Writer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(out, line)
		if e, traced, ok := ParseTrace(line); traced {
			switch {
			case p.hist == nil:
			case ok:
				p.hist.Traced(e)
			default:
				p.hist.Unreadable()
			}
			continue
		}
		switch {
		case strings.Contains(line, `"Started leading"`):
			p.leading.Store(true)
		case strings.Contains(line, "WARNING: DATA RACE"):
			h.fail("operator %s hit a data race; see %s", p.name, p.logPath)
		}
	}
}

// leader returns the process that leads now, waiting up to limit for one.
func (h *rig) leader(limit time.Duration) *proc {
	deadline := time.Now().Add(limit)
	for {
		for _, r := range h.replicas {
			if p := r.current(); p != nil && p.leading.Load() {
				return p
			}
		}
		if time.Now().After(deadline) {
			return nil
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-h.ctx.Done():
			return nil
		}
	}
}

func writeProxyKubeconfig(path, server string, caPEM []byte, token string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["soak"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos["operator"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["soak"] = &clientcmdapi.Context{Cluster: "soak", AuthInfo: "operator"}
	cfg.CurrentContext = "soak"
	return clientcmd.WriteToFile(*cfg, path)
}

// tokenOf reads the bearer token of a kubeconfig's current user.
func tokenOf(path string) (string, error) {
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return "", err
	}
	ctx := cfg.Contexts[cfg.CurrentContext]
	if ctx == nil || cfg.AuthInfos[ctx.AuthInfo] == nil || cfg.AuthInfos[ctx.AuthInfo].Token == "" {
		return "", fmt.Errorf("%s has no token for its current context", path)
	}
	return cfg.AuthInfos[ctx.AuthInfo].Token, nil
}
