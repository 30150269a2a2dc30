package dashboard

// developerPages are the routes of API keys, webhook endpoints, the events log, balance and settlements, the sandbox.
func developerPages(h *Handler) []page {
	return nil
}

// developersNotices are the words shown after those pages' posts, by the code
// their redirects carry.
var developersNotices = map[string]string{}
