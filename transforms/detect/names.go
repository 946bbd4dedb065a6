package detect

// scanPersons is not written yet: it finds nothing.
func (p *pass) scanPersons() {}

// personsClean: scanPersons finds nothing anywhere yet.
func personsClean(s string) bool { return true }
