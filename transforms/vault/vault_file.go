package vault

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/policy"
)

// The vault file (vault.path, manual 13) is written and read by the host,
// which has a filesystem (the CLI, `mcp-privacy serve`); the plugin in its
// VM never touches it. It is JSON:
//
//	{"format": "mcp-privacy vault", "version": 1,
//	 "key_fingerprint": "<policy.KeyFingerprint of the vault key>",
//	 "encrypted": true,
//	 "sealed": "<base64: AES-256-GCM nonce ‖ ciphertext of the records>"}
//
// With encrypted, the records (a JSON array, as below) are sealed with an
// HKDF subkey of the vault key ("mcp-privacy vault file v1"), the header
// fields as additional data: the whole list is authenticated, so records
// cannot be dropped, added or edited. With encrypted false (vault.encrypt:
// false) the file holds the personal data in clear, readable by anyone
// who can read the file:
//
//	"records": [{"namespace": "alice", "pseudonym": "EMAIL_…",
//	             "value": "alice@example.com",
//	             "last_use": "2025-01-02T03:04:05.678Z"}]
//
// A namespace or value that is not valid UTF-8 is written base64-encoded as
// namespace_base64 or value_base64 instead. Either way Import checks every
// record's pseudonym against its value under the importing key, so a file
// only loads into the vault whose key wrote it.
const (
	vaultFileFormat  = "mcp-privacy vault"
	vaultFileVersion = 1
	lastUseLayout    = "2006-01-02T15:04:05.000Z07:00"
)

// Errors of Import; the messages carry positions and fingerprints, never
// values.
var (
	// ErrFileKey: the file was written with another vault key.
	ErrFileKey = errors.New("vault file was written with another vault key")
	// ErrFileInvalid: not a vault file, or modified or damaged.
	ErrFileInvalid = errors.New("invalid vault file")
)

type vaultFile struct {
	Format         string        `json:"format"`
	Version        int           `json:"version"`
	KeyFingerprint string        `json:"key_fingerprint"`
	Encrypted      bool          `json:"encrypted"`
	Sealed         []byte        `json:"sealed,omitempty"`
	Records        []vaultRecord `json:"records,omitempty"`
}

type vaultRecord struct {
	Namespace       string `json:"namespace,omitempty"`
	NamespaceBase64 []byte `json:"namespace_base64,omitempty"`
	Pseudonym       string `json:"pseudonym"`
	Value           string `json:"value,omitempty"`
	ValueBase64     []byte `json:"value_base64,omitempty"`
	LastUse         string `json:"last_use"`
}

// Export writes every live mapping of the table as a vault file, sealed
// when encrypt (vault.encrypt), else in clear.
func (v *Vault) Export(w io.Writer, encrypt bool) error {
	v.mu.Lock()
	es := v.entries()
	v.mu.Unlock()
	records := make([]vaultRecord, len(es))
	for i, e := range es {
		r := vaultRecord{Pseudonym: e.pseudonym, LastUse: e.lastUse.UTC().Format(lastUseLayout)}
		r.Namespace, r.NamespaceBase64 = textOrBytes(e.ns)
		r.Value, r.ValueBase64 = textOrBytes(e.value)
		records[i] = r
	}
	f := vaultFile{Format: vaultFileFormat, Version: vaultFileVersion, KeyFingerprint: v.keyFP, Encrypted: encrypt}
	if encrypt {
		plain, err := json.Marshal(records)
		if err != nil {
			return fmt.Errorf("vault file: encoding records: %w", err)
		}
		f.Sealed, err = v.fileBox.seal(plain, fileAAD(f))
		clear(plain)
		if err != nil {
			return fmt.Errorf("vault file: no randomness for a nonce: %w", err)
		}
	} else {
		f.Records = records
	}
	out, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return fmt.Errorf("vault file: encoding: %w", err)
	}
	if _, err := w.Write(append(out, '\n')); err != nil {
		return fmt.Errorf("vault file: %w", err)
	}
	return nil
}

// entries reads every slot and returns the live mappings, one per
// (namespace, pseudonym), least recently used first.
func (v *Vault) entries() []entry {
	now := v.now()
	type id struct{ ns, p string }
	at := map[id]int{}
	var es []entry
	for i := 0; i < v.slots; i++ {
		key := v.slotKey(i)
		raw, _, ok := v.kv.Get(key)
		if !ok {
			continue
		}
		o, ok := v.open(key, raw)
		if !ok || v.expired(o.lastUse, now) {
			continue
		}
		e := o.entry()
		k := id{e.ns, e.pseudonym}
		if j, dup := at[k]; dup {
			if e.lastUse.After(es[j].lastUse) {
				es[j] = e
			}
			continue
		}
		at[k] = len(es)
		es = append(es, e)
	}
	sort.Slice(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if !a.lastUse.Equal(b.lastUse) {
			return a.lastUse.Before(b.lastUse)
		}
		if a.ns != b.ns {
			return a.ns < b.ns
		}
		return a.pseudonym < b.pseudonym
	})
	return es
}

