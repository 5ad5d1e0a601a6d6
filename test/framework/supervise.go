package framework

import (
	"maps"
	"time"
)

// supervised are the components that exit on purpose when they find something wrong:
// kube-scheduler when its cache disagrees with an update it is sent ("Scheduler cache is
// corrupted", seen after an apiserver restart), either of them when it loses its leader Lease.
// They are started again, as the kubelet restarts a control plane's static pods.
var supervised = []string{"kube-controller-manager", "kube-scheduler"}

// Backoff before a supervised component is started again: doubled after each exit, up to the
// most, as the kubelet's crash-loop backoff.
const (
	restartBackoff    = time.Second
	maxRestartBackoff = 30 * time.Second
)

// supervise starts the named component again each time it exits, until Stop begins.
func (cp *ControlPlane) supervise(name string) {
	backoff := restartBackoff
	for {
		i, p := cp.component(name)
		<-p.done // Stop ends it too, after closing cp.stopped
		if cp.isStopping() {
			return
		}
		cp.logf("%s exited (%v); starting it again in %s", name, p.waitErr, backoff)
		select {
		case <-time.After(backoff):
		case <-cp.stopped:
			return
		}
		backoff = min(2*backoff, maxRestartBackoff)
		cp.mu.Lock()
		if cp.isStopping() {
			cp.mu.Unlock()
			return
		}
		next, err := startProcess(p.name, p.cmd.Path, p.logPath, p.cmd.Args[1:])
		if err == nil {
			cp.processes[i] = next
			if cp.restarts == nil {
				cp.restarts = map[string]int{}
			}
			cp.restarts[name]++
		}
		cp.mu.Unlock()
		if err != nil {
			cp.logf("%s not started again: %v", name, err)
			return
		}
	}
}

// Restarts returns how many times each component that exited on its own was started again
// (RestartAPIServer's restarts are not counted). A soak run reports them: a component that
// crashed is part of what the run went through.
func (cp *ControlPlane) Restarts() map[string]int {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return maps.Clone(cp.restarts)
}

// isStopping reports whether Stop has begun. Stop closes cp.stopped under cp.mu, so a caller
// holding cp.mu may start nothing once this is false.
func (cp *ControlPlane) isStopping() bool {
	select {
	case <-cp.stopped:
		return true
	default:
		return false
	}
}

// replace puts a restarted component's process in the place of its old one.
func (cp *ControlPlane) replace(i int, p *process) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	cp.processes[i] = p
}
