//go:build wasip1 && !tinygo

package main

import (
	"encoding/binary"
	"errors"
	"runtime"
	"strconv"
	"unsafe"
)

// hostSendLocalResponse is the host call proxywasm.SendHttpResponse makes,
// imported here too because the SDK passes no response code details.
//
//go:wasmimport env proxy_send_local_response
func hostSendLocalResponse(status uint32, details unsafe.Pointer, detailsSize uint32, body unsafe.Pointer, bodySize uint32,
	headers unsafe.Pointer, headersSize uint32, grpcStatus int32) uint32

// sendLocalReply is proxywasm.SendHttpResponse with response code details:
// Envoy keeps them for access logs (%RESPONSE_CODE_DETAILS%) and never
// sends them to the client.
func sendLocalReply(status uint32, headers [][2]string, body []byte, details string) error {
	h := serializeHeaders(headers)
	d := []byte(details)
	st := hostSendLocalResponse(status, bytesPtr(d), uint32(len(d)), bytesPtr(body), uint32(len(body)),
		bytesPtr(h), uint32(len(h)), -1)
	runtime.KeepAlive(d)
	runtime.KeepAlive(body)
	runtime.KeepAlive(h)
	if st != 0 {
		return errors.New("proxy_send_local_response: status " + strconv.Itoa(int(st)))
	}
	return nil
}

func bytesPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

// serializeHeaders encodes a header map as proxy-wasm hosts read it: the
// number of pairs, each pair's key and value sizes, then each key and value
// followed by a NUL (the SDK's internal SerializeMap).
func serializeHeaders(headers [][2]string) []byte {
	size := 4
	for _, kv := range headers {
		size += len(kv[0]) + len(kv[1]) + 10
	}
	out := make([]byte, 4, size)
	binary.LittleEndian.PutUint32(out, uint32(len(headers)))
	for _, kv := range headers {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(kv[0])))
		out = binary.LittleEndian.AppendUint32(out, uint32(len(kv[1])))
	}
	for _, kv := range headers {
		out = append(append(out, kv[0]...), 0)
		out = append(append(out, kv[1]...), 0)
	}
	return out
}
