package outputschema

import (
	"encoding/binary"

	"github.com/cloudg/mcp-privacy/transforms/fieldpath"
)

// Where the walk stands against the pipeline's field paths: the may/must
// path states per schema node, and the memo key of a node in a state.

func (r *rewriter) compile(eff Effects) {
	add := func(ps fieldpath.Paths) []pathSlot {
		var out []pathSlot
		for _, p := range ps {
			s := pathSlot{p: p, off: r.width, words: p.StateWords()}
			r.width += 2 * s.words
			r.all = append(r.all, s)
			out = append(out, s)
		}
		return out
	}
	r.include = add(eff.Include)
	r.exclude = add(eff.Exclude)
	for _, sc := range eff.Rewrites {
		r.rewrites = append(r.rewrites, scopeSlots{fields: add(sc.Fields), exclude: add(sc.Exclude), numbers: sc.Numbers})
	}
	// The top state: every position possible, none certain.
	r.top = make([]uint64, r.width)
	for _, s := range r.all {
		s.p.AllStates(s.may(r.top))
	}
}

// start is the state at the document itself.
func (r *rewriter) start() []uint64 {
	st := make([]uint64, r.width)
	for _, s := range r.all {
		s.p.StartStates(s.may(st))
		s.p.StartStates(s.must(st))
	}
	return st
}

// step is the state at the child of a location that ls leads to.
func (r *rewriter) step(st []uint64, ls fieldpath.Step) []uint64 {
	if r.visits >= r.budget {
		return r.top
	}
	out := make([]uint64, r.width)
	for _, s := range r.all {
		s.p.AdvanceStates(s.may(st), s.must(st), s.may(out), s.must(out), ls)
	}
	return out
}

// rewriting reports whether a rewriting step may act on a string at this
// location (at), whether one may act at it or anywhere below (under), and
// whether one that rewrites numbers may act on a number here (num).
func (r *rewriter) rewriting(st []uint64) (at, under, num bool) {
	for _, sc := range r.rewrites {
		excluded := false
		for _, s := range sc.exclude {
			// must: a path that reaches only some documents' nodes here
			// (users.0.email, under items) does not protect them all.
			excluded = excluded || s.reachedMust(st)
		}
		if excluded {
			continue
		}
		if len(sc.fields) == 0 {
			at, under, num = true, true, num || sc.numbers
			continue
		}
		for _, s := range sc.fields {
			reached := s.reachedMay(st)
			at = at || reached
			under = under || s.alive(st)
			num = num || sc.numbers && reached
		}
	}
	return at, under, num
}

// removed reports whether project may remove the node at this location,
// and whether it must. The include side mirrors prune: a node stays when
// an include path reaches it or an ancestor, or when it holds something
// reached; so it may go unless an include path must reach it (a container
// on the way goes when nothing below is reached in that document), and it
// must go when no include path is alive here, or when only paths below it
// are alive and scalar says it cannot hold anything.
func (r *rewriter) removed(st []uint64, scalar bool) (may, must bool) {
	for _, s := range r.exclude {
		may = may || s.reachedMay(st)
		must = must || s.reachedMust(st)
	}
	if len(r.include) > 0 {
		covered, reachable, alive := false, false, false
		for _, s := range r.include {
			covered = covered || s.reachedMust(st)
			reachable = reachable || s.reachedMay(st)
			alive = alive || s.alive(st)
		}
		may = may || !covered
		must = must || !alive || (scalar && !reachable)
	}
	return may, must
}

// projectUnder reports whether project may remove something below this
// location.
func (r *rewriter) projectUnder(st []uint64) bool {
	for _, s := range r.exclude {
		if s.alive(st) {
			return true
		}
	}
	if len(r.include) > 0 {
		for _, s := range r.include {
			if s.reachedMust(st) {
				return false
			}
		}
		return true
	}
	return false
}

func (r *rewriter) memoKey(n int32, st []uint64) string {
	r.key = binary.LittleEndian.AppendUint32(r.key[:0], uint32(n))
	for _, w := range st {
		r.key = binary.LittleEndian.AppendUint64(r.key, w)
	}
	return string(r.key)
}
