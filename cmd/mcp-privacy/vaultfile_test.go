package main

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/wasmhost"
	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

const testVaultEnv = "TEST_MCP_VAULT_KEY"

func vaultEnv(key string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		if name == testVaultEnv && key != "" {
			return key, true
		}
		return "", false
	}
}

func fileVaultConfig(path string, autosave, encrypt bool) policy.VaultConfig {
	return policy.VaultConfig{KeyEnv: testVaultEnv, Path: path, Autosave: autosave, Encrypt: encrypt, MaxEntries: 4096, TTLSeconds: 3600}
}

// hostProcess is what serve runs: the shared data of the VMs' vm_id, and a
// vault over it as a worker VM's would be.
func hostProcess(cfg policy.VaultConfig, key string) (vault.KV, *vault.Vault) {
	kv := hostKV(wasmhost.NewProcess().SharedData("mcp-privacy"))
	return kv, vault.New([]byte(key), cfg, kv, time.Now)
}

func TestVaultFileAcrossRestarts(t *testing.T) {
	for _, encrypt := range []bool{true, false} {
		t.Run(map[bool]string{true: "encrypted", false: "clear"}[encrypt], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "vault.json")
			cfg := fileVaultConfig(path, false, encrypt)
			var log bytes.Buffer

			// First run: no file yet.
			kv, vm := hostProcess(cfg, "k1")
			f, err := loadVaultFile(cfg, vaultEnv("k1"), kv, &log)
			if err != nil || f == nil {
				t.Fatalf("load without a file: %v, %v", f, err)
			}
			if err := saveVaultFile(f); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("an unchanged vault was saved (%v)", err)
			}
			p := vm.Pseudonymise("", "EMAIL", "alice@corp.com")
			if err := saveVaultFile(f); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
				t.Errorf("file mode %v, want 0600", st.Mode().Perm())
			}
			if got := bytes.Contains(data, []byte("alice@corp.com")); got == encrypt {
				t.Errorf("value in the file: %v (encrypt %v)", got, encrypt)
			}
			if warned := strings.Contains(log.String(), "in clear"); warned == encrypt {
				t.Errorf("clear-text warning %v (encrypt %v): %q", warned, encrypt, log.String())
			}
			// Nothing changed since: no rewrite.
			os.Remove(path)
			if err := saveVaultFile(f); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Error("saved again without a change")
			}
			vm.Pseudonymise("", "EMAIL", "bob@corp.com")
			if err := saveVaultFile(f); err != nil {
				t.Fatal(err)
			}

			// Second run: a new process loads the file before its VMs serve.
			kv2, vm2 := hostProcess(cfg, "k1")
			if _, err := loadVaultFile(cfg, vaultEnv("k1"), kv2, &log); err != nil {
				t.Fatal(err)
			}
			if got, ok := vm2.Resolve("", p); !ok || got != "alice@corp.com" {
				t.Errorf("after restart: %q, %v", got, ok)
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 {
				t.Errorf("temporary files left: %v", entries)
			}
		})
	}
}

func TestVaultFileAutosave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vault.json")
	for _, autosave := range []bool{true, false} {
		cfg := fileVaultConfig(path, autosave, true)
		os.Remove(path)
		kv, vm := hostProcess(cfg, "k1")
		f, err := loadVaultFile(cfg, vaultEnv("k1"), kv, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		// The VM's work for a request: issue a pseudonym, or resolve one.
		var work func()
		h := autosaveHandler(f, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { work() }))
		request := func(w func()) bool {
			os.Remove(path)
			work = w
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/mcp", nil))
			_, err := os.Stat(path)
			return err == nil
		}
		p := vm.Pseudonym("", "EMAIL", "a@corp.com")
		if saved := request(func() { vm.Pseudonymise("", "EMAIL", "a@corp.com") }); saved != autosave {
			t.Errorf("autosave %v: a request that issued a pseudonym saved: %v", autosave, saved)
		}
		if request(func() { vm.Pseudonymise("", "EMAIL", "a@corp.com") }) {
			t.Errorf("autosave %v: a request issuing a known pseudonym saved", autosave)
		}
		// A resolve refreshing a last use changes the table, but only the
		// save at shutdown writes that.
		later := vault.New([]byte("k1"), cfg, kv, func() time.Time { return time.Now().Add(10 * time.Minute) })
		if request(func() { later.Resolve("", p) }) {
			t.Errorf("autosave %v: a refresh was autosaved", autosave)
		}
		if err := saveVaultFile(f); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("autosave %v: the save at shutdown did not write the refresh", autosave)
		}
	}
}

func TestVaultFileRefusals(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "vault.json")
	cfg := fileVaultConfig(path, false, true)
	kv, vm := hostProcess(cfg, "k1")
	f, err := loadVaultFile(cfg, vaultEnv("k1"), kv, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	vm.Pseudonymise("", "EMAIL", "alice@corp.com")
	if err := saveVaultFile(f); err != nil {
		t.Fatal(err)
	}
	written, _ := os.ReadFile(path)

	// No path, and no key: nothing to persist, and nil does nothing.
	var log bytes.Buffer
	none, err := loadVaultFile(fileVaultConfig("", true, true), vaultEnv("k1"), kv, &log)
	if none != nil || err != nil || log.Len() != 0 {
		t.Errorf("no path: %v, %v, %q", none, err, log.String())
	}
	noKey, err := loadVaultFile(cfg, vaultEnv(""), kv, &log)
	if noKey != nil || err != nil || !strings.Contains(log.String(), "no vault key") || !strings.Contains(log.String(), testVaultEnv) {
		t.Errorf("no key: %v, %v, %q", noKey, err, log.String())
	}
	h := http.NotFoundHandler()
	if saveVaultFile(nil) != nil || autosaveHandler(nil, h) == nil {
		t.Error("a nil vault file must do nothing")
	}

	// Another key: serve must not start (it would overwrite the file).
	kv2, _ := hostProcess(cfg, "k2")
	_, err = loadVaultFile(cfg, vaultEnv("k2"), kv2, &log)
	if !errors.Is(err, vault.ErrFileKey) || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "k2") {
		t.Errorf("another key: %v", err)
	}
	// A damaged file.
	os.WriteFile(path, written[:len(written)/2], 0o600)
	if _, err := loadVaultFile(cfg, vaultEnv("k1"), kv2, &log); !errors.Is(err, vault.ErrFileInvalid) {
		t.Errorf("damaged file: %v", err)
	}
	// A file that cannot be read.
	if _, err := loadVaultFile(fileVaultConfig(dir, false, true), vaultEnv("k1"), kv2, &log); err == nil {
		t.Error("a directory loaded as a vault file")
	}
}
