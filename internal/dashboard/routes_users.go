package dashboard

// userPages are the routes of users, the account (second factor), the audit log.
func userPages(h *Handler) []page {
	return nil
}

// usersNotices are the words shown after those pages' posts, by the code
// their redirects carry.
var usersNotices = map[string]string{}
