// Package docexample checks that the Go blocks of a Markdown document
// are runs of lines of Example functions, so that documentation shows
// code that CI runs. A block is marked by an HTML comment naming its
// example on the line before the fence:
//
//	<!-- ptf example: ExampleContext_RegisterOnProcessingTime -->
//	```go
//	...
//	```
package docexample
