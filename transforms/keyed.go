package transforms

import (
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/transforms/detect"
)

// Members read by what their names say (manual 12.9.5). The walk of a
// data object classifies its members' names once (memberKeys), which
// gives the object its context (a person's record, an address, a thing);
// each string or number member is then scanned with its key in that
// context (Run.key, detect.Set.DetectKeyed), each object or list member
// entered with the context its key gives (customer: a person's; billing
// address: an address).

// keyCache holds the Keys of the last names classified, by their bytes:
// the members of a list's objects repeat their names. Names are views of
// the walked document, which outlives the walk.
type keyCache [keyCacheSize]struct {
	name string
	key  detect.Key
}

const keyCacheSize = 32

// keyOf is the Key of the name of member c.
func (w *docWalk) keyOf(d *jsondoc.Doc, c int32) detect.Key {
	raw, plain := d.KeyRaw(c)
	if !plain {
		return w.e.detectors.KeyOf(d.Key(c))
	}
	if len(raw) == 0 {
		return 0
	}
	name := bytesView(raw)
	h := (uint(len(raw))*31 + uint(raw[0])*7 + uint(raw[len(raw)-1])) % keyCacheSize
	if e := &w.kcache[h]; len(e.name) == len(name) && e.name == name {
		return e.key
	}
	k := w.e.detectors.KeyOf(name)
	w.kcache[h].name, w.kcache[h].key = name, k
	return k
}

// memberKeys pushes the Keys of object n's members on w.keys and returns
// the object's context: ctx (what its own key gave it) and what its
// members say. False when no member says anything.
func (w *docWalk) memberKeys(n int32, ctx detect.KeyContext) (detect.KeyContext, bool) {
	d := w.d
	any := false
	for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
		k := w.keyOf(d, c)
		w.keys = append(w.keys, k)
		if k != 0 {
			any = true
			ctx = ctx.Member(k)
		}
	}
	if !any {
		w.keys = w.keys[:len(w.keys)-int(d.Len(n))]
	}
	return ctx, any
}

// enter prepares the walk of a member keyed k in an object of context
// ctx: its Key if it is a scalar, the context of the object or list it
// may hold.
func (w *docWalk) enter(ctx detect.KeyContext, k detect.Key) {
	w.cur = ctx.Of(k)
	w.nested = k.Nested()
	w.elem = w.cur
}
