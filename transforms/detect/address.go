package detect

// scanAddresses is not written yet: it finds nothing.
func (p *pass) scanAddresses() {}

// addressesClean: scanAddresses finds nothing anywhere yet.
func addressesClean(s string) bool { return true }
