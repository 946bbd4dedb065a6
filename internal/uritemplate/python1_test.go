package uritemplate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// FastMCP 1.x reads a template's literal text as a Python pattern (issue
// 32, class 2): a denied template serves URIs its text does not spell.
var python1Cases = []struct {
	template, uri string
	python        bool // re.fullmatch of FastMCP's pattern
}{
	{"pkg://c++/{name}", "pkg://ccc/left-pad", true},
	{"pkg://c++/{name}", "pkg://c/left-pad", true},
	{"pkg://c++/{name}", "pkg://c++/left-pad", false},
	{"db://customers?region={region}", "db://customerregion=eu", true},
	{"db://customers?region={region}", "db://customersregion=eu", true},
	{"db://customers?region={region}", "db://customers?region=eu", false},
	{"n://{name}.txt", "n://aXtxt", true},
	{"n://{name}.txt", "n://a\ntxt", false},
	{"a://x|y{id}", "a://x", true},
	{"a://x|y{id}", "yz", true},
	{"a://(ab)*{id}", "a://ababz", true},
	{"a://[a-c]+/{id}", "a://cab/z", true},
	{"a://[^a]/{id}", "a://b/z", true},
	{"a://x(?=y){id}", "a://xyz", true},
	{"a://x(?!y){id}", "a://xz", true},
	{"a://(?i)X/{id}", "a://x/z", false}, // 3.11: global flags not at the start
	{"a://\\d/{id}", "a://٣/z", true},
	{"a://\\w+/{id}", "a://é/z", true},
	{"a://x$/{id}", "a://x/z", false},
	{"a://{a}/{b}", "a://x/y", true},
	{"a://{a}{b}", "a://xy", true},
	{"a://x)/{id}", "a://x)/z", false}, // re refuses it
	{"a://x\\/{id}", "a://x/z", true},
	{"a://x.y/{id}", "a://x\u00e9y/z", true},
	{"a://x+?/{id}", "a://xx/z", true},
	{"a://x{id}", "a://x/", false},
	// A quantifier or an escape takes a whole non-ASCII character.
	{"aή*.*x{A}", "ax0", true},
	{"a://ή?x/{id}", "a://x/z", true},
	{"a://é+/{id}", "a://ééé/z", true},
	{"a://\\é/{id}", "a://é/z", true},
	{"a://[\\é]/{id}", "a://é/z", true},
	{"a://\\é/{id}", "a://e/z", false},
}

func TestPython1Reading(t *testing.T) {
	for _, c := range python1Cases {
		tmpl, err := Parse(c.template)
		if err != nil {
			t.Fatalf("%s: %v", c.template, err)
		}
		if got := tmpl.Match(c.uri, Loose); c.python && !got {
			t.Errorf("%s: loose %q = false; FastMCP 1.x serves it", c.template, c.uri)
		}
	}
}

// pythonRE is one python3 process answering, a JSON line per question,
// whether FastMCP 1.x's pattern of a template fully matches a URI: its
// construction (two replacements, re.fullmatch; python-sdk v1.29.0,
// ResourceTemplate.matches), with Python's own re. null: re refuses the
// pattern.
type pythonRE struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	answers chan []byte
}

const pythonScript = `import json, re, sys, warnings
warnings.simplefilter("ignore")
sys.stdout.write("ready\n")
sys.stdout.flush()
for line in sys.stdin:
    t, u = json.loads(line)
    try:
        r = re.fullmatch(t.replace("{", "(?P<").replace("}", ">[^/]+)"), u) is not None
    except Exception:
        r = None
    sys.stdout.write(json.dumps(r) + "\n")
    sys.stdout.flush()
`

// pythonPatience bounds one answer: a fuzzed pattern can backtrack
// for ever in re ((a*)*b), which cannot be interrupted from outside
// but by ending the process. It starts when the interpreter is ready
// (startPython waits for it): on a loaded machine starting python3
// takes seconds, which made the first answer after a restart late.
const pythonPatience = 2 * time.Second

