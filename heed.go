package heed

// Version is heed's version, set at build time with
// -ldflags "-X github.com/heedhq/heed.Version=...".
var Version = "0.1.0-dev"

// ProjectURL is where heed lives; site owners who see heed in their logs
// find it there.
const ProjectURL = "https://github.com/heedhq/heed"

// UserAgent is the User-Agent that heed sends with every request,
// robots.txt included: "heed/<version> (+<project URL>)". Its product
// token, "heed", is what robots.txt files name to address heed.
func UserAgent() string { return "heed/" + Version + " (+" + ProjectURL + ")" }
