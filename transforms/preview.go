package transforms

import (
	"sort"
	"strconv"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/transforms/detect"
)

// PayloadDetection is a detection in one string of a JSON payload (what
// `mcp-privacy preview` reports). Path names the string in projection-path
// syntax (manual 11.7) relative to the payload: `content.0.text`,
// `structuredContent.email`; through a string holding JSON (a text item,
// structuredContent sent as text) it continues into the parsed JSON:
// `content.0.text.users.0.email`. Start and End index that string's decoded
// value, in bytes.
type PayloadDetection struct {
	Path string
	detect.Detection
	// AllowedBy is, for a detection an allow entry took away
	// (PayloadDetectionsExplained), the entry's path.
	AllowedBy string
}

// Detections returns what the detecting steps of p find in plain text s,
// the way ApplyText runs them (steps limited by fields have nothing to act
// on): the union of the steps' selections over s as given, before any step
// rewrote it, overlaps resolved as manual 12 says, in order. It stores and
// changes nothing.
func (e *Engine) Detections(p *Pipeline, s string) []detect.Detection {
	found, _ := e.DetectionsExplained(p, s)
	return found
}

// DetectionsExplained is Detections, and what allow entries took away
// (manual 12.9.6), each once, in order.
func (e *Engine) DetectionsExplained(p *Pipeline, s string) (found []detect.Detection, allowed []detect.Allowed) {
	if p.Empty() {
		return nil, nil
	}
	for i := range p.steps {
		st := &p.steps[i]
		if st.detecting() && len(st.fields) == 0 {
			ds, al := e.detectors.DetectExplained(s, st.sel)
			found = append(found, ds...)
			allowed = appendAllowed(allowed, al)
		}
	}
	return e.union(found), allowed
}

// appendAllowed appends to dst the entries of al it does not hold yet
// (several steps see the same allowed span), keeping dst in order.
func appendAllowed(dst, al []detect.Allowed) []detect.Allowed {
	for _, a := range al {
		dup := false
		for _, b := range dst {
			dup = dup || (a.Start == b.Start && a.End == b.End && a.Detector == b.Detector)
		}
		if !dup {
			dst = append(dst, a)
		}
	}
	sort.SliceStable(dst, func(i, j int) bool { return dst[i].Start < dst[j].Start })
	return dst
}

// union resolves the overlaps among detections several steps made.
func (e *Engine) union(ds []detect.Detection) []detect.Detection {
	if len(ds) < 2 {
		return ds
	}
	return e.detectors.ResolveOverlaps(ds)
}

// PayloadDetections returns what the detecting steps of p find in the
// strings of the payload at node n of doc, the way Apply reaches them:
// the same strings of the same payload kind, text items holding JSON
// parsed, fields and exclude_fields honoured, and a project step removing
// what later steps would not see. Each string is scanned as received (the
// union of the steps reaching it, overlaps resolved), never as an earlier
// step rewrote it. doc is not changed; the result is in document order.
func (e *Engine) PayloadDetections(p *Pipeline, doc *jsondoc.Doc, n int32, kind Payload) []PayloadDetection {
	found, _ := e.PayloadDetectionsExplained(p, doc, n, kind)
	return found
}

