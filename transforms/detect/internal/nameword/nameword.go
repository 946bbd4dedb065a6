// Package nameword is what the person detector (package detect, names.go)
// and the generator of its name table (internal/gennames) must agree on:
// how a word is folded and hashed, and what the flags of a table entry
// mean. It knows nothing of the dataset or of text.
package nameword

import "unicode"

// The flags of a word in the table: the name tables it is in, and the
// vocabulary of context around names (written by hand in gennames).
const (
	Given        uint16 = 1 << iota // a given name in some locale
	Surname                         // a family name in some locale
	Common                          // also a common word, place or brand: a name only in context
	Stop                            // a common word that is no name: never part of one
	Honorific                       // Mr, Frau, Mme, Sr., Dhr. …: a name follows
	Greeting                        // Dear, Hi, Hallo, Bonjour …: a name may follow
	Closing                         // regards, Grüßen, cordialement …: a signature follows
	Org                             // GmbH, Inc, Street, Straße, Hotel …: next to it, no person
	Particle                        // van, de, da, von, zu … inside a name
	Label                           // customer, patient, Kunde … before a name
	Suffix                          // さん 様 氏 先生 님 씨 …: after a name (CJK)
	OrgCase                         // AG, SA, IS, eG …: Org only when written with two capitals or more
	StreetBefore                    // rue, via, calle …: a street's name follows, even written in lower case
	Company                         // Inc, GmbH, SARL, Ltda …: a company form, whatever else the word is
	Brand                           // (the hash of two words) a company, brand or place named after a person: Calvin Klein
	Verb                            // said, möchte, ringde, soitti …: after a name, its speaker's verb
)

// Fold is the rune a name's rune r is compared as: lower case, and the
// Latin letters with diacritics as their base letter (Müller, Muller and
// MÜLLER are one word).
func Fold(r rune) rune {
	switch {
	case r < 0x80:
		if 'A' <= r && r <= 'Z' {
			return r + 32
		}
		return r
	case r < 0x250:
		if f := latinFold[r-0x80]; f != 0 {
			return rune(f)
		}
		return r
	case r >= 0x410 && r <= 0x42f: // Cyrillic capitals
		return r + 32
	case r >= 0x3040 && r < 0xa000: // kana, CJK: no case
		return r
	}
	return unicode.ToLower(r)
}

// Mix adds the folded rune f to the hash h (FNV-1a over runes); a word's
// hash starts at Offset.
func Mix(h uint32, f rune) uint32 {
	return (h ^ uint32(f)) * 16777619
}

// Offset is the hash of the empty word.
const Offset uint32 = 2166136261

// Hash is the hash of word w, folded rune by rune; apostrophes and dots
// are skipped (O'Brien is obrien, Dr. is dr).
func Hash(w string) uint32 {
	h := Offset
	for _, r := range w {
		if r == '\'' || r == '’' || r == '.' || IgnoredMark(r) {
			continue // the detector's reader skips them too
		}
		h = Mix(h, Fold(r))
	}
	return h
}

// IgnoredMark reports whether r is a mark a word is compared without, as
// the reader view deletes it: a combining accent (a decomposed é is e),
// an optional vowel point of Hebrew or Arabic. An abugida's vowel signs
// spell their word (VowelSign), and count: कौल is not कल.
func IgnoredMark(r rune) bool {
	return r >= 0x300 && !Abugida(r) && unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me)
}

// VowelSign reports whether r is a mark of an abugida: a vowel sign,
// virama or nasal sign, visible and part of how its word is spelt, which
// the reader view keeps on a letter of its script.
func VowelSign(r rune) bool {
	return Abugida(r) && unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me)
}

// Abugida reports whether r is of the blocks of an abugida's script (the
// Indic scripts, Sinhala, Thai, Lao, Tibetan, Myanmar, Khmer): a letter
// or a sign of one.
func Abugida(r rune) bool {
	return r >= 0x900 && r < 0x10a0 || r >= 0x1780 && r < 0x1800
}

// latinFold maps U+0080–U+024F to a base lower-case ASCII letter (0: keep).
var latinFold = func() (t [0x250 - 0x80]uint8) {
	groups := []struct {
		base  byte
		runes string
	}{
		{'a', "ÀÁÂÃÄÅàáâãäåĀāĂăĄąǍǎ"},
		{'c', "ÇçĆćĈĉĊċČč"},
		{'d', "ĎďĐđ"},
		{'e', "ÈÉÊËèéêëĒēĔĕĖėĘęĚě"},
		{'g', "ĜĝĞğĠġĢģ"},
		{'h', "ĤĥĦħ"},
		{'i', "ÌÍÎÏìíîïĨĩĪīĬĭĮįİı"},
		{'j', "Ĵĵ"},
		{'k', "Ķķ"},
		{'l', "ĹĺĻļĽľĿŀŁł"},
		{'n', "ÑñŃńŅņŇň"},
		{'o', "ÒÓÔÕÖØòóôõöøŌōŎŏŐő"},
		{'r', "ŔŕŖŗŘř"},
		{'s', "ŚśŜŝŞşŠšȘș"},
		{'t', "ŢţŤťŦŧȚț"},
		{'u', "ÙÚÛÜùúûüŨũŪūŬŭŮůŰűŲų"},
		{'w', "Ŵŵ"},
		{'y', "ÝýÿŶŷŸ"},
		{'z', "ŹźŻżŽž"},
	}
	for _, g := range groups {
		for _, r := range g.runes {
			t[r-0x80] = g.base
		}
	}
	return t
}()

// The English words' filter (a Bloom filter) after the name table: a
// capitalised word the tables do not know, after a given name, is no
// surname when it is an English word (Art Director, Iris Scanner). A word
// with hash h sets BloomK bits of the filter's m, BloomBit(h, m, i) for i
// below BloomK: about 1% of other words read as English at 10 bits a word.
const BloomK = 7

// BloomBit is the i-th bit of the word with hash h in a filter of m bits.
func BloomBit(h, m uint32, i int) uint32 {
	x := h + uint32(i)*((h*0x9e3779b1)^(h>>15)|1)
	x ^= x >> 16
	x *= 0x85ebca6b
	x ^= x >> 13
	return uint32(uint64(x) * uint64(m) >> 32)
}
