package payd

// KDFRuns counts the argon2id runs of s, so tests see that a sign-in
// without a hash to verify still runs one.
func (s *Service) KDFRuns() int64 { return s.kdfRuns.Load() }

// HashPasswordWith hashes password with parameters p, as an older or
// newer configuration would have.
func (s *Service) HashPasswordWith(password string, p Argon2Params) string {
	return s.hashPassword(password, p)
}
