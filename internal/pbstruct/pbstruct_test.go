package pbstruct

import (
	"encoding/json"
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

func TestToJSON(t *testing.T) {
	in := map[string]any{"s": "x\"y", "n": 1.5, "b": true, "z": nil, "l": []any{"a", 2.0, map[string]any{"k": "v"}}}
	st, _ := structpb.NewStruct(in)
	raw, _ := proto.Marshal(st)
	js, ok := ToJSON(raw)
	if !ok {
		t.Fatal("decode failed")
	}
	var got map[string]any
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Errorf("got %v, want %v", got, in)
	}
	for _, bad := range [][]byte{{0x0a}, {0x0a, 0x05, 0x0a}, {0xff, 0xff, 0xff}} {
		if _, ok := ToJSON(bad); ok {
			t.Errorf("accepted truncated input %x", bad)
		}
	}
}
