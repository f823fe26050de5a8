// Package v1 holds the wire types of Eddy's REST API, version 1: the
// Statement resource (modelled on Confluent Cloud's sql/v1 Statement), its
// lists, results pages, exceptions, API keys and errors. It is public and
// imports nothing internal, so Go clients can use it directly.
package v1
