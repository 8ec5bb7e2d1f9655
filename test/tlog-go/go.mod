module github.com/anchor/test-tlog-go

go 1.22.0

require golang.org/x/mod v0.22.0
