package operator

// Patterns returns the route patterns New registers for cfg, in order.
func Patterns(cfg Config) []string {
	s, _ := newServer(cfg)
	return s.patterns
}