// PayloadDetectionsExplained is PayloadDetections, and what allow entries
// took away (manual 12.9.6), with AllowedBy set, each once.
func (e *Engine) PayloadDetectionsExplained(p *Pipeline, doc *jsondoc.Doc, n int32, kind Payload) (found, allowed []PayloadDetection) {
	if p.Empty() || doc.Kind(n) == jsondoc.Invalid {
		return nil, nil
	}
	// A private copy of the payload, which project steps may edit.
	d, err := jsondoc.Parse(doc.AppendValue(nil, n))
	if err != nil {
		return nil, nil
	}
	ts := collect(d, jsondoc.Root, kind, nil)
	f := &finder{paths: map[place]string{}, hits: map[place][]detect.Detection{}, allowed: map[place][]detect.Allowed{}, target: map[place]int{}}
	readTexts(d, ts, nil, false)
	for i := range ts {
		switch t := &ts[i]; t.kind {
		case document:
			f.name(d, t.node, nodePath(d, t.node))
		case plainText, jsonText:
			f.paths[place{d, t.node}] = nodePath(d, t.node)
			if t.kind == jsonText {
				f.name(t.sub, jsondoc.Root, f.paths[place{d, t.node}])
			}
		}
	}
	for i := range p.steps {
		st := &p.steps[i]
		for j := range ts {
			t := &ts[j]
			switch {
			case st.kind == stepProject && t.projectable && t.kind == jsonText:
				project(t.sub, jsondoc.Root, st.include, st.drop)
			case st.kind == stepProject && t.projectable && t.kind == document:
				project(d, t.node, st.include, st.drop)
			case !st.detecting():
			case t.kind == plainText:
				if len(st.fields) == 0 || t.unparsed {
					f.scan(e, st, d, t.node, j, 0)
				}
			case t.kind == jsonText:
				f.walk(e, st, t.sub, jsondoc.Root, shData, false, j)
			case t.kind == document:
				f.walk(e, st, d, t.node, t.shape, t.separate, j)
			}
		}
	}
	keys := make([]place, 0, len(f.hits))
	for k := range f.hits {
		keys = append(keys, k)
	}
	for k := range f.allowed {
		if _, ok := f.hits[k]; !ok {
			keys = append(keys, k)
		}
	}
	// Parsed nodes are numbered in document order; targets come in order.
	sort.Slice(keys, func(a, b int) bool {
		if ta, tb := f.target[keys[a]], f.target[keys[b]]; ta != tb {
			return ta < tb
		}
		return keys[a].node < keys[b].node
	})
	for _, k := range keys {
		for _, det := range e.union(f.hits[k]) {
			found = append(found, PayloadDetection{Path: f.paths[k], Detection: det})
		}
		for _, a := range f.allowed[k] {
			allowed = append(allowed, PayloadDetection{Path: f.paths[k], Detection: a.Detection, AllowedBy: a.By})
		}
	}
	return found, allowed
}

// place is one string node of a document.
type place struct {
	doc  *jsondoc.Doc
	node int32
}

// finder gathers PayloadDetections: each string's path (named before any
// projection renumbers array elements), what the steps found in it, and
// the index of the target it belongs to (for ordering).
type finder struct {
	paths   map[place]string
	hits    map[place][]detect.Detection
	allowed map[place][]detect.Allowed
	target  map[place]int
}

// name records the paths of the strings under node n of d, n being at
// path prefix.
func (f *finder) name(d *jsondoc.Doc, n int32, prefix string) {
	switch d.Kind(n) {
	case jsondoc.String, jsondoc.Number:
		f.paths[place{d, n}] = prefix
	case jsondoc.Object:
		for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
			f.name(d, c, joinPath(prefix, escapeKey(d.Key(c))))
		}
	case jsondoc.Array:
		i := 0
		for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
			f.name(d, c, joinPath(prefix, strconv.Itoa(i)))
			i++
		}
	}
}

// scan runs one step's detectors over string node n, a member keyed k
// (detect.KeyContext.Of; 0: nothing said).
func (f *finder) scan(e *Engine, st *step, d *jsondoc.Doc, n int32, target int, key detect.Key) {
	s, ok := d.Str(n)
	if !ok {
		return
	}
	ds := e.detectors.DetectKeyed(nil, s, key, st.sel)
	k := place{d, n}
	if _, al := e.detectors.DetectExplained(s, st.sel); len(al) > 0 {
		f.allowed[k] = appendAllowed(f.allowed[k], al)
		f.target[k] = target
	}
	if len(ds) == 0 {
		return
	}
	f.hits[k] = append(f.hits[k], ds...)
	f.target[k] = target
}

