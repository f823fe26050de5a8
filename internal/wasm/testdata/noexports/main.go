// Command noexports is a valid WASI reactor that is not a function module.
package main

func main() {}
