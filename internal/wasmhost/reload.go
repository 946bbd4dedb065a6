package wasmhost

import (
	"math/rand/v2"
	"time"
)

// Reloading a failed VM (FailReload) as Envoy does it (1.33 and later:
// envoy/changelogs/1.33.0.yaml, "Added the Wasm VM reload support"; the
// logic is PluginConfig::maybeReloadHandleIfNeeded in
// source/extensions/common/wasm/wasm.cc):
//
//   - only a VM that failed at run time (a trap in a callback) is
//     reloaded; one that failed to start stays failed;
//   - the reload is tried when a new stream is created on the failed VM's
//     worker, and only once a back-off interval has passed since that VM
//     was last loaded (not since it failed): reload_config.backoff's
//     base_interval (default 1 s) with Envoy's JitteredLowerBoundBackOff
//     jitter, a fresh random interval in [base, 1.5 × base) per check;
//   - a stream created during the back-off, and every stream still on the
//     failed instance, fails closed (503);
//   - a reload that fails keeps the failed VM, and the next try waits
//     another interval;
//   - shared data, queues and metrics belong to the process (vm_id), not
//     to the VM: a reloaded VM finds everything its predecessor stored.

// defaultReloadBackoff is Envoy's reload_config.backoff.base_interval
// when none is configured.
const defaultReloadBackoff = time.Second

// ReloadStats counts what FailReload did on one worker VM: Envoy's
// wasm.<plugin>.vm_reload_success, vm_reload_failure and
// vm_reload_backoff (a stream created while the interval ran).
type ReloadStats struct {
	Success, Failure, Backoff uint64
}

// Reloads returns this VM's ReloadStats.
func (vm *VM) Reloads() ReloadStats {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.reloads
}

// reloadBase is the configured back-off base interval (0: none).
func (h *Host) reloadBase() time.Duration {
	switch b := h.opts.ReloadBackoff; {
	case b < 0:
		return 0
	case b == 0:
		return defaultReloadBackoff
	default:
		return b
	}
}

// maybeReloadLocked replaces the failed instance of a FailReload VM when
// the back-off allows it (vm.mu held).
func (vm *VM) maybeReloadLocked() {
	if vm.failed == nil || vm.host.opts.FailurePolicy != FailReload || vm.closedLocked() || !vm.runtimeFailure {
		return
	}
	base := vm.host.reloadBase()
	interval := base + time.Duration(rand.Int64N(int64(base/2)+1))
	now := vm.host.clock()
	if now.Sub(vm.lastLoad) < interval {
		vm.reloads.Backoff++
		return
	}
	vm.lastLoad = now
	vm.reloadLocked()
	if vm.failed != nil {
		vm.reloads.Failure++
	} else {
		vm.reloads.Success++
	}
}
