// Package pdftest writes PDF documents of a known shape for tests.
package pdftest
