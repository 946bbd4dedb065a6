package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cloudg/mcp-privacy/internal/proxy"
	"github.com/cloudg/mcp-privacy/internal/wasmhost"
	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

// serve runs build/mcp-privacy.wasm under the Envoy-like host of
// internal/wasmhost (through internal/proxy) in front of an upstream MCP
// server: the plugin exactly as Envoy would run it, for trying policies
// locally.
func serve(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("policy", "", "plugin envelope or bare policy `FILE` (YAML or JSON)")
	upstream := fs.String("upstream", "", "the MCP server's base `URL`, e.g. http://127.0.0.1:3000")
	listen := fs.String("listen", "127.0.0.1:8080", "`address` to listen on")
	wasmPath := fs.String("wasm", "build/mcp-privacy.wasm", "the plugin module (make wasm)")
	workers := fs.Int("workers", 2, "worker VMs, like Envoy's worker threads")
	admin := fs.String("admin", "", "`address` of an Envoy-like admin listener: GET /stats and /stats/prometheus (the plugin's metrics)")
	hostName := fs.String("host", "envoy", "the `host` to model: envoy; envoy-1.34 (no allow_on_headers_stop_iteration); higress (its configuration injection and route_name/cluster_name properties); ngx-wasm (ngx_wasm_module: bodies not held, 4 KiB chunks, its properties and local-reply rules)")
	var routes routeFlags
	fs.Var(&routes, "route", "higress: requests to `NAME=[HOST]/PATH-PREFIX` take route NAME (repeatable, first match wins)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	profile, properties, err := hostProfile(*hostName, routes, *upstream)
	if err != nil {
		fmt.Fprintf(stderr, "serve: %v\n", err)
		return 2
	}
	if *file == "" || *upstream == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: mcp-privacy serve --policy FILE --upstream URL [--listen ADDR] [--wasm PATH] [--workers N] [--admin ADDR] [--host envoy|envoy-1.34|higress|ngx-wasm] [--route NAME=[HOST]/PATH-PREFIX]...")
		return 2
	}
	up, err := url.Parse(*upstream)
	if err != nil || up.Scheme == "" || up.Host == "" {
		fmt.Fprintf(stderr, "serve: --upstream %q: want an absolute URL such as http://127.0.0.1:3000\n", *upstream)
		return 2
	}
	env, config, errs := pluginConfig(*file)
	if len(errs) > 0 {
		printErrors(stderr, *file, errs)
		return 1
	}
	if profile.NoStopIteration && profile.Semantics == (wasmhost.Semantics{}) && holdsHeaders(config) {
		// The plugin cannot tell this Envoy from a later one: it would
		// pause every POST's headers and wait for a body Envoy never
		// delivers. (On ngx-wasm the plugin detects the host and does not
		// pause: nginx holds the request until the body was judged.)
		fmt.Fprintf(stderr, "serve: --host %s: gateway.hold_headers needs Envoy's allow_on_headers_stop_iteration (Envoy 1.35 or later), which this host does not have: every POST would hang; set hold_headers: false\n", profile.Name)
		return 1
	}
	wasm, err := os.ReadFile(*wasmPath)
	if err != nil {
		fmt.Fprintf(stderr, "serve: %v (build it with `make wasm`)\n", err)
		return 1
	}

	if m := max(env.Gateway.MaxRequestBytes, env.Gateway.MaxResponseBytes); m >= envoyBufferLimit && profile.Semantics == (wasmhost.Semantics{}) {
		fmt.Fprintf(stderr, "serve: warning: gateway.max_request_bytes or max_response_bytes (%d) is not below the buffer limit of envoy/envoy.yaml (%d): "+
			"larger bodies get the host's 413, 500 or reset instead of the plugin's answer; an Envoy running this policy needs a larger per_connection_buffer_limit_bytes\n",
			m, envoyBufferLimit)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	logs := &envoyLog{w: stderr}
	p, err := proxy.New(ctx, proxy.Options{
		Wasm: wasm, PluginConfig: config, Upstream: up, Workers: *workers,
		// The vault key reaches the VM as Envoy's host_env_keys would pass it.
		HostEnvKeys: vaultKeyEnvs(config),
		// serve keeps vault.path itself: the plugin need not warn.
		Env:                         map[string]string{"MCP_PRIVACY_VAULT_FILE_HOST": "serve"},
		Logger:                      logs.line,
		AllowOnHeadersStopIteration: profile.AllowStopIteration(holdsHeaders(config)),
		Semantics:                   profile.Semantics,
		HostProperties:              profile.HostProperties,
		Properties:                  properties,
		BufferLimitBytes:            envoyBufferLimit,
		// A VM that traps is replaced, as envoy/envoy.yaml's FAIL_RELOAD does.
		FailurePolicy: wasmhost.FailReload, ReloadBackoff: envoyReloadBackoff,
		StreamIdleTimeout: 5 * time.Minute,
	})
	if err != nil {
		fmt.Fprintf(stderr, "serve: %v\n", err)
		return 1
	}
	// vault.path: the host keeps the vault file (the VM has no filesystem),
	// loaded before the first request and saved at shutdown.
	vf, err := loadVaultFile(env.Policy.Vault, os.LookupEnv, vault.ServerKV(hostKV(p.Host().SharedData()), env.Server.ID), stderr)
	if err != nil {
		fmt.Fprintf(stderr, "serve: %v\n", err)
		_ = p.Close(context.Background())
		return 1
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(stderr, "serve: %v\n", err)
		return 1
	}
	srv := &http.Server{Handler: autosaveHandler(vf, p), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "mcp-privacy serve: http://%s -> %s (policy %q, %d workers, host %s)\n", ln.Addr(), up, env.Policy.Name, *workers, profile.Name)
	// The plugin's metrics: on the admin listener while serving, and the
	// counters in use in the log at shutdown.
	adminAddr := ""
	if *admin != "" {
		aln, err := net.Listen("tcp", *admin)
		if err != nil {
			fmt.Fprintf(stderr, "serve: --admin: %v\n", err)
			_ = ln.Close()
			_ = p.Close(context.Background())
			return 1
		}
		adminSrv := &http.Server{Handler: statsHandler(p.Host().Metrics), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = adminSrv.Serve(aln) }()
		defer adminSrv.Close()
		adminAddr = aln.Addr().String()
		fmt.Fprintf(stderr, "mcp-privacy serve: metrics at http://%s/stats and /stats/prometheus\n", adminAddr)
	}
	defer func() { printUsedStats(stderr, p.Host().Metrics()) }()
	if serveStarted != nil {
		serveStarted(ln.Addr().String(), adminAddr, cancel)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		if err = srv.Shutdown(shutdown); errors.Is(err, context.DeadlineExceeded) {
			// Event streams (a client's GET stream, a long tool call) last
			// until their client or server ends them: after the grace
			// period they are cut, as Envoy cuts them when a drain ends.
			fmt.Fprintf(stderr, "mcp-privacy serve: closing the connections still open after %v\n", shutdownGrace)
			err = srv.Close()
		}
		closing, cancelClose := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancelClose()
		_ = p.Close(closing)
	}
	if serr := saveVaultFile(vf); serr != nil {
		fmt.Fprintf(stderr, "serve: %v\n", serr)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "serve: %v\n", err)
		return 1
	}
	return 0
}

