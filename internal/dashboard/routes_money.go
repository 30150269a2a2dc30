package dashboard

// moneyPages are the routes of refunds, disputes, payment links, payouts.
func moneyPages(h *Handler) []page {
	return nil
}

// moneyNotices are the words shown after those pages' posts, by the code
// their redirects carry.
var moneyNotices = map[string]string{}
