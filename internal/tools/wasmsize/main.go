// Command wasmsize lists what a Go wasm module is made of: the size of each
// section, and the code of each Go package (function bodies, named by the
// module's name section), biggest first. go tool nm does not read wasm;
// the code section is most of a Go module and its functions are named, so
// this is the listing that says which package to drop. The data section
// (type descriptors, strings, the function table Go's runtime needs for
// tracebacks) has no names in wasm and is given as one figure.
//
//	make wasm-size   (go run ./internal/tools/wasmsize build/mcp-privacy.names.wasm)
//
// Why a package is linked in at all: the linker's dependency graph names
// the caller of each reachable symbol, for instance
//
//	WASM_LDFLAGS=-dumpdep bash scripts/build-wasm.sh build/dep.wasm 2>&1 | grep -- '-> github.com/tidwall/pretty\.'
//
// (gjson's @pretty modifier, in its modifier table, keeps tidwall/pretty
// and through it encoding/json's reflection-based Unmarshal).
package main

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
)

func main() {
	top := flag.Int("top", 40, "packages to print (0: all)")
	mainPkg := flag.String("pkg", "./plugin", "the main package the module was built from (go list -deps names its packages)")
	funcs := flag.Int("funcs", 0, "also print the biggest functions")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: wasmsize [-top N] [-funcs N] [-pkg PACKAGE] MODULE.wasm")
		os.Exit(2)
	}
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fail(err)
	}
	m, err := parse(data)
	if err != nil {
		fail(fmt.Errorf("%s: %w", flag.Arg(0), err))
	}
	fmt.Printf("%s: %d bytes\n\nsections:\n", flag.Arg(0), len(data))
	for _, s := range m.sections {
		fmt.Printf("  %-24s %9d  %5.1f%%\n", s.name, s.size, pct(s.size, len(data)))
	}
	paths, err := goListDeps(*mainPkg)
	if err != nil {
		fail(err)
	}
	pkgOf := packageNamer(paths)
	code := 0
	byPkg := map[string]int{}
	for _, f := range m.funcs {
		code += f.size
		byPkg[pkgOf(f.name)] += f.size
	}
	type row struct {
		name string
		size int
	}
	var pkgs []row
	for p, n := range byPkg {
		pkgs = append(pkgs, row{p, n})
	}
	slices.SortFunc(pkgs, func(a, b row) int { return cmp.Or(b.size-a.size, strings.Compare(a.name, b.name)) })
	if *top > 0 && len(pkgs) > *top {
		pkgs = pkgs[:*top]
	}
	fmt.Printf("\ncode by package (%d functions, %d bytes of bodies):\n", len(m.funcs), code)
	for _, p := range pkgs {
		fmt.Printf("  %9d  %5.1f%%  %s\n", p.size, pct(p.size, code), p.name)
	}
	if *funcs > 0 {
		fs := slices.Clone(m.funcs)
		slices.SortFunc(fs, func(a, b function) int { return b.size - a.size })
		fmt.Printf("\nbiggest functions:\n")
		for _, f := range fs[:min(*funcs, len(fs))] {
			fmt.Printf("  %9d  %s\n", f.size, f.name)
		}
	}
}

func pct(n, of int) float64 { return 100 * float64(n) / float64(max(of, 1)) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "wasmsize:", err)
	os.Exit(1)
}

// goListDeps lists the import paths of main and its dependencies as
// built for wasip1, main last.
func goListDeps(main string) ([]string, error) {
	list := exec.Command("go", "list", "-deps", main)
	list.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOFLAGS=", "GOWORK=off")
	list.Stderr = os.Stderr
	out, err := list.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps %s: %w", main, err)
	}
	return strings.Fields(string(out)), nil
}

