// A program whose output depends on every kind of control flow Go's wasm
// code has: branches and loops, switches, calls that grow the stack,
// goroutine switches (which unwind the wasm stack and resume functions at
// their blocks), panics and tracebacks (which read the program counters),
// and the collector (which walks the stacks by them). wasmjump's test runs
// it built as it is and rewritten, and wants the same output.
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

func collatz(n int) int {
	steps := 0
	for n != 1 {
		if n%2 == 0 {
			n /= 2
		} else {
			n = 3*n + 1
		}
		steps++
	}
	return steps
}

func classify(s string) string {
	switch {
	case s == "":
		return "empty"
	case strings.HasPrefix(s, "0x"):
		if _, err := strconv.ParseUint(s[2:], 16, 64); err != nil {
			return "bad hex"
		}
		return "hex"
	case s[0] >= '0' && s[0] <= '9':
		if _, err := strconv.Atoi(s); err != nil {
			return "bad number"
		}
		return "number"
	default:
		for _, r := range s {
			if r > 127 {
				return "unicode"
			}
		}
		return "word"
	}
}

// deep recurses with a frame big enough to grow the goroutine's stack many
// times over (morestack unwinds and resumes every frame in wasm).
func deep(n int) int {
	var pad [64]int
	pad[n%64] = n
	if n == 0 {
		return pad[0]
	}
	return deep(n-1) + pad[n%64]%7
}

// copies checks copy (runtime.memmove) against a byte-at-a-time move
// for every length up to 70 and every overlap of a source and a
// destination up to 40 bytes apart, either way, and returns the number
// of copies checked or the first that differs.
func copies() string {
	var buf, want [200]byte
	checked := 0
	for n := 0; n <= 70; n++ {
		for from := 40; from <= 80; from += 1 + from%3 {
			for to := from - 40; to <= from+40; to += 1 + to%5 {
				for i := range buf {
					buf[i] = byte(i*7 + n)
				}
				want = buf
				if to < from {
					for i := 0; i < n; i++ {
						want[to+i] = want[from+i]
					}
				} else {
					for i := n - 1; i >= 0; i-- {
						want[to+i] = want[from+i]
					}
				}
				if copy(buf[to:to+n], buf[from:from+n]) != n || buf != want {
					return fmt.Sprintf("copy of %d bytes from %d to %d: got %v, want %v", n, from, to, buf[:], want[:])
				}
				checked++
			}
		}
	}
	return fmt.Sprintf("copies %d", checked)
}

func where() string {
	_, file, line, _ := runtime.Caller(1)
	return fmt.Sprintf("%s:%d", file[strings.LastIndex(file, "/")+1:], line)
}

func mayPanic(i int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered %v at %s", r, where())
		}
	}()
	xs := []int{1, 2, 3}
	if i > 2 {
		return errors.New("too big: " + strconv.Itoa(xs[i%3]))
	}
	return fmt.Errorf("index %d: %d", i, xs[i*2])
}

func main() {
	var out strings.Builder
	total := 0
	for i := 1; i < 3000; i++ {
		total += collatz(i)
	}
	fmt.Fprintln(&out, "collatz", total)
	for _, s := range []string{"", "0x1f", "0xzz", "42", "4x2", "hello", "héllo"} {
		fmt.Fprintln(&out, strconv.Quote(s), classify(s))
	}
	fmt.Fprintln(&out, "deep", deep(20000))
	fmt.Fprintln(&out, copies())
	for i := 0; i < 5; i++ {
		fmt.Fprintln(&out, mayPanic(i))
	}

	// Goroutines handing values over channels: every send and receive
	// may switch goroutines.
	ch := make(chan int)
	results := make(chan string, 8)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			sum := 0
			for v := range ch {
				sum += v * (w + 1)
				runtime.Gosched()
			}
			results <- fmt.Sprintf("worker %d", w)
			_ = sum
		}(w)
	}
	for i := 0; i < 1000; i++ {
		ch <- i
	}
	close(ch)
	wg.Wait()
	close(results)
	var names []string
	for r := range results {
		names = append(names, r)
	}
	sort.Strings(names)
	fmt.Fprintln(&out, strings.Join(names, ","))

	// Garbage, collected while goroutines' stacks are live.
	m := map[string][]byte{}
	for i := 0; i < 20000; i++ {
		m[strconv.Itoa(i%500)] = make([]byte, i%300)
	}
	runtime.GC()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Fprintln(&out, len(keys), keys[:5])

	// A traceback: function names, files, lines and offsets from the
	// program counters the calls pushed.
	buf := make([]byte, 4096)
	out.Write(buf[:runtime.Stack(buf, false)])
	os.Stdout.WriteString(out.String())
}
