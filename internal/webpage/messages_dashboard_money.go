package webpage

// dashboardMoneyMessages are the dashboard's texts of refunds, disputes, payment links and payouts.
var dashboardMoneyMessages = []struct{ en, ru, kk string }{}