// Import reads a vault file written by Export with the same vault key and
// stores its mappings that have not expired (a mapping the table already
// holds keeps the later last use). Under scope global, mappings of other
// namespaces are skipped: they could never resolve. Nothing is stored
// unless the whole file is valid.
func (v *Vault) Import(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("vault file: %w", err)
	}
	var f vaultFile
	if err := json.Unmarshal(data, &f); err != nil {
		return jsonError(err)
	}
	switch {
	case f.Format != vaultFileFormat:
		return fmt.Errorf("%w: format is not %q", ErrFileInvalid, vaultFileFormat)
	case f.Version != vaultFileVersion:
		return fmt.Errorf("%w: version %d, this build reads version %d", ErrFileInvalid, f.Version, vaultFileVersion)
	case f.KeyFingerprint != v.keyFP:
		fp := f.KeyFingerprint
		if len(fp) != len(v.keyFP) || !isHex(fp) {
			fp = "missing or malformed"
		}
		return fmt.Errorf("%w: the file's key fingerprint is %s, this key's is %s", ErrFileKey, fp, v.keyFP)
	case f.Encrypted && f.Records != nil:
		return fmt.Errorf("%w: encrypted, but the records are in clear", ErrFileInvalid)
	case !f.Encrypted && f.Sealed != nil:
		return fmt.Errorf("%w: not encrypted, but the records are sealed", ErrFileInvalid)
	}
	records := f.Records
	if f.Encrypted {
		plain, err := v.fileBox.open(nil, f.Sealed, fileAAD(f))
		if err != nil {
			return fmt.Errorf("%w: the sealed records do not authenticate under this key (modified or damaged)", ErrFileInvalid)
		}
		err = json.Unmarshal(plain, &records)
		clear(plain)
		if err != nil {
			return jsonError(err)
		}
	}
	es := make([]entry, 0, len(records))
	for i, rec := range records {
		e, err := v.recordEntry(rec)
		if err != nil {
			return fmt.Errorf("%w: record %d: %s", ErrFileInvalid, i, err)
		}
		es = append(es, e)
	}
	sort.SliceStable(es, func(i, j int) bool { return es[i].lastUse.Before(es[j].lastUse) })

	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.now()
	for _, e := range es {
		if v.expired(e.lastUse, now) || v.scope == policy.VaultGlobal && e.ns != "" {
			continue
		}
		// Oldest first, so when the file holds more than the table keeps,
		// the most recently used mappings are the ones that stay.
		use := e.lastUse
		if use.After(now) { // written by a host whose clock ran ahead
			use = now
		}
		v.store(v.hashSlot(e.ns, e.pseudonym), e.ns, e.pseudonym, e.value, now, use, true)
	}
	return nil
}

// recordEntry checks one record: a well-formed pseudonym that is the
// pseudonym of its value under this key, and a valid last use.
func (v *Vault) recordEntry(r vaultRecord) (entry, error) {
	e := entry{ns: r.Namespace, pseudonym: r.Pseudonym, value: r.Value}
	if r.NamespaceBase64 != nil {
		e.ns = string(r.NamespaceBase64)
	}
	if r.ValueBase64 != nil {
		e.value = string(r.ValueBase64)
	}
	if !isStoredPseudonym(e.pseudonym) {
		return e, errors.New("pseudonym is not LABEL_ and a token")
	}
	label := e.pseudonym[:len(e.pseudonym)-TokenLen-1]
	if v.pseudo.Pseudonym(e.ns, label, e.value) != e.pseudonym {
		return e, errors.New("pseudonym is not its value's under this key")
	}
	t, err := time.Parse(time.RFC3339Nano, r.LastUse)
	if err != nil {
		return e, errors.New("last_use is not an RFC 3339 time")
	}
	e.lastUse = time.UnixMilli(t.UnixMilli())
	return e, nil
}

// fileAAD binds the sealed records to the header.
func fileAAD(f vaultFile) []byte {
	return fmt.Appendf(nil, "%s|%d|%s", f.Format, f.Version, f.KeyFingerprint)
}

func textOrBytes(s string) (string, []byte) {
	if utf8.ValidString(s) {
		return s, nil
	}
	return "", []byte(s)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// jsonError describes a decoding error by position and field, without the
// text it failed on (which may be personal data).
func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("%w: not JSON (at byte %d)", ErrFileInvalid, syn.Offset)
	case errors.As(err, &typ):
		return fmt.Errorf("%w: %s is not a JSON %s", ErrFileInvalid, typ.Field, typ.Type)
	}
	return fmt.Errorf("%w: not a vault file", ErrFileInvalid)
}
