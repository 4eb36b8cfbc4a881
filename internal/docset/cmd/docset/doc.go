// Command docset rebuilds the documentation development set from
// Debian's documentation packages into a directory: docset DIR [N] keeps
// up to N pages of each generator (30 by default).
package main