// envoyBufferLimit is the per_connection_buffer_limit_bytes of
// envoy/envoy.yaml (17 MiB: gateway.max_response_bytes' default of 16 MiB
// plus headroom), so that serve buffers what that Envoy buffers: the
// harness's default is Envoy's own default of 1 MiB, below which a JSON
// answer of more than 1 MiB was reset instead of processed.
// TestServeBufferLimitIsEnvoyYAMLs keeps the two equal.
const envoyBufferLimit = 17825792

// envoyReloadBackoff is the reload_config.backoff.base_interval of
// envoy/envoy.yaml's FAIL_RELOAD: a worker whose VM trapped gets a new VM
// for its next request once this (with Envoy's jitter, up to half as much
// again) has passed since the VM was loaded; until then its requests fail
// closed. TestServeReloadBackoffIsEnvoyYAMLs keeps the two equal.
const envoyReloadBackoff = time.Second

// shutdownGrace is how long serve lets requests in flight finish at
// SIGINT or SIGTERM before it closes their connections.
const shutdownGrace = 5 * time.Second

// serveStarted, when set (tests), learns the addresses serve listens on
// and a function that stops it as a signal would.
var serveStarted func(listen, admin string, stop func())

// pluginConfig reads FILE as the CLI does everywhere (an envelope or a bare
// policy, extends files resolved) and returns the JSON envelope the plugin
// takes: the policy flattened, since the plugin resolves profile names only.
func pluginConfig(file string) (*policy.Envelope, []byte, policy.Errors) {
	l, errs := load(file)
	if len(errs) > 0 {
		return nil, nil, errs
	}
	if l.Rules != nil {
		return routedPluginConfig(l)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, policy.Errors{{Msg: err.Error()}}
	}
	doc, err := policy.ParseDocument(data)
	if err != nil {
		return nil, nil, policy.Errors{{Path: file, Msg: err.Error()}}
	}
	if !policy.IsEnvelope(doc) {
		doc = policy.Object()
	}
	doc.Set("policy", l.Policy.Document())
	config := []byte(doc.JSON(""))
	env, errs := policy.ParseEnvelope(config, policy.Options{})
	return env, config, errs
}

// envoyLog writes the plugin's log lines the way Envoy prints wasm logs,
// one line each.
type envoyLog struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *envoyLog) line(level wasmhost.LogLevel, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ts := time.Now().Format("2006-01-02 15:04:05.000")
	for _, m := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
		fmt.Fprintf(l.w, "[%s][%s][wasm] wasm log mcp-privacy: %s\n", ts, level, m)
	}
}
