package office

// merchantPages are the pages of merchants and their shops.
func merchantPages(h *Handler) []page {
	return nil
}
