// Command heed is a polite web ingester for AI agents. Run "heed help" for
// its commands.
package main
