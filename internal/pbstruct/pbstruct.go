// Package pbstruct reads a serialized google.protobuf.Struct (how Envoy
// returns dynamic metadata, such as jwt_authn's payload) as JSON. It decodes
// the protobuf wire format by hand: the protobuf runtime would add more to
// the plugin's module than this whole package. It knows nothing of MCP or
// of the host.
package pbstruct

import (
	"encoding/binary"
	"math"
	"strconv"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

// ToJSON converts a serialized google.protobuf.Struct to JSON; false when b
// is not a well-formed Struct (truncated, bad wire types, nested deeper
// than 32).
//
//	Struct    { map<string, Value> fields = 1; }   (entries: key = 1, value = 2)
//	Value     { null = 1; number = 2 (double); string = 3; bool = 4;
//	            Struct struct = 5; ListValue list = 6; }
//	ListValue { repeated Value values = 1; }
func ToJSON(b []byte) ([]byte, bool) {
	out, ok := appendStruct(nil, b, 0)
	return out, ok
}

const maxStructDepth = 32

type field struct {
	num  uint64
	wire uint64
	val  uint64 // varint or fixed64
	data []byte // length-delimited
}

// nextField reads one field from b, returning the rest.
func nextField(b []byte) (field, []byte, bool) {
	key, n := binary.Uvarint(b)
	if n <= 0 {
		return field{}, nil, false
	}
	b = b[n:]
	f := field{num: key >> 3, wire: key & 7}
	switch f.wire {
	case 0:
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return f, nil, false
		}
		f.val, b = v, b[n:]
	case 1:
		if len(b) < 8 {
			return f, nil, false
		}
		f.val, b = binary.LittleEndian.Uint64(b), b[8:]
	case 2:
		l, n := binary.Uvarint(b)
		if n <= 0 || uint64(len(b)-n) < l {
			return f, nil, false
		}
		f.data, b = b[n:n+int(l)], b[n+int(l):]
	case 5:
		if len(b) < 4 {
			return f, nil, false
		}
		b = b[4:]
	default:
		return f, nil, false
	}
	return f, b, true
}

func appendStruct(out, b []byte, depth int) ([]byte, bool) {
	if depth > maxStructDepth {
		return nil, false
	}
	out = append(out, '{')
	first := true
	for len(b) > 0 {
		f, rest, ok := nextField(b)
		if !ok {
			return nil, false
		}
		b = rest
		if f.num != 1 || f.wire != 2 {
			continue
		}
		var key string
		var value []byte
		entry := f.data
		for len(entry) > 0 {
			ef, erest, ok := nextField(entry)
			if !ok {
				return nil, false
			}
			entry = erest
			switch {
			case ef.num == 1 && ef.wire == 2:
				key = string(ef.data)
			case ef.num == 2 && ef.wire == 2:
				value = ef.data
			}
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = jsondoc.AppendString(out, key)
		out = append(out, ':')
		if out, ok = appendValue(out, value, depth+1); !ok {
			return nil, false
		}
	}
	return append(out, '}'), true
}

func appendValue(out, b []byte, depth int) ([]byte, bool) {
	if depth > maxStructDepth {
		return nil, false
	}
	result := []byte("null")
	for len(b) > 0 {
		f, rest, ok := nextField(b)
		if !ok {
			return nil, false
		}
		b = rest
		switch {
		case f.num == 1 && f.wire == 0:
			result = []byte("null")
		case f.num == 2 && f.wire == 1:
			v := math.Float64frombits(f.val)
			if math.IsInf(v, 0) || math.IsNaN(v) {
				result = []byte("null")
			} else {
				result = strconv.AppendFloat(nil, v, 'g', -1, 64)
			}
		case f.num == 3 && f.wire == 2:
			result = jsondoc.AppendString(nil, string(f.data))
		case f.num == 4 && f.wire == 0:
			result = strconv.AppendBool(nil, f.val != 0)
		case f.num == 5 && f.wire == 2:
			if result, ok = appendStruct(nil, f.data, depth+1); !ok {
				return nil, false
			}
		case f.num == 6 && f.wire == 2:
			if result, ok = appendList(nil, f.data, depth+1); !ok {
				return nil, false
			}
		}
	}
	return append(out, result...), true
}

func appendList(out, b []byte, depth int) ([]byte, bool) {
	out = append(out, '[')
	first := true
	for len(b) > 0 {
		f, rest, ok := nextField(b)
		if !ok {
			return nil, false
		}
		b = rest
		if f.num != 1 || f.wire != 2 {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		if out, ok = appendValue(out, f.data, depth); !ok {
			return nil, false
		}
	}
	return append(out, ']'), true
}
