// Command gennames writes the name table of the person detector
// (transforms/detect/names_table.bin) from the person names of the npm
// package @faker-js/faker (MIT; docs/RATIONALE.md) and the vocabulary in
// words.go.
//
//	go generate ./transforms/detect/   (runs: go run ./internal/gennames)
//
// It needs node and the package: -faker DIR (or $NAMES_FAKER_DIR) is a
// folder holding node_modules/@faker-js/faker; without one it installs
// fakerVersion into a temporary folder with npm.
//
// The table is every word of the given names and surnames of the locales
// below, folded and hashed as package nameword says, with flags: sorted
// 32-bit hashes, their 16-bit flags, and an index of the first entry per
// top 12 bits of hash (format in Table). The words themselves are not
// kept: the .wasm holds 6 bytes per word.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/transforms/detect/internal/nameword"
)

// fakerVersion is the version the committed table was made from.
const fakerVersion = "10.6.0"

// locales are faker's locales whose person names go into the table: the
// 16 locales the detector is measured on and their neighbours.
var locales = []string{
	"en", "en_AU", "en_IN", "en_ZA", "en_NG", "en_GH", "de", "de_AT", "de_CH", "fr", "fr_CH", "fr_BE", "es", "es_MX", "it", "nl", "nl_BE",
	"pt_BR", "pt_PT", "pl", "sv", "fi", "da", "nb_NO", "cs_CZ", "sk", "hr", "ro", "hu", "tr", "id_ID",
	"ja", "zh_CN", "zh_TW", "ko", "ru", "uk", "el", "ar", "he",
}

// pyFakerVersion is the version of Python's Faker (joke2k/faker, MIT;
// Debian's package python3-fake-factory) the committed table was made
// from: its person lists are another curation of the same locales,
// frequency lists in good part (the United States' thousand commonest
// surnames, Statistics Finland's, Spain's INE's), and hold many common
// names @faker-js/faker's lack (Baker, Sullivan, Aalto, Jansen).
const pyFakerVersion = "0.9.3"

// pyLocales are Python Faker's locales whose person names go into the
// table: those of the locales the detector is measured on and their
// nearest neighbours (its "en", the United States' 6,800 registered
// given names, rare ones included, is left out; so are the farther
// neighbours, for the .wasm's size).
var pyLocales = []string{
	"en_US", "en_GB", "de_DE", "de_AT", "de_CH", "fr_FR", "fr_CH", "es_ES", "es_MX", "it_IT", "nl_NL",
	"pt_BR", "pt_PT", "pl_PL", "sv_SE", "fi_FI", "dk_DK", "no_NO", "ja_JP", "zh_CN", "ko_KR",
	"hi_IN", "ar_SA", "he_IL", // scripts without case: names the tables know need no context
}

// pyDumpScript prints {locale: {given: [...], surname: [...]}} for the
// Python Faker locales given as arguments, from the package in the
// folder first on the path; it fails on another version.
const pyDumpScript = `
import sys, json, importlib
sys.path.insert(0, sys.argv[1])
import faker
if faker.VERSION != sys.argv[2]:
    sys.exit("faker is %s, not %s" % (faker.VERSION, sys.argv[2]))
def names(p, prefix):
    out = set()
    for k in dir(p):
        v = getattr(p, k)
        if k.startswith(prefix) and isinstance(v, (tuple, list, dict)):
            out.update(w for w in v if isinstance(w, str))
    return sorted(out)
out = {}
for l in sys.argv[3:]:
    p = importlib.import_module("faker.providers.person." + l).Provider
    out[l] = {"given": names(p, "first_names") + names(p, "middle_names"), "surname": names(p, "last_names")}
json.dump(out, sys.stdout)
`

// dumpScript prints {locale: {given: [...], surname: [...]}} for the
// locales given as arguments.
const dumpScript = `
import { allLocales } from '@faker-js/faker';
const flat = x => !x ? [] : Array.isArray(x) ? x : Object.values(x).flat();
const out = {};
for (const l of process.argv.slice(1)) {
  const p = (allLocales[l] || {}).person || {};
  const loc = (allLocales[l] || {}).location || {};
  const words = x => flat(x).filter(v => typeof v === 'string');
  // Street and place affixes that are words (not fragments of names).
  const co = (allLocales[l] || {}).company || {};
  const place = [].concat(words(loc.street_prefix), l.startsWith('fr') ? [] : words(loc.street_suffix),
    ['nl', 'sv'].includes(l) ? [] : words(loc.city_prefix), words(loc.city_suffix).filter(v => v.startsWith(' ') || l === 'it'),
    words(co.category), words(loc.city_suffix).filter(v => l === 'ja'));
  out[l] = { given: flat(p.first_name).concat(flat(p.middle_name)), surname: flat(p.last_name), place };
}
process.stdout.write(JSON.stringify(out));
`

