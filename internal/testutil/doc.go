// Package testutil holds helpers that heed's tests share.
package testutil
