module github.com/anchor/test-tlog-go

go 1.24.0

require (
	github.com/transparency-dev/formats v0.0.0-20251017110053-404c0d5b696c
	golang.org/x/mod v0.33.0
)