func main() {
	fakerDir := flag.String("faker", os.Getenv("NAMES_FAKER_DIR"), "folder holding node_modules/@faker-js/faker (empty: npm install into a temporary folder)")
	pyDir := flag.String("pyfaker", pyFakerDefault(), "folder holding Python's faker package (apt-get install python3-fake-factory)")
	dict := flag.String("dict", englishWordsDefault(), "an English word list, one word a line (apt-get install wamerican)")
	out := flag.String("o", "names_table.bin", "the table to write")
	flag.Parse()
	dir := *fakerDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "gennames")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(tmp)
		cmd := exec.Command("npm", "install", "--no-save", "--prefix", tmp, "@faker-js/faker@"+fakerVersion)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			log.Fatalf("npm install @faker-js/faker@%s: %v", fakerVersion, err)
		}
		dir = tmp
	}
	names, err := Dump(dir)
	if err != nil {
		log.Fatal(err)
	}
	py, err := DumpPython(*pyDir)
	if err != nil {
		log.Fatal(err)
	}
	maps.Copy(names, py)
	english, err := EnglishWords(*dict)
	if err != nil {
		log.Fatal(err)
	}
	table, stats := Build(names, english)
	if err := os.WriteFile(*out, table, 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%s: %s", *out, stats)
}

// Names is the dataset: per locale, given names, surnames, and the
// words of street and place names (Ridge, Calleja, do Norte).
type Names map[string]struct{ Given, Surname, Place []string }

// Dump reads the person names of the locales from the faker package in
// dir with node.
func Dump(dir string) (Names, error) {
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@faker-js", "faker", "package.json")); err != nil {
		return nil, fmt.Errorf("no @faker-js/faker in %s: %w", dir, err)
	}
	cmd := exec.Command("node", append([]string{"--input-type=module", "-e", dumpScript, "--"}, locales...)...)
	cmd.Dir = dir
	return runDump(cmd, "")
}