// packageNamer returns a function from a function's name in the module to
// its package's import path, given the import paths of the program (main
// last). The linker writes a Go symbol name with every character other
// than letters, digits, '_' and '.' replaced by '_'
// (cmd/link/internal/wasm), so "github.com/x/y-z.(*T).M" is named
// "github.com_x_y_z.__T_.M", and a path's first element may itself hold
// dots: names are matched against the mangled import paths, longest first.
func packageNamer(paths []string) func(string) string {
	mangle := regexp.MustCompile(`[^\w.]`)
	byMangled := map[string]string{}
	var mangled []string
	for _, path := range paths {
		m := mangle.ReplaceAllString(path, "_")
		byMangled[m] = path
		mangled = append(mangled, m)
	}
	if len(paths) > 0 { // the main package's symbols are named main.*
		byMangled["main"] = paths[len(paths)-1]
		mangled = append(mangled, "main")
	}
	slices.SortFunc(mangled, func(a, b string) int { return len(b) - len(a) })
	return func(name string) string {
		if strings.HasPrefix(name, "type_.") {
			return "type: (generated equality and hash functions)"
		}
		for _, m := range mangled {
			if strings.HasPrefix(name, m) && len(name) > len(m) && name[len(m)] == '.' {
				return byMangled[m]
			}
		}
		if i := strings.IndexByte(name, '.'); i >= 0 {
			return name[:i] + " (not a listed package)"
		}
		return name
	}
}

type section struct {
	name string
	size int
}

type function struct {
	name string
	size int
}

type module struct {
	sections []section
	funcs    []function // defined functions, in index order
}

var sectionNames = [...]string{"custom", "type", "import", "function", "table", "memory", "global", "export", "start", "element", "code", "data", "data count"}

// parse reads the sections, the code section's body sizes and the name
// section's function names of a wasm binary.
func parse(b []byte) (*module, error) {
	if !bytes.HasPrefix(b, []byte("\x00asm\x01\x00\x00\x00")) {
		return nil, errors.New("not a wasm module (version 1)")
	}
	r := reader{b: b, off: 8}
	m := &module{}
	imported := 0 // imported functions come first in the function index space
	names := map[int]string{}
	for r.off < len(r.b) {
		id := r.byte()
		size := int(r.uleb())
		start := r.off
		if r.err != nil || start+size > len(b) {
			return nil, errors.New("truncated section")
		}
		body := reader{b: b[:start+size], off: start}
		name := "unknown"
		if int(id) < len(sectionNames) {
			name = sectionNames[id]
		}
		switch id {
		case 0:
			cname := body.name()
			name = "custom " + cname
			if cname == "name" {
				readFunctionNames(&body, names)
			}
		case 2:
			for n := body.uleb(); n > 0 && body.err == nil; n-- {
				body.name()
				body.name()
				kind := body.byte()
				switch kind {
				case 0: // function: type index
					body.uleb()
					imported++
				case 1: // table: reftype, limits
					body.byte()
					body.limits()
				case 2: // memory: limits
					body.limits()
				case 3: // global: valtype, mutability
					body.byte()
					body.byte()
				default:
					return nil, fmt.Errorf("import kind %d", kind)
				}
			}
		case 10:
			for n := body.uleb(); n > 0 && body.err == nil; n-- {
				fsize := int(body.uleb())
				m.funcs = append(m.funcs, function{size: fsize})
				body.off += fsize
			}
		}
		if body.err != nil {
			return nil, fmt.Errorf("section %s: %w", name, body.err)
		}
		m.sections = append(m.sections, section{name, size + 1 + ulebLen(uint64(size))})
		r.off = start + size
	}
	for i := range m.funcs {
		if n, ok := names[imported+i]; ok {
			m.funcs[i].name = n
		} else {
			m.funcs[i].name = fmt.Sprintf("func[%d]", imported+i)
		}
	}
	return m, nil
}

// readFunctionNames reads subsection 1 (function names) of a name section.
func readFunctionNames(r *reader, names map[int]string) {
	for r.off < len(r.b) && r.err == nil {
		kind := r.byte()
		size := int(r.uleb())
		end := r.off + size
		if kind == 1 {
			for n := r.uleb(); n > 0 && r.err == nil; n-- {
				idx := int(r.uleb())
				names[idx] = r.name()
			}
		}
		r.off = end
	}
}

type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) byte() byte {
	if r.off >= len(r.b) {
		r.err = errors.New("unexpected end")
		return 0
	}
	c := r.b[r.off]
	r.off++
	return c
}

func (r *reader) uleb() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c := r.byte()
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	r.err = errors.New("bad LEB128")
	return 0
}

func (r *reader) name() string {
	n := int(r.uleb())
	if r.off+n > len(r.b) {
		r.err = errors.New("unexpected end in a name")
		return ""
	}
	s := string(r.b[r.off : r.off+n])
	r.off += n
	return s
}

func (r *reader) limits() {
	if r.byte()&1 != 0 {
		r.uleb()
	}
	r.uleb()
}

func ulebLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