var (
	pyMu   sync.Mutex
	pyProc *pythonRE
	pyErr  error
)

func startPython() (*pythonRE, error) {
	py, err := exec.LookPath("python3")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(py, "-c", pythonScript)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &pythonRE{cmd: cmd, in: in, answers: make(chan []byte, 1)}
	go func() {
		r := bufio.NewReader(out)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				close(p.answers)
				return
			}
			p.answers <- line
		}
	}()
	if line, ok := <-p.answers; !ok || string(line) != "ready\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("python3 did not start: %q", line)
	}
	return p, nil
}

// pythonMatches asks python3 whether FastMCP 1.x's pattern of template
// fully matches uri. answered is false when re took longer than
// pythonPatience (the process is then ended, and the next question
// starts another); r is nil when re refuses the pattern.
func pythonMatches(t testing.TB, template, uri string) (r *bool, answered bool) {
	t.Helper()
	pyMu.Lock()
	defer pyMu.Unlock()
	if pyProc == nil && pyErr == nil {
		pyProc, pyErr = startPython()
	}
	if pyErr != nil {
		t.Skipf("python3 is not there (%v): FastMCP's reading is not checked against re", pyErr)
	}
	p := pyProc
	q, _ := json.Marshal([]string{template, uri})
	if _, err := p.in.Write(append(q, '\n')); err != nil {
		t.Fatalf("python3: %v", err)
	}
	select {
	case line, ok := <-p.answers:
		if !ok || json.Unmarshal(line, &r) != nil {
			t.Fatalf("python3 answered %q for %s", line, q)
		}
		return r, true
	case <-time.After(pythonPatience):
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
		pyProc = nil
		return nil, false
	}
}

// Every URI Python's re matches by FastMCP's pattern, the loose reading
// matches: checked against python3 where it is installed.
func TestPython1AgainstPython(t *testing.T) {
	for _, c := range python1Cases {
		r, answered := pythonMatches(t, c.template, c.uri)
		if !answered {
			t.Fatalf("%s %q: python3 did not answer in %v", c.template, c.uri, pythonPatience)
		}
		if got := r != nil && *r; got != c.python {
			t.Errorf("%s %q: python3 says %v, the case says %v", c.template, c.uri, got, c.python)
		}
	}
}

// FuzzPython1 checks that the loose reading of a template of plain
// {name} expressions holds every URI FastMCP 1.x's pattern matches in
// Python's own re.
func FuzzPython1(f *testing.F) {
	for _, c := range python1Cases {
		f.Add(c.template, c.uri)
	}
	f.Fuzz(func(t *testing.T, template, uri string) {
		if len(template) > 60 || len(uri) > 60 || !utf8.ValidString(template) || !utf8.ValidString(uri) {
			return
		}
		tmpl, err := Parse(template)
		if err != nil || tmpl.py == nil && !tmpl.pyAny {
			return // not a template FastMCP 1.x can read
		}
		// A question re does not answer in time (a pattern that
		// backtracks for ever) is left unchecked.
		if r, _ := pythonMatches(t, template, uri); r != nil && *r && !tmpl.Match(uri, Loose) {
			t.Fatalf("%s %q: FastMCP 1.x matches, the loose reading does not", template, uri)
		}
	})
}

// A pattern re backtracks on for ever leaves the question unanswered
// and the next one answered by a new process (the fuzzer found one and
// hung for the test binary's whole timeout).
func TestPythonPatience(t *testing.T) {
	if _, answered := pythonMatches(t, "a://(a*)*b{x}", "a://"+strings.Repeat("a", 40)); answered {
		t.Fatal("python3 answered a pattern that backtracks for ever")
	}
	if r, answered := pythonMatches(t, "a://{x}", "a://y"); !answered || r == nil || !*r {
		t.Fatalf("after a runaway pattern: %v, answered %v", r, answered)
	}
}
