module github.com/heedhq/heed/bench

go 1.26.0

require github.com/heedhq/heed v0.0.0

require github.com/temoto/robotstxt v1.1.2

replace github.com/heedhq/heed => ../
