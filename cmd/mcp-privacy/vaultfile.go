package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cloudg/mcp-privacy/internal/wasmhost"
	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

// The vault file of `serve` (manual 13: vault.path, autosave, encrypt). The
// plugin's vault lives in shared data, which the host (this process) holds
// and the VMs cannot write to disk; so the host persists it: it loads the
// file into shared data before the first request, saves it at shutdown
// when the table changed, and with autosave after every request that
// stored new pseudonyms. It learns of changes from the vault's two counter
// keys (vault.IssuedKey, TouchedKey), whose CAS tokens move
// with every write, without reading the table.
type vaultFile struct {
	path     string
	autosave bool
	encrypt  bool
	vault    *vault.Vault // over the host's shared data; reads and writes the table
	log      io.Writer

	mu    sync.Mutex
	saved vault.Changes // the counters at the last load or save
}

// hostKV is the host's shared data (the VMs' vm_id) as the vault's store.
func hostKV(d *wasmhost.SharedData) vault.KV { return sharedDataKV{d} }

type sharedDataKV struct{ d *wasmhost.SharedData }

func (k sharedDataKV) Get(key string) ([]byte, uint32, bool) {
	v, cas, st := k.d.Get(key)
	return v, cas, st == wasmhost.StatusOK
}

func (k sharedDataKV) Set(key string, value []byte, cas uint32) bool {
	return k.d.Set(key, value, cas) == wasmhost.StatusOK
}

// loadVaultFile loads cfg.Path, if it exists, into kv (the shared data the
// VMs will use) and returns what saves it later. nil (and no error) when
// nothing is to be persisted: no path, or no configured key (the plugin
// then makes a random key per process, and a file could never be read
// back; a warning says so). An existing file that does not load is an
// error: serving on would overwrite it at shutdown.
func loadVaultFile(cfg policy.VaultConfig, lookupEnv func(string) (string, bool), kv vault.KV, log io.Writer) (*vaultFile, error) {
	if cfg.Path == "" {
		return nil, nil
	}
	key, source := cfg.ResolveKey(lookupEnv)
	if key == nil {
		fmt.Fprintf(log, "mcp-privacy serve: warning: vault.path %q is not used: there is no vault key (vault.key or $%s), so the plugin makes a random one per process and a saved vault could not be read back\n", cfg.Path, cfg.KeyEnv)
		return nil, nil
	}
	f := &vaultFile{
		path: cfg.Path, autosave: cfg.Autosave, encrypt: cfg.Encrypt, log: log,
		vault: vault.New(key, cfg, kv, time.Now),
	}
	if !cfg.Encrypt {
		fmt.Fprintf(log, "mcp-privacy serve: warning: vault.encrypt is false: %s holds the pseudonymised values in clear\n", cfg.Path)
	}
	r, err := os.Open(cfg.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("vault file: %w", err)
	default:
		err = f.vault.Import(r)
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w (vault key from %s)", cfg.Path, err, source)
		}
	}
	f.saved = f.vault.Changes()
	return f, nil
}

// saveVaultFile writes the file if the table changed since it was loaded
// or last saved (serve calls it at shutdown). A nil f does nothing.
func saveVaultFile(f *vaultFile) error {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.vault.Changes()
	if c == f.saved {
		return nil
	}
	return f.writeLocked(c)
}

// autosave writes the file if new pseudonyms were stored since the last
// save (refreshed last uses wait for the save at shutdown).
func (f *vaultFile) autosaveNow() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.vault.Changes()
	if c.Issued == f.saved.Issued {
		return nil
	}
	return f.writeLocked(c)
}

// autosaveHandler wraps serve's handler: with vault.autosave, every
// request that stored new pseudonyms is followed by a save. Without (or
// for a nil f) it returns h.
func autosaveHandler(f *vaultFile, h http.Handler) http.Handler {
	if f == nil || !f.autosave {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if err := f.autosaveNow(); err != nil {
			fmt.Fprintf(f.log, "mcp-privacy serve: %v\n", err)
		}
	})
}

// writeLocked replaces the file with the table as it is now: written to a
// temporary file beside it (mode 0600: it holds personal data, sealed or
// not), synced, then renamed over it, so a crash never leaves half a file.
// c, read before the table, becomes the saved state: a change during the
// write is saved next time.
func (f *vaultFile) writeLocked(c vault.Changes) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(f.path), "."+filepath.Base(f.path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("saving the vault: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("saving the vault to %s: %w", f.path, err)
		}
	}()
	if err = tmp.Chmod(0o600); err != nil {
		return err
	}
	// Export writes the file in one Write.
	if err = f.vault.Export(tmp, f.encrypt); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), f.path); err != nil {
		return err
	}
	f.saved = c
	return nil
}
