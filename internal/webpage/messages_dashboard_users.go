package webpage

// dashboardUserMessages are the dashboard's texts of users, the account and the audit log.
var dashboardUserMessages = []struct{ en, ru, kk string }{}
