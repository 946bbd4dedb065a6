package wasmhost

import (
	"encoding/binary"
	"strconv"
	"strings"
)

// property answers proxy_get_property. Lookup order (Envoy looks at the
// request attributes first, then plugin_*, then filter state): values set
// with Stream.SetProperty, the attributes the host derives from the stream,
// Options.Properties, plugin_name / plugin_root_id / plugin_vm_id, and
// finally what the guest stored with proxy_set_property on this stream.
// Strings come back raw, integers as 8 bytes little-endian, booleans as one
// byte, maps (request.headers, ...) in the pairs format.
func (vm *VM) property(path string) ([]byte, Status) {
	path = strings.TrimSuffix(path, "\x00")
	s := vm.currentStream()
	if s == nil && vm.host.opts.Semantics.ScopedPropertiesNeedRequest && strings.ContainsAny(path, "\x00.") {
		return nil, StatusInternalFailure
	}
	if s != nil {
		if v, ok := s.props[path]; ok {
			return v, StatusOK
		}
		if v, ok := s.attribute(strings.Split(path, "\x00")); ok {
			return v, StatusOK
		}
	}
	if v, ok := vm.host.opts.Properties[path]; ok {
		return v, StatusOK
	}
	switch path {
	case "plugin_name":
		return []byte(vm.host.opts.PluginName), StatusOK
	case "plugin_root_id":
		return []byte(vm.host.opts.RootID), StatusOK
	case "plugin_vm_id":
		return []byte(vm.host.opts.VMID), StatusOK
	}
	if s != nil {
		if v, ok := s.filterState[path]; ok {
			return v, StatusOK
		}
	}
	return nil, StatusNotFound
}

func int64Bytes(v int64) []byte {
	b := make([]byte, 8)
	binary.LittleEndian.PutUint64(b, uint64(v))
	return b
}

// attribute derives the request.* and response.* attributes Envoy computes
// from the stream's headers (the current maps, or what was last released).
func (s *Stream) attribute(path []string) ([]byte, bool) {
	if len(path) != 2 {
		return nil, false
	}
	req, resp := s.req.headers, s.resp.headers
	switch path[0] {
	case "request":
		if !s.req.headersSeen {
			return nil, false
		}
		p := req.Value(":path")
		switch path[1] {
		case "path":
			return []byte(p), true
		case "url_path":
			if i := strings.IndexByte(p, '?'); i >= 0 {
				p = p[:i]
			}
			return []byte(p), true
		case "query":
			q := ""
			if i := strings.IndexByte(p, '?'); i >= 0 {
				q = p[i+1:]
			}
			return []byte(q), true
		case "host":
			return []byte(req.Value(":authority")), true
		case "scheme":
			return []byte(req.Value(":scheme")), true
		case "method":
			return []byte(req.Value(":method")), true
		case "id":
			return []byte(req.Value("x-request-id")), true
		case "referer":
			return []byte(req.Value("referer")), true
		case "useragent":
			return []byte(req.Value("user-agent")), true
		case "protocol":
			return []byte("HTTP/1.1"), true
		case "headers":
			return EncodePairs(req), true
		}
	case "response":
		if !s.resp.headersSeen {
			return nil, false
		}
		switch path[1] {
		case "code":
			code, err := strconv.ParseInt(resp.Value(":status"), 10, 64)
			if err != nil {
				return nil, false
			}
			return int64Bytes(code), true
		case "headers":
			return EncodePairs(resp), true
		case "trailers":
			return EncodePairs(s.resp.trailers), true
		case "code_details":
			if s.localReply != nil {
				return []byte(s.localReply.Details), true
			}
			return []byte("via_upstream"), true
		}
	}
	return nil, false
}