// scanNumber runs one step's detectors over number node n, read as Apply
// reads it (runNumber): its first reading the step finds something in.
// Start and End index that reading.
func (f *finder) scanNumber(e *Engine, st *step, d *jsondoc.Doc, n int32, target int, k detect.Key) {
	var rs numberReadings
	if k != 0 && plainNumber(d.Raw(n)) {
		rs.add(d.Raw(n), d.Raw(n), 0, nil) // read whole under its key, as the walk does
	} else {
		e.readNumber(&rs, d.Raw(n), nil)
	}
	for _, r := range rs.all() {
		if ds := e.detectors.DetectKeyed(nil, r, k, st.sel); len(ds) > 0 {
			k := place{d, n}
			f.hits[k] = append(f.hits[k], ds...)
			f.target[k] = target
			return
		}
	}
}

// walk scans the strings and numbers of a JSON structure that step st reaches, as
// applyDocument does.
func (f *finder) walk(e *Engine, st *step, d *jsondoc.Doc, root int32, sh shape, separate bool, target int) {
	var in, out map[int32]bool
	if len(st.fields) > 0 {
		in = st.fields.Nodes(d, root)
	}
	if len(st.exclude) > 0 {
		out = st.exclude.Nodes(d, root)
	}
	// ctx is the context an object's key gives it, k a scalar's Key
	// (keyed.go: the walk's reading of member names).
	var visit func(n int32, sh shape, reached bool, ctx detect.KeyContext, k detect.Key)
	visit = func(n int32, sh shape, reached bool, ctx detect.KeyContext, k detect.Key) {
		if out[n] {
			return
		}
		reached = reached || in[n]
		switch d.Kind(n) {
		case jsondoc.String:
			if reached && textAt(d, n, sh, separate) {
				f.scan(e, st, d, n, target, k)
			}
		case jsondoc.Number:
			if reached && numberRead(sh, separate) {
				f.scanNumber(e, st, d, n, target, k)
			}
		case jsondoc.Object:
			if skipped(sh, separate) {
				return
			}
			sh = refine(d, n, sh)
			data := sh == shData
			var keys []detect.Key
			if data {
				for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
					kc := e.detectors.KeyOf(d.Key(c))
					keys = append(keys, kc)
					ctx = ctx.Member(kc)
				}
			}
			i := 0
			for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
				var ck detect.Key
				var cctx detect.KeyContext
				if data {
					ck, cctx = ctx.Of(keys[i]), keys[i].Nested()
					i++
				}
				visit(c, childOf(d, c, sh), reached, cctx, ck)
			}
		case jsondoc.Array:
			if skipped(sh, separate) {
				return
			}
			for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
				visit(c, sh, reached, ctx, k)
			}
		}
	}
	visit(root, sh, len(st.fields) == 0, 0, 0)
}

// nodePath is the projection path of node n from the root of d.
func nodePath(d *jsondoc.Doc, n int32) string {
	var segs []string
	for n != jsondoc.Root && n != jsondoc.None {
		parent := d.Parent(n)
		if d.Kind(parent) == jsondoc.Array {
			i := 0
			for c := d.First(parent); c != n && c != jsondoc.None; c = d.Next(c) {
				i++
			}
			segs = append(segs, strconv.Itoa(i))
		} else {
			segs = append(segs, escapeKey(d.Key(n)))
		}
		n = parent
	}
	var b strings.Builder
	for i := len(segs) - 1; i >= 0; i-- {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(segs[i])
	}
	return b.String()
}

func joinPath(prefix, seg string) string {
	if prefix == "" {
		return seg
	}
	return prefix + "." + seg
}

// escapeKey writes a member name as one path segment: `.`, `*` and `\`
// escaped (manual 11.7).
func escapeKey(k string) string {
	if !strings.ContainsAny(k, `.*\`) {
		return k
	}
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		if c := k[i]; c == '.' || c == '*' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(k[i])
	}
	return b.String()
}