// runDump runs a dump script and reads what it prints, {locale: {given,
// surname, place}}, each locale keyed prefix + locale.
func runDump(cmd *exec.Cmd, prefix string) (Names, error) {
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd.Path, err)
	}
	var raw map[string]struct {
		Given   []string `json:"given"`
		Surname []string `json:"surname"`
		Place   []string `json:"place"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	n := Names{}
	for l, v := range raw {
		n[prefix+l] = struct{ Given, Surname, Place []string }{v.Given, v.Surname, v.Place}
	}
	return n, nil
}

// pyFakerDefault is $NAMES_PYFAKER_DIR, else where Debian's package
// puts it.
func pyFakerDefault() string {
	if d := os.Getenv("NAMES_PYFAKER_DIR"); d != "" {
		return d
	}
	return "/usr/lib/python3/dist-packages"
}

// englishWordsDefault is $NAMES_ENGLISH_WORDS, else Debian's wamerican
// list.
func englishWordsDefault() string {
	if f := os.Getenv("NAMES_ENGLISH_WORDS"); f != "" {
		return f
	}
	return "/usr/share/dict/american-english"
}

// EnglishWords reads the words written in lower case of the word list
// in file (Debian's wamerican: SCOWL, free to use, copy and change).
func EnglishWords(file string) (map[string]bool, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("the English words (apt-get install wamerican): %w", err)
	}
	words := map[string]bool{}
	for _, w := range strings.Fields(string(b)) {
		if w == strings.ToLower(w) {
			words[w] = true
		}
	}
	return words, nil
}

// DumpPython reads the person names of pyLocales from Python's faker
// package in dir with python3; the locales are keyed "py:" + locale.
func DumpPython(dir string) (Names, error) {
	if _, err := os.Stat(filepath.Join(dir, "faker", "providers", "person")); err != nil {
		return nil, fmt.Errorf("no Python faker in %s (apt-get install python3-fake-factory): %w", dir, err)
	}
	cmd := exec.Command("python3", append([]string{"-c", pyDumpScript, dir, pyFakerVersion}, pyLocales...)...)
	names, err := runDump(cmd, "py:")
	if zh, ok := names["py:zh_CN"]; ok {
		// Its one-character given names are common words as often as
		// names (平, 华: 和平 peace, 金华 a city); @faker-js/faker's
		// shorter list of them stays.
		zh.Given = slices.DeleteFunc(zh.Given, func(g string) bool { return utf8.RuneCountInString(g) < 2 })
		names["py:zh_CN"] = zh
	}
	return names, err
}

// Build makes the table: little-endian uint32 n, n sorted uint32 hashes,
// n uint16 flags, then 4097 uint16: the index of the first entry whose
// hash's top 12 bits are k, for k = 0…4096; then 1024 uint64: bit
// r&0xffff set for the first character r of a CJK surname.
//
// english is a list of English words: a name of Python Faker's only that
// is one (Room, Post and Branch are Dutch and American surnames) is
// Common, a name only in context, as the hand-written common words are.
// The names of @faker-js/faker keep the flags they had before Python
// Faker was added (its English names that are words are in words.go).
func Build(names Names, english map[string]bool) ([]byte, string) {
	flags := map[uint32]uint16{}
	words := map[uint32]string{}
	collisions := 0
	add := func(w string, f uint16) {
		w = strings.TrimSpace(w)
		if w == "" {
			return
		}
		h := nameword.Hash(w)
		if prev, ok := words[h]; ok && fold(prev) != fold(w) {
			collisions++
		}
		words[h] = w
		flags[h] |= f
	}
	particle := map[string]bool{}
	for _, p := range particles {
		particle[p] = true
	}
	// Names: each word of a multi-word or hyphenated name on its own,
	// particles left to the particle list.
	isName := map[uint32]bool{}
	all := append([]string{}, locales...)
	for _, l := range pyLocales {
		all = append(all, "py:"+l)
	}
	jsName := map[uint32]bool{}
	for _, l := range all {
		py := strings.HasPrefix(l, "py:")
		for k, list := range [2][]string{names[l].Given, names[l].Surname} {
			f := nameword.Given
			if k == 1 {
				f = nameword.Surname
			}
			for _, name := range list {
				for _, w := range strings.FieldsFunc(name, func(r rune) bool { return r == ' ' || r == '-' }) {
					if particle[strings.ToLower(w)] && !startsUpper(w) {
						continue
					}
					if !validWord(w) {
						continue
					}
					h := nameword.Hash(w)
					if py && !jsName[h] && english[strings.ToLower(w)] {
						add(w, f|nameword.Common)
					} else {
						add(w, f)
					}
					isName[h] = true
					if !py {
						jsName[h] = true
					}
				}
			}
		}
	}
	for k, list := range [6][]string{romanisedGiven, romanisedSurnames, kanjiGiven, kanjiSurnames, devanagariGiven, devanagariSurnames} {
		f := nameword.Given
		if k%2 == 1 {
			f = nameword.Surname
		}
		for _, name := range list {
			for _, w := range strings.FieldsFunc(name, func(r rune) bool { return r == ' ' || r == '-' }) {
				add(w, f)
				isName[nameword.Hash(w)] = true
			}
			if strings.Contains(name, "-") {
				add(name, f) // Min-jun read whole, too
			}
		}
	}
	// Common words: a name that is one in English (the language of most
	// headings written in Title Case) or German (which capitalises its
	// nouns, and whose sentences open with Im, Am, An: Im Mai beginnt…)
	// is Common, and so is a month's name in any language (Från Maj,
	// Desde Abril); the other common words of the other languages that
	// are names stay names (they are capitalised only at a sentence's
	// start), the words that are no names are Stop.
	for lang, ws := range common {
		for _, w := range ws {
			switch {
			case !isName[nameword.Hash(w)]:
				add(w, nameword.Stop)
			case lang == "en" || lang == "de":
				add(w, nameword.Common)
			}
		}
	}
	for _, w := range monthNames {
		if isName[nameword.Hash(w)] {
			add(w, nameword.Common)
		}
	}
	honorific := map[uint32]bool{}
	for _, w := range honorifics {
		honorific[nameword.Hash(w)] = true
	}
	// Street and place words of the dataset that are no names: Org.
	for _, l := range locales {
		for _, pl := range names[l].Place {
			for _, w := range strings.Fields(pl) {
				if validWord(w) && (utf8.RuneCountInString(w) > 2 || isCJKWord(w)) && !isName[nameword.Hash(w)] && !particle[strings.ToLower(w)] && !honorific[nameword.Hash(w)] {
					add(w, nameword.Org)
				}
			}
		}
	}
	// Company forms written in capitals (AG, SA, IS, eG) are Org only so
	// written: "is", "as", "sa" are words.
	for _, w := range companyWords {
		if abbreviation(w) {
			add(w, nameword.OrgCase|nameword.Company)
		} else {
			add(w, nameword.Org|nameword.Company)
		}
	}
	for _, w := range orgWords {
		if abbreviation(w) {
			add(w, nameword.OrgCase)
		}
	}
	for _, set := range []struct {
		words []string
		f     uint16
	}{{honorifics, nameword.Honorific}, {greetings, nameword.Greeting}, {closings, nameword.Closing}, {orgWords, nameword.Org},
		{particles, nameword.Particle}, {labels, nameword.Label}, {suffixes, nameword.Suffix}, {streetsBefore, nameword.Org | nameword.StreetBefore},
		{verbs, nameword.Verb}} {
		for _, w := range set.words {
			if set.f == nameword.Org && abbreviation(w) {
				continue
			}
			add(w, set.f)
		}
	}
	// Words the name lists also hold that are no names whatever they say:
	// place prefixes that are rare given names (Quarto Maria, Settimo
	// Lisandro: Italian towns named after a saint; תל אביב), a place; and
	// prepositions of scripts without case (אל דוד כהן is "to David
	// Cohen"), a stop word.
	for _, set := range []struct {
		words []string
		f     uint16
	}{{placePrefixes, nameword.Org}, {functionWords, nameword.Stop}} {
		for _, w := range set.words {
			h := nameword.Hash(w)
			flags[h] = flags[h]&^(nameword.Given|nameword.Surname|nameword.Common) | set.f
			words[h] = w
		}
	}
	// Brands: the hash of both words with the space between them.
	for _, b := range brands {
		add(b, nameword.Brand)
	}
	keys := make([]uint32, 0, len(flags))
	for h := range flags {
		keys = append(keys, h)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	var buf bytes.Buffer
	binary.Write(&buf, binary.LittleEndian, uint32(len(keys)))
	binary.Write(&buf, binary.LittleEndian, keys)
	for _, h := range keys {
		binary.Write(&buf, binary.LittleEndian, flags[h])
	}
	k := 0
	for b := 0; b <= 4096; b++ {
		for k < len(keys) && int(keys[k]>>20) < b {
			k++
		}
		binary.Write(&buf, binary.LittleEndian, uint16(k))
	}
	// The first characters of the CJK surnames, bit r&0xffff: most Han
	// and Hangul characters start none, and are passed after one test.
	var cjkFirst [1 << 16 / 64]uint64
	for h, w := range words {
		if r, _ := utf8.DecodeRuneInString(w); r >= 0x3040 && flags[h]&nameword.Surname != 0 {
			cjkFirst[(r&0xffff)>>6] |= 1 << (r & 63)
		}
	}
	binary.Write(&buf, binary.LittleEndian, cjkFirst)
	// The English words that are no names of the tables, as a Bloom
	// filter of ten bits a word (nameword.BloomBit).
	var plain []uint32
	for w := range english {
		if h := nameword.Hash(w); utf8.RuneCountInString(w) >= 3 && !strings.ContainsAny(w, "'’") && flags[h]&(nameword.Given|nameword.Surname) == 0 {
			plain = append(plain, h)
		}
	}
	m := uint32(len(plain)*10+7) &^ 7
	bloom := make([]byte, m/8)
	for _, h := range plain {
		for i := 0; i < nameword.BloomK; i++ {
			b := nameword.BloomBit(h, m, i)
			bloom[b>>3] |= 1 << (b & 7)
		}
	}
	binary.Write(&buf, binary.LittleEndian, m)
	buf.Write(bloom)
	if len(keys) >= 1<<16 {
		log.Fatal("gennames: more than 65535 words: the index needs wider entries")
	}
	return buf.Bytes(), fmt.Sprintf("%d words, %d bytes, %d hash collisions between different words", len(keys), buf.Len(), collisions)
}

// suffixes follow a name in Japanese, Chinese and Korean.
var suffixes = []string{"さん", "様", "さま", "氏", "殿", "先生", "君", "くん", "ちゃん", "先輩", "教授", "博士", "社長", "部長", "課长", "課長", "女士", "小姐", "老师", "老師", "经理", "經理", "님", "씨", "선생님"}

// abbreviation: a company form of two capitals or more, or mixed case
// (GmbH, SpA, eG).
func abbreviation(w string) bool {
	upper, lower := 0, 0
	for _, r := range w {
		if unicode.IsUpper(r) {
			upper++
		} else {
			lower++
		}
	}
	return upper >= 2 || upper == 1 && !startsUpper(w) || len(w) <= 3 && upper == len(w)
}

func isCJKWord(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return r >= 0x3040
}

func startsUpper(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// validWord: letters (and an inner apostrophe or dot) only.
func validWord(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) && r != '\'' && r != '’' && !unicode.IsMark(r) {
			return false
		}
	}
	return true
}

func fold(w string) string {
	var b strings.Builder
	for _, r := range w {
		if r == '\'' || r == '’' || r == '.' || nameword.IgnoredMark(r) {
			continue // as nameword.Hash
		}
		b.WriteRune(nameword.Fold(r))
	}
	return b.String()
}
