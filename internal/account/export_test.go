package account

// HashPasswordWith hashes password with parameters p, as an older or
// newer configuration would have.
func (s *Service) HashPasswordWith(password string, p Argon2Params) string {
	return s.hashPassword(password, p)
}

// HoldPasswordChecks takes n of the password checks' slots, as n sign-ins
// in the middle of argon2id would, until the returned func is called.
func (s *Service) HoldPasswordChecks(n int) (release func()) {
	for range n {
		s.kdfSlots <- struct{}{}
	}
	return func() {
		for range n {
			<-s.kdfSlots
		}
	}
}
