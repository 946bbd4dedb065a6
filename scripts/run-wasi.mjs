// Runs a wasip1 module (a Go test binary) in V8 through Node's WASI, as
// Envoy and Istio run the plugin in V8: node run-wasi.mjs MODULE ARGS...
// Go takes its working directory from PWD; / is preopened so the test
// finds its testdata.
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';
import { argv, env } from 'node:process';

const wasi = new WASI({ version: 'preview1', args: argv.slice(2), env, preopens: { '/': '/' }, returnOnExit: true });
const module = await WebAssembly.compile(await readFile(argv[2]));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
process.exitCode = wasi.start(instance);
