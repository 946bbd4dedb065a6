//go:build race

package wasmjump

func init() { raceBuild = true }
