// Package printable makes text from the web safe to print where a person
// reads it: on a terminal, a control character is an instruction (ESC
// clears the screen, retitles the window, OSC 52 writes the clipboard),
// so every one that a page, a feed or a robots.txt may carry is shown
// escaped instead, as Go writes it in a string literal ("\x1b", "\u009b").
//
// It may not import heed's other packages.
package printable
