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

// keyCache holds the Keys of the names classified last, by their bytes
// (a copy: the cache is the scratch's, kept from message to message, and
// KeyOf depends on the name alone): the members of a list's objects, and
// the messages of one server, repeat their names.
type keyCache [keyCacheSize]keyCacheEntry

type keyCacheEntry struct {
	key  detect.Key
	n    uint8 // the name's length (0: the entry is free)
	name [keyCacheName]byte
}

const (
	keyCacheSize = 64
	keyCacheName = 29 // the longest name cached: an entry is 32 bytes
)

// keyOf is the Key of the name of member c.
func (w *docWalk) keyOf(d *jsondoc.Doc, c int32) detect.Key {
	raw, plain := d.KeyRaw(c)
	if !plain {
		return w.e.detectors.KeyOf(d.Key(c))
	}
	if len(raw) == 0 {
		return 0
	}
	kc := w.kcache
	if kc == nil || len(raw) > keyCacheName {
		return w.e.detectors.KeyOf(bytesView(raw))
	}
	h := (uint(len(raw))*31 + uint(raw[0])*7 + uint(raw[len(raw)/2])*3 + uint(raw[len(raw)-1])*13) % keyCacheSize
	e := &kc[h]
	if int(e.n) == len(raw) && string(e.name[:len(raw)]) == bytesView(raw) {
		return e.key
	}
	k := w.e.detectors.KeyOf(bytesView(raw))
	e.key, e.n = k, uint8(copy(e.name[:], raw))
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
