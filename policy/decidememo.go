package policy

import (
	"encoding/binary"
	"hash/maphash"
	"sync"
)

// A decision depends on the policy, on what the primitive is (kind, name,
// category, tags, sensitivity, capabilities) and on what the policy reads
// of the caller: the roles its rules name, and the principal id when a
// rule matches principals. The plugin judges the same few primitives for
// the same few classes of caller over and over (every call, every item of
// every list), and a policy of thousands of rules costs a walk over all of
// them each time (Match): decisionMemo keeps the last decisions, keyed by
// exactly those inputs, so a repeated one costs a key and a lookup.
//
// The memo is bounded (memoSlots entries, each the key's bytes and a
// Decision without its primitive), direct-mapped (a new key takes its
// slot), and only for a policy that no longer changes: the plugin enables
// it once its configuration is built (EnableDecisionMemo). Hidden, which
// Decide sets after deciding, and the primitive, which a decision reports
// (a hidden resource's URI), are set per call, not memoised.
type decisionMemo struct {
	mu    sync.Mutex
	seed  maphash.Seed
	key   []byte // the key being built (under mu)
	slots []memoEntry
	// readsID: some rule matches principals by id, so the id is part of
	// the key (else every caller with the same roles decides alike).
	readsID bool
	// rolesIndexed: every role a rule names has a bit of roleBits, so a
	// caller's roles enter the key as that mask; else as the names.
	rolesIndexed bool
}

// memoSlots holds a 500-tool list's decisions for a few classes of
// caller: about 300 KB per VM.
const memoSlots = 2048

// memoEntry is a key and its decision; the key's buffer is reused by the
// next key of its slot, so a miss allocates nothing once slots are warm.
type memoEntry struct {
	key []byte
	d   Decision
}

// EnableDecisionMemo makes Decide remember its decisions (decisionMemo).
// Call it once, before the policy is shared, and never change the policy
// afterwards.
func (p *Policy) EnableDecisionMemo() {
	m := &decisionMemo{seed: maphash.MakeSeed(), slots: make([]memoEntry, memoSlots)}
	m.readsID, m.rolesIndexed = p.callerReads()
	p.memo = m
}

// MemoisesDecisions reports whether EnableDecisionMemo was called.
func (p *Policy) MemoisesDecisions() bool { return p.memo != nil }

// callerReads says what the policy reads of a caller: readsID, some rule
// matches principals by id; rolesIndexed, every role a rule names has a
// bit of roleBits (else a caller's roles count by name).
func (p *Policy) callerReads() (readsID, rolesIndexed bool) {
	rolesIndexed = true
	for _, r := range p.Rules {
		if r.Match.Principals != nil {
			readsID = true
		}
		if !r.Match.AnyRole && len(r.Match.Roles) > 0 && !r.roleMaskExact {
			rolesIndexed = false
		}
	}
	return readsID, rolesIndexed
}

// AppendCallerClass appends to dst what the policy reads of caller pr,
// so that two callers with the same bytes are judged alike everywhere
// (decisions, the pipelines their rules give): the id when a rule
// matches principals, and the roles (as the mask of the roles rules name,
// or by name). The plugin keys what it memoises per class of caller by
// it (a filtered list).
func (p *Policy) AppendCallerClass(dst []byte, pr *Principal) []byte {
	readsID, rolesIndexed := false, true
	if p.memo != nil {
		readsID, rolesIndexed = p.memo.readsID, p.memo.rolesIndexed
	} else {
		readsID, rolesIndexed = p.callerReads()
	}
	return p.appendCaller(dst, pr, readsID, rolesIndexed)
}

func (p *Policy) appendCaller(dst []byte, pr *Principal, readsID, rolesIndexed bool) []byte {
	if readsID {
		dst = appendField(dst, pr.ID)
	}
	if rolesIndexed {
		var roles uint64
		for _, role := range pr.Roles {
			roles |= p.roleBits[role]
		}
		return binary.LittleEndian.AppendUint64(dst, roles)
	}
	dst = binary.AppendUvarint(dst, uint64(len(pr.Roles)))
	for _, role := range pr.Roles {
		dst = appendField(dst, role)
	}
	return dst
}

// appendKey writes the memo key of (pr, x) to dst. Every field is
// length-prefixed or fixed-size, so no two inputs share a key.
func (m *decisionMemo) appendKey(dst []byte, p *Policy, pr *Principal, x *Primitive) []byte {
	dst = append(dst, byte(x.Kind), byte(x.EffectiveSensitivity()), byte(x.Capabilities))
	dst = appendField(dst, x.Name)
	dst = appendField(dst, x.Category)
	dst = binary.AppendUvarint(dst, uint64(len(x.Tags)))
	for _, t := range x.Tags {
		dst = appendField(dst, t)
	}
	return p.appendCaller(dst, pr, m.readsID, m.rolesIndexed)
}

func appendField(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// decide is Decide's decision through the memo, without its primitive
// (Decide sets it: a decision stored here never holds one, so no caller's
// primitive escapes to the heap for it).
func (m *decisionMemo) decide(p *Policy, pr *Principal, x *Primitive) Decision {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.key = m.appendKey(m.key[:0], p, pr, x)
	slot := &m.slots[maphash.Bytes(m.seed, m.key)%memoSlots]
	if slot.d.policy != nil && string(slot.key) == string(m.key) {
		return slot.d
	}
	// Deciding under the lock keeps key and slot together (natively,
	// where callers may run in parallel; the VM runs one).
	d := Decision{policy: p, Matched: p.Match(pr, x)}
	d.decideOn(x)
	slot.key = append(slot.key[:0], m.key...)
	slot.d = d
	return d
}
