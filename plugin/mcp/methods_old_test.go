package mcp

// Adapters over the old per-step tables (removed with them).
func resultCarriesPrimitive(method string) bool { _, ok := payloadOf(method); return ok }
func listOf(method string) (listMethod, bool)   { lm, ok := listMethods[method]; return lm, ok }
func listsInOrder() []listMethod {
	var out []listMethod
	for _, m := range listMethodOrder {
		out = append(out, listMethods[m])
	}
	return out
}
