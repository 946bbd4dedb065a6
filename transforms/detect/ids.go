package detect

// scanIDs is not written yet: it finds nothing.
func (p *pass) scanIDs() {}

// idsClean: scanIDs finds nothing anywhere yet.
func idsClean(s string) bool { return true }
