// Package entropy reads random bytes without arming a Go runtime timer.
//
// crypto/rand starts a one-minute timer on first use (to warn about a
// blocked getrandom), and a timer switches on the runtime's network poller:
// from then on every garbage collection calls WASI poll_oneoff, which
// Envoy <= 1.38 answers with ENOSYS, and the VM aborts. Inside the wasm
// module randomness therefore comes straight from WASI random_get.
package entropy
