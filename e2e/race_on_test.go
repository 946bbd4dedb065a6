//go:build race

package e2e_test

func init() { raceBuild = true }
