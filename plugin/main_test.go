package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm/proxytest"
	"github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm/types"
)

// The skeleton starts with a configuration and lets an HTTP stream through
// untouched. (Native build: proxytest's emulator stands in for the host.)
func TestSkeletonStartsAndPassesStream(t *testing.T) {
	for _, tc := range []struct {
		name, config string
	}{
		{"with configuration", `{"policy":"standard"}`},
		{"without configuration", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := proxytest.NewEmulatorOption().
				WithVMContext(&vmContext{}).
				WithPluginConfiguration([]byte(tc.config))
			host, reset := proxytest.NewHostEmulator(opt)
			defer reset()

			if got := host.StartVM(); got != types.OnVMStartStatusOK {
				t.Fatalf("StartVM = %v, want OK", got)
			}
			if got := host.StartPlugin(); got != types.OnPluginStartStatusOK {
				t.Fatalf("StartPlugin = %v, want OK", got)
			}
			want := "plugin configuration of " + strconv.Itoa(len(tc.config)) + " bytes"
			if logs := host.GetInfoLogs(); !containsLine(logs, want) {
				t.Errorf("info logs %q: want a line containing %q", logs, want)
			}

			id := host.InitializeHttpContext()
			reqHeaders := [][2]string{{":method", "POST"}, {":path", "/mcp"}, {"content-type", "application/json"}}
			body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			respBody := []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)
			steps := []struct {
				name   string
				action types.Action
			}{
				{"request headers", host.CallOnRequestHeaders(id, reqHeaders, false)},
				{"request body", host.CallOnRequestBody(id, body, true)},
				{"response headers", host.CallOnResponseHeaders(id, [][2]string{{":status", "200"}}, false)},
				{"response body", host.CallOnResponseBody(id, respBody, true)},
			}
			for _, s := range steps {
				if s.action != types.ActionContinue {
					t.Errorf("%s: action %v, want Continue", s.name, s.action)
				}
			}
			if got := host.GetCurrentRequestBody(id); string(got) != string(body) {
				t.Errorf("request body changed to %q", got)
			}
			if got := host.GetCurrentResponseBody(id); string(got) != string(respBody) {
				t.Errorf("response body changed to %q", got)
			}
			if lr := host.GetSentLocalResponse(id); lr != nil {
				t.Errorf("unexpected local response %+v", lr)
			}
			host.CompleteHttpContext(id)
		})
	}
}

func containsLine(lines []string, s string) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}
