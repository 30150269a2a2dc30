package webpage

// dashboardDeveloperMessages are the dashboard's texts of API keys, webhook endpoints, events, balance and settlements, the sandbox.
var dashboardDeveloperMessages = []struct{ en, ru, kk string }{}
